import { Text } from "@mantine/core";
import type { ReactNode } from "react";
import type { DryRunAnswer } from "../../api/automations.ts";
import { formatDay } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";

type SampleMailSafety = NonNullable<DryRunAnswer["mail_safety"]>;

const oneCardEvery = (days: number) => `one card every ${days === 1 ? "day" : `${days} days`}`;
const sentence = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);

/** "90 minutes", "2 hours", "1 h 30 min" */
function holdLength(minutes: number): string {
  if (minutes < 60) return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
  if (minutes % 60 === 0) return `${minutes / 60} ${minutes === 60 ? "hour" : "hours"}`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const TITLES: Record<SampleMailSafety["outcome"], { color: string; title: (s: SampleMailSafety) => string }> =
  {
    prints: { color: "green", title: () => "A card would be mailed" },
    skipped: { color: "yellow", title: () => "No card: this home got one recently" },
    suppressed: {
      color: "yellow",
      title: (s) =>
        s.rule === "registered_customer"
          ? "No card: this home is your customer"
          : "No card: this home opted out",
    },
    undeliverable: { color: "red", title: () => "No card: the address cannot be delivered" },
    held_out: { color: "gray", title: () => "No card: this home is in the holdout group" },
    held: { color: "blue", title: () => "A card would be held before print" },
    awaiting_approval: { color: "blue", title: () => "A card would wait for your approval" },
    capped: { color: "orange", title: () => "A card would wait: a monthly cap is reached" },
  };

/** The alert's color and title for a test whose card mail safety stops or holds. */
export const sampleSafetyHeading = (safety: SampleMailSafety) => ({
  color: TITLES[safety.outcome].color,
  title: TITLES[safety.outcome].title(safety),
});

/**
 * What a real event of the sample would meet in mail safety now, in sentences: the rule that stops
 * it, or each wait in the order the card would meet them (hold window, approval, monthly cap), and
 * what the address check before print says.
 * The server decides (the pipeline's own rules); this only words its answer.
 */
function sampleSafetyLines(safety: SampleMailSafety): ReactNode[] {
  const lines = stoppedLines(safety) ?? waitLines(safety);
  const address = addressLine(safety);
  return address ? [...lines, address] : lines;
}

/** The rule that stops a real card, in sentences; undefined when none does. */
function stoppedLines(safety: SampleMailSafety): ReactNode[] | undefined {
  const every = oneCardEvery(safety.frequency_cap_days);
  if (safety.outcome === "skipped") {
    const earlier = safety.earlier_card;
    const link = earlier && (
      <AnchorLink to="/mail/$pieceId" params={{ pieceId: earlier.piece_id }} inherit>
        See that card
      </AnchorLink>
    );
    return [
      <>
        {earlier?.mailed_at
          ? `This home got a card on ${formatDay(earlier.mailed_at)}; a real event would skip it (${every}).`
          : `A card to this home is already waiting or printing; a real event would skip it (${every}).`}{" "}
        {link}
      </>,
    ];
  }
  if (safety.outcome === "suppressed") {
    return [
      safety.rule === "registered_customer"
        ? "This address is on your Customers list, and this automation does not mail customers: a real event would not mail it."
        : "This home asked for no more mail from its landing page: a real event would not mail it.",
    ];
  }
  if (safety.outcome === "undeliverable") {
    return [
      `The address check before print refuses this address (${safety.address_problem}): a real card would be marked undeliverable and cost nothing. Correct the address where the record comes from.`,
    ];
  }
  if (safety.outcome === "held_out") {
    return [
      `This automation keeps ${safety.holdout_percent} % of homes out of its mail, and this home is one of them: a real event would record its card as held out, never mailed, and Revenue would count its deals in the comparison that shows what the mail adds.`,
    ];
  }
  return undefined;
}

/**
 * What the address check before print says of this address, when the card's own outcome does not
 * (the server runs the offline check; a card stopped earlier is told of a bad address too).
 */
function addressLine(safety: SampleMailSafety): string | undefined {
  if (safety.address_check === "failed" && safety.outcome !== "undeliverable")
    return `The address would also fail the check before print: ${safety.address_problem}.`;
  if (safety.address_check === "at_print")
    return "Lob checks the address when a real card is made (each check is paid, so a test does not ask).";
  return undefined;
}

/** Each wait a real card would meet, in the order it meets them (hold window, approval, monthly cap). */
function waitLines(safety: SampleMailSafety): ReactNode[] {
  const lines: ReactNode[] = [];
  const holdout = holdoutLine(safety);
  if (holdout) lines.push(holdout);
  if (safety.hold_minutes > 0) {
    lines.push(
      `A real card would be held ${holdLength(safety.hold_minutes)} before print, so you can cancel it.`,
    );
  }
  if (safety.approval_required) {
    lines.push(
      <>
        {safety.hold_minutes > 0 ? "Then it" : "A real card"} would wait for your approval in{" "}
        <AnchorLink to="/approvals" inherit>
          Approvals
        </AnchorLink>{" "}
        before it prints.
      </>,
    );
  }
  if (safety.cap_reached) {
    lines.push(`${sentence(safety.cap_reached)}: a real card would wait until next month or a higher cap.`);
  }
  return lines;
}

/** Where this home falls in the automation's holdout split, when it keeps any homes out. */
function holdoutLine(safety: SampleMailSafety): string | undefined {
  if (safety.holdout_percent <= 0) return undefined;
  if (safety.holdout_group === "mailed") {
    return `This home is in the mailed group: the automation keeps the other ${safety.holdout_percent} % of homes out of its mail.`;
  }
  // A new automation (its split comes with its id) or a neighbor audience (each neighbor is drawn).
  return `${safety.holdout_percent} % of the homes this automation would mail get no card: its holdout group, drawn home by home by the saved automation.`;
}

/** The lines as text under a test's result. */
export function SampleSafetyLines({ safety }: { safety: SampleMailSafety }) {
  return sampleSafetyLines(safety).map((line, index) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of sentences, in order
    <Text key={index} size="sm" mt={4}>
      {line}
    </Text>
  ));
}
