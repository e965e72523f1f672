import { Paper, Stack, Text } from "@mantine/core";
import type { Ref } from "react";

/** One thing an approve or cancel did, as the status line says it. */
export interface Said {
  tone: "approved" | "cancelled" | "changed";
  /** Said first, in bold: only where the message alone would not say what happened. */
  title?: string;
  message: string;
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/**
 * What approving did. A card whose monthly cap is reached does not go to print when approved: it
 * waits for the next month (`capOpensOn`, "Jan 1") or an owner raising the cap, and the line says so
 * ("on the way to print" was said of a card Mail then showed as "Monthly cap reached").
 */
export const approvedWords = (count: number, capped = 0, capOpensOn = "the 1st"): Said => {
  const cards = `${count} card${plural(count, "", "s")} approved`;
  const waits = `because a monthly cap is reached, and go${capped === 1 ? "es" : ""} out on ${capOpensOn} or as soon as an owner raises the cap`;
  if (capped === 0) return { tone: "approved", message: `${cards}: on the way to print.` };
  if (capped === count)
    return { tone: "approved", message: `${cards}: ${plural(count, "it waits", "they wait")} ${waits}.` };
  return {
    tone: "approved",
    message: `${cards}: ${count - capped} on the way to print; ${capped} ${plural(capped, "waits", "wait")} ${waits}.`,
  };
};

export const cancelledWords = (count: number): Said => ({
  tone: "cancelled",
  message: `${count} card${plural(count, "", "s")} cancelled: ${plural(count, "it", "they")} will not print.`,
});

/** Chosen cards edited since they were shown: they stay, with their new proofs. */
export const changedWords = (count: number): Said => ({
  tone: "changed",
  title: count === 1 ? "A card changed" : `${count} cards changed`,
  message: `${plural(count, "Its text or design was", "Their text or design was")} edited after the proofs were drawn, so ${plural(
    count,
    "it was",
    "they were",
  )} not approved. Look at the new proof${plural(count, "", "s")} and approve again.`,
});

/** A bar of the tone's colour on the line's edge (the words stay in the page's own colour). */
const BAR: Record<Said["tone"], string> = {
  approved: "var(--mantine-color-teal-7)",
  cancelled: "var(--mantine-color-gray-6)",
  changed: "var(--mantine-color-yellow-6)",
};

/**
 * What the last approve or cancel did, in a line of the page, where a toast stood over the next
 * card's proof. The live region is always there (empty until the first action), so a screen reader
 * reads each new message; it stays until the next action replaces it.
 */
export function ActionStatus({ said, ref }: { said: Said[]; ref?: Ref<HTMLDivElement> }) {
  return (
    <div role="status" ref={ref}>
      {said.length > 0 && (
        <Stack gap={6} mb="md">
          {said.map((item) => (
            <Paper
              key={item.tone}
              withBorder
              radius="sm"
              px="sm"
              py={6}
              style={{ borderLeft: `4px solid ${BAR[item.tone]}` }}
            >
              <Text size="sm">
                {item.title && (
                  <>
                    <Text span fw={700} size="sm">
                      {item.title}:
                    </Text>{" "}
                  </>
                )}
                <Text span size="sm">
                  {item.message}
                </Text>
              </Text>
            </Paper>
          ))}
        </Stack>
      )}
    </div>
  );
}
