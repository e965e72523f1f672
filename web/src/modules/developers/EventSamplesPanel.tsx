import { Badge, Code, Group, NavLink, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { apiKeysQuery } from "../../api/developers.ts";
import { eventSamplesQuery, eventTypesQuery, lookAgainWhileEmpty } from "../../api/events.ts";
import { sessionQuery } from "../../api/session.ts";
import { formatDateTime } from "../../ui/format.ts";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";
import { CodeSnippet } from "./CodeSnippet.tsx";
import { firstEventCurl } from "./snippets.ts";

const keysTab = (words: string) => (
  <AnchorLink to="/developers" search={{ tab: "keys" }}>
    {words}
  </AnchorLink>
);

/**
 * Which key the first event is sent with: an owner who has keys is not told to make one; one who
 * has none is sent to make it; a member (who cannot see keys) asks an owner.
 */
function FirstEventKeyHint() {
  const session = useQuery(sessionQuery());
  const isOwner = session.data?.role === "owner";
  const keys = useQuery({ ...apiKeysQuery(), enabled: isOwner });
  const then = "then build an automation from it. From a terminal:";
  if (!isOwner) {
    return (
      <Text size="sm">
        Send a first event with an API key (an owner of your organization makes keys), {then}
      </Text>
    );
  }
  if ((keys.data?.keys.length ?? 0) > 0) {
    return (
      <Text size="sm">
        Send a first event with one of your {keysTab("API keys")}, {then}
      </Text>
    );
  }
  return (
    <Text size="sm">
      Send a first event with an API key ({keysTab("create one under API keys")}), {then}
    </Text>
  );
}

/** What the CRM actually sent, per event type; types no automation binds are marked. */
export function EventSamplesPanel({
  selected,
  onSelect,
}: {
  selected?: string;
  onSelect: (eventType: string) => void;
}) {
  const eventTypes = useQuery({ ...eventTypesQuery(), refetchInterval: lookAgainWhileEmpty });
  if (eventTypes.isPending) return <Loading label="Loading event types" />;
  if (eventTypes.isError) return <LoadError error={eventTypes.error} retry={() => eventTypes.refetch()} />;
  if (eventTypes.data.length === 0) {
    return (
      <EmptyState title="No events received yet">
        <Stack gap="sm">
          <FirstEventKeyHint />
          <CodeSnippet label="First event command" code={firstEventCurl(window.location.origin)} />
          <Text size="sm" c="dimmed" role="status">
            Waiting for your first event: it shows here as soon as it arrives.
          </Text>
        </Stack>
      </EmptyState>
    );
  }
  const current = selected ?? eventTypes.data[0]?.event_type ?? "";
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
      <nav aria-label="Event types">
        {eventTypes.data.map((type) => (
          <NavLink
            key={type.event_type}
            component="button"
            type="button"
            active={type.event_type === current}
            aria-current={type.event_type === current ? "true" : undefined}
            label={`${type.event_type} (${type.count})`}
            rightSection={
              type.bound ? undefined : type.only_test_cards ? (
                <Badge color="gray.7" variant="filled" size="sm">
                  Test cards only
                </Badge>
              ) : (
                <Badge color="red.9" variant="filled" size="sm">
                  No automation
                </Badge>
              )
            }
            onClick={() => onSelect(type.event_type)}
          />
        ))}
      </nav>
      <div style={{ gridColumn: "span 2" }}>
        <SampleList
          eventType={current}
          bound={eventTypes.data.find((type) => type.event_type === current)?.bound ?? true}
          onlyTestCards={
            eventTypes.data.find((type) => type.event_type === current)?.only_test_cards ?? false
          }
        />
      </div>
    </SimpleGrid>
  );
}

function SampleList({
  eventType,
  bound,
  onlyTestCards,
}: {
  eventType: string;
  bound: boolean;
  /** Only test cards sent from the builder came with this type: no CRM event went unheard. */
  onlyTestCards: boolean;
}) {
  const samples = useQuery(eventSamplesQuery(eventType));
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h4">
          Samples of <code>{eventType}</code>
        </Title>
        {!bound && (
          <ButtonLink to="/automations/new" search={{ event_type: eventType }} size="xs">
            Build an automation for it
          </ButtonLink>
        )}
      </Group>
      {!bound &&
        (onlyTestCards ? (
          <Text size="sm">
            Only test cards sent from an automation's builder came with this type, and no automation that is
            on listens to it: events your CRM sends of this type would mail nothing.
          </Text>
        ) : (
          <Text size="sm">
            No automation uses this event type, so these events mail nothing. If it is a typo, fix it where
            your CRM sends it.
          </Text>
        ))}
      {samples.isPending ? (
        <Loading label="Loading samples" />
      ) : samples.isError ? (
        <LoadError error={samples.error} retry={() => samples.refetch()} />
      ) : samples.data.length === 0 ? (
        <Text size="sm">No samples kept for this type.</Text>
      ) : (
        samples.data.map((sample) => (
          <Paper key={sample.id} withBorder p="sm">
            <Group gap="xs" mb={4}>
              <Text size="sm" fw={600}>
                {formatDateTime(sample.received_at)} · {sample.object_type ?? "record"}
              </Text>
              {sample.without_address && (
                <Badge color="red.9" variant="filled" size="sm">
                  No card: no address
                </Badge>
              )}
            </Group>
            <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }}>
              {JSON.stringify(sample.record, null, 2)}
            </Code>
          </Paper>
        ))
      )}
    </Stack>
  );
}
