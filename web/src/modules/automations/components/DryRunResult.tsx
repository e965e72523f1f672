import { Alert, Text } from "@mantine/core";

import type { DryRunAnswer } from "../../../api/automations.ts";
import { SampleSafetyLines, sampleSafetyHeading } from "../../mail-safety/SampleSafety.tsx";

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
  duplicate: {
    color: "yellow",
    title: "No card: already handled",
    text: "This sample's event was already processed.",
  },
  loop_guard: {
    color: "yellow",
    title: "No card: the record is one of your leads",
    text: "This record names a lead Porchlight sent to your CRM, so it does not mail a card (the loop guard).",
  },
  failed: { color: "red", title: "The test failed", text: "The card could not be prepared for this sample." },
  no_address: {
    color: "yellow",
    title: "No card: no address",
    text: "This sample has no street with a city or ZIP, so there is nowhere to mail.",
  },
};

const NOT_MAILED = new Set(["skipped", "suppressed", "held_out"]);

/**
 * What the dry run says would happen to the sample; nothing was written. A sample the trigger
 * queues is then told what mail safety would do to its card now (the server's `mail_safety`).
 */
export function DryRunResult({ result }: { result: DryRunAnswer }) {
  const outcome = OUTCOMES[result.outcome] ?? {
    color: "gray",
    title: `Outcome: ${result.outcome}`,
    text: "",
  };
  const safety = result.mail_safety;
  const known = safety ? { ...outcome, ...sampleSafetyHeading(safety) } : outcome;
  const filter = result.failing_filter;
  return (
    <Alert color={known.color} title={known.title} role="status">
      {known.text && <Text size="sm">{known.text}</Text>}
      {safety && <SampleSafetyLines safety={safety} />}
      {result.address && (
        <Text size="sm" mt={4}>
          {safety && NOT_MAILED.has(safety.outcome) ? "The home" : "Mailed to"}: {result.address}
        </Text>
      )}
      {filter && (
        <Text size="sm" mt={4}>
          Failing filter: <code>{filter.property}</code> {filter.op}
          {"value" in filter ? (
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
