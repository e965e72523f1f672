import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import type { Revenue } from "../../api/revenue.ts";
import { roughMoney } from "../../ui/format.ts";
import {
  type ExperimentFigures,
  experimentResult,
  groupsInWords,
  untilResultInWords,
} from "./experiment-words.ts";

/**
 * Each automation with a holdout: how often the homes that got its card bought against the homes
 * it held out, in words, and what the mail added once the result is clear.
 */
export function ExperimentSummary({ rows }: { rows: Revenue["by_automation"] }) {
  const experiments = rows.flatMap((row) =>
    row.experiment && row.automation_id
      ? [{ id: row.automation_id, name: row.automation_name, experiment: row.experiment }]
      : [],
  );
  if (experiments.length === 0) return null;
  return (
    <section aria-labelledby="revenue-holdouts">
      <Title order={2} size="h4" mb="xs" id="revenue-holdouts">
        What the mail added
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Each automation with a holdout leaves a share of homes unmailed. Comparing how often they buy with the
        homes that got the card shows the deals the card caused, not just the deals it touched.
      </Text>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {experiments.map(({ id, name, experiment }) => (
          <ExperimentCard key={id} name={name} experiment={experiment} />
        ))}
      </SimpleGrid>
    </section>
  );
}

function ExperimentCard({ name, experiment }: { name: string; experiment: ExperimentFigures }) {
  const result = experimentResult(experiment);
  return (
    <Card withBorder padding="md" component="article" aria-label={`Holdout of ${name}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={3} size="h5">
            {name}
          </Title>
          {/* A holdout set to 0 read "0 % held out" beside "0 of 13 held-out homes": it is over, said so. */}
          <Badge variant="light" color="gray">
            {experiment.holdout_percent === 0
              ? "Holdout turned off"
              : `${experiment.holdout_percent} % held out`}
          </Badge>
        </Group>
        <Text fw={600}>{result ?? "Too early to tell"}</Text>
        <Text size="sm">{groupsInWords(experiment)}</Text>
        {experiment.holdout_percent === 0 && (
          <Text size="sm">
            No new home is held out: every home gets the card now. The homes held out before still count in
            this comparison.
          </Text>
        )}
        {result ? (
          <Text size="sm">{addedInWords(experiment)}</Text>
        ) : (
          <Text size="sm" c="dimmed">
            {untilResultInWords(experiment, new Date())}
          </Text>
        )}
      </Stack>
    </Card>
  );
}

/** "About 14 deals (≈ $70,000) came from the card, beyond what these homes would have bought anyway." */
function addedInWords(experiment: ExperimentFigures): string {
  const deals = experiment.incremental_conversions ?? 0;
  const rounded = Math.round(deals);
  const revenue =
    experiment.incremental_revenue === null ? "" : ` (≈ ${roughMoney(experiment.incremental_revenue)})`;
  return `About ${rounded} ${Math.abs(rounded) === 1 ? "deal" : "deals"}${revenue} came from the card, beyond what these homes would have bought anyway.`;
}
