import { Alert, Text } from "@mantine/core";

type DryRun = {
  outcome: string;
  failing_filter?: { property: string; op: string; value?: unknown };
  merge_preview?: { headline: string; message: string };
};

const OUTCOMES: Record<string, { color: string; title: string; text: string }> = {
  queued: {
    color: "green",
    title: "A card would be mailed",
    text: "This sample passes every filter and has an address.",
  },
  filtered_out: {
    color: "yellow",
    title: "No card: a filter stops it",
    text: "This sample does not pass a filter.",
  },
  no_address: {
    color: "yellow",
    title: "No card: no address",
    text: "This sample has no street with a city or ZIP, so there is nowhere to mail.",
  },
};

/** What the dry run says would happen to the sample; nothing was written. */
export function DryRunResult({ result }: { result: DryRun }) {
  const known = OUTCOMES[result.outcome] ?? { color: "gray", title: `Outcome: ${result.outcome}`, text: "" };
  const filter = result.failing_filter;
  return (
    <Alert color={known.color} title={known.title} role="status">
      {known.text && <Text size="sm">{known.text}</Text>}
      {filter && (
        <Text size="sm" mt={4}>
          Failing filter: <code>{filter.property}</code> {filter.op}
          {filter.value !== undefined ? (
            <>
              {" "}
              <code>{JSON.stringify(filter.value)}</code>
            </>
          ) : null}
        </Text>
      )}
      {result.merge_preview && (
        <Text size="sm" mt={4}>
          Headline on the card: “{result.merge_preview.headline}”
        </Text>
      )}
      <Text size="xs" mt={4}>
        This was a test: nothing was mailed or saved.
      </Text>
    </Alert>
  );
}
