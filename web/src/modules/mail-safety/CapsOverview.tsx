import { Badge, Card, Group, Progress, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import {
  capInWords,
  capPercent,
  formatCents,
  mailSafetyQuery,
  reviewInApprovals,
} from "../../api/mail-safety.ts";
import { sessionQuery } from "../../api/session.ts";
import { count, formatMonth } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { LoadError, Loading } from "../../ui/states.tsx";

function CapMeter({
  label,
  use,
  paused,
}: {
  label: string;
  use: Parameters<typeof capInWords>[0];
  paused?: boolean;
}) {
  const percent = capPercent(use);
  return (
    <Stack gap={4}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" fw={600} truncate>
          {label}
        </Text>
        {paused && (
          <Badge color="orange" variant="light">
            Paused by cap
          </Badge>
        )}
      </Group>
      <Text size="sm">{capInWords(use)}</Text>
      {percent !== null && (
        <Progress
          value={percent}
          color={percent >= 100 ? "red.8" : percent >= 80 ? "orange.8" : "indigo.8"}
          aria-label={`${label}: ${Math.round(percent)}% of the monthly cap used`}
        />
      )}
    </Stack>
  );
}

/** Overview: the monthly caps and what this month used of them, and the cards awaiting approval. */
export function CapsOverview() {
  const safety = useQuery(mailSafetyQuery());
  // Only owners change the caps: a member's link says it shows them (Settings says why it cannot change them).
  const isOwner = useQuery(sessionQuery()).data?.role === "owner";
  if (safety.isPending) return <Loading label="Loading the monthly caps" />;
  if (safety.isError) return <LoadError error={safety.error} retry={() => safety.refetch()} />;
  const { organization, automations, mailings, awaiting_approval, frequency_cap_days, month } = safety.data;
  return (
    <section aria-labelledby="caps-heading">
      <Title order={2} size="h3" id="caps-heading" mb="sm">
        Mail safety in {formatMonth(month, "long")}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        <Card withBorder>
          <Stack gap="sm">
            <CapMeter label="Organization" use={organization} />
            <Text size="xs" c="dimmed">
              {frequency_cap_days > 0
                ? `A home gets at most one card every ${frequency_cap_days} days, besides the follow-up cards of its own sequence.`
                : "No frequency cap per home."}{" "}
              <AnchorLink to="/settings" search={{ tab: "safety" }} size="xs">
                {isOwner ? "Change caps" : "See the caps"}
              </AnchorLink>
            </Text>
          </Stack>
        </Card>
        {automations.map((automation) => (
          <Card withBorder key={automation.automation_id}>
            <CapMeter label={automation.name} use={automation} paused={automation.paused_by_cap} />
          </Card>
        ))}
        {mailings.cards > 0 && (
          <Card withBorder>
            <Stack gap={4}>
              <Text size="sm" fw={600}>
                Mailings to past customers
              </Text>
              <Text size="sm">
                {count(mailings.cards, "card")}
                {mailings.cents > 0 ? ` (${formatCents(mailings.cents)})` : ""} sent to print
              </Text>
              <Text size="xs" c="dimmed">
                They count against the organization's caps only.
              </Text>
            </Stack>
          </Card>
        )}
        <Card withBorder>
          <Stack gap={4}>
            <Text size="sm" fw={600}>
              Awaiting approval
            </Text>
            <Text size="sm">
              {awaiting_approval === 0
                ? "No card waits for approval."
                : awaiting_approval === 1
                  ? "1 card waits for approval."
                  : `${awaiting_approval} cards wait for approval.`}
            </Text>
            {awaiting_approval > 0 && (
              <AnchorLink to="/approvals" size="sm">
                {reviewInApprovals(awaiting_approval)}
              </AnchorLink>
            )}
          </Stack>
        </Card>
      </SimpleGrid>
    </section>
  );
}
