import type { Automation, CardTemplate } from "../../api/automations.ts";
import { count, money } from "../../ui/format.ts";
import { wholeNumberProblem } from "../../ui/number-rules.ts";

/**
 * An automation's follow-up cards as the builder edits them (docs/sequences.md): up to three,
 * each mailed its delay after the first card, each with its own text on the first card's size,
 * and the answers of the home that stop them. The server holds the rules; these bounds guide typing.
 */
export type StopCondition = Automation["stop_when"][number];

export type FollowUpRow = {
  key: string;
  delay_days: number | string;
  headline: string;
  message: string;
  offer: string;
};

export type FollowUpFormValues = {
  follow_ups: FollowUpRow[];
  stop_when: StopCondition[];
};

export const MAX_FOLLOW_UPS = 3;
export const DELAY_DAYS = { min: 1, max: 365 } as const;

/** Every stop condition, in the server's order, with what a contractor reads for it. */
export const STOP_CHOICES: readonly { value: StopCondition; label: string }[] = [
  { value: "lead", label: "The home sends a lead from any card of the sequence" },
  { value: "won_deal", label: "A deal is won at the home" },
  { value: "opt_out", label: "The home asks for no more mail" },
  { value: "customer", label: "The home becomes a customer" },
  { value: "returned", label: "The printer returns a card as undeliverable" },
];

let rowCounter = 0;

/** Each follow-up's starting text: a second card that repeated the first word for word read as a mistake. */
const FOLLOW_UP_TEXTS = [
  {
    headline: "Still thinking about {{street}}?",
    message:
      "Hi {{client_name}}, we are still nearby. Scan the code to see your home's page and get in touch.",
  },
  {
    headline: "One more note about {{street}}",
    message:
      "Hi {{client_name}}, our crew is still in the neighborhood. Scan the code to pick a time that suits you.",
  },
  {
    headline: "Our last card about {{street}}",
    message:
      "Hi {{client_name}}, this is our last card. Scan the code whenever you are ready and we will call you.",
  },
] as const;

/** A new follow-up (the `index`th): two weeks after the previous one, with a card that says it follows up. */
export function newFollowUp(previousDelay = 0, index = 0): FollowUpRow {
  const text = FOLLOW_UP_TEXTS[Math.min(index, FOLLOW_UP_TEXTS.length - 1)]!;
  return {
    key: `follow-up-${++rowCounter}`,
    delay_days: Math.min(DELAY_DAYS.max, previousDelay + 14),
    ...text,
    offer: "",
  };
}

export const blankFollowUps = (): FollowUpFormValues => ({
  follow_ups: [],
  stop_when: STOP_CHOICES.map((choice) => choice.value),
});

export function followUpValuesOf(automation: Automation): FollowUpFormValues {
  return {
    follow_ups: automation.steps.map((step) => ({
      key: `follow-up-${++rowCounter}`,
      delay_days: step.delay_days,
      headline: step.template.headline,
      message: step.template.message,
      offer: step.template.offer ?? "",
    })),
    stop_when: automation.stop_when,
  };
}

/** A follow-up's card: its own text on the first card's size. */
export const followUpTemplate = (row: FollowUpRow, cardSize: CardTemplate["card_size"]): CardTemplate => ({
  headline: row.headline,
  message: row.message,
  offer: row.offer.trim() || null,
  card_size: cardSize,
});

export function stepsOf(values: FollowUpFormValues, cardSize: CardTemplate["card_size"]) {
  return values.follow_ups.map((row) => ({
    delay_days: Number(row.delay_days),
    template: followUpTemplate(row, cardSize),
  }));
}

/**
 * The server names a follow-up's fields by their place in the saved shape (`steps[0].template.message`,
 * `steps[1].delay_days`); the form's are `follow_ups.0.message`. The dotted form (`steps.0.…`) is read too.
 */
export const followUpFieldOf = (serverField: string) =>
  serverField.replace(
    /^steps(?:\[(\d+)\]|\.(\d+))\.(?:template\.)?/,
    (_whole, bracketed, dotted) => `follow_ups.${bracketed ?? dotted}.`,
  );

export function validateFollowUps(values: FollowUpFormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  values.follow_ups.forEach((row, index) => {
    const delayProblem = wholeNumberProblem(row.delay_days, { ...DELAY_DAYS, unit: "days" });
    if (delayProblem) errors[`follow_ups.${index}.delay_days`] = delayProblem;
    if (!row.headline.trim()) errors[`follow_ups.${index}.headline`] = "Write a headline";
    if (!row.message.trim()) errors[`follow_ups.${index}.message`] = "Write a message";
  });
  return errors;
}

/**
 * How many cards a home gets, for the automation list: "Each home gets 1 card", "Each home gets 3 cards:
 * the first and 2 follow-ups". Said per home: a bare "1 card" beside the month's card counts read as a count.
 */
export const followUpCount = (steps: number) =>
  `Each home gets ${
    steps === 0 ? "1 card" : `${steps + 1} cards: the first and ${steps} follow-up${steps === 1 ? "" : "s"}`
  }`;

/** The holdout, for the automation list: the share of homes that get no card, so lift can be measured. */
export const holdoutWords = (percent: number) =>
  percent > 0 ? `${percent} % of homes get no card, to measure what the cards bring` : null;

/** What became of an automation's follow-up cards (in all, or one step's). */
export type FollowUpTally = Omit<Automation["follow_up_cards"], "by_step">;

const tallyTotal = (tally: FollowUpTally) =>
  tally.sent_to_print +
  tally.scheduled +
  tally.waiting +
  tally.stopped_because_home_answered +
  tally.not_sent;

/**
 * What stopped follow-ups, after their count ("2 after a lead from the home"), in the server's order:
 * each stop says what happened, so a home added as a customer by hand never reads as one that answered.
 */
const STOPPED_BECAUSE_WORDS: Record<StopCondition, string> = {
  lead: "after a lead from the home",
  won_deal: "after a deal won at the home",
  opt_out: "because the home asked for no more mail",
  customer: "because the home became a customer",
  returned: "because the printer returned a card as undeliverable",
};

/**
 * The follow-ups the automation's stop rules stopped, by what stopped them: "1 stopped after a lead
 * from the home ($0.85 not spent)", or with several reasons "3 stopped before print (2 after a lead
 * from the home, 1 because the home became a customer; $2.55 not spent)". The money is exact, as every
 * screen says money; a card returned by the printer is counted here, not among the other reasons.
 */
function stoppedWords(stoppedBecause: FollowUpTally["stopped_because"], costPerCardCents: number | null) {
  const reasons = STOP_CHOICES.map(({ value }) => [value, stoppedBecause[value]] as const).filter(
    ([, cards]) => cards > 0,
  );
  const stopped = reasons.reduce((sum, [, cards]) => sum + cards, 0);
  if (stopped === 0) return null;
  const saved = costPerCardCents ? `${money((stopped * costPerCardCents) / 100)} not spent` : null;
  if (reasons.length === 1) {
    const [reason] = reasons[0]!;
    return `${stopped} stopped ${STOPPED_BECAUSE_WORDS[reason]}${saved ? ` (${saved})` : ""}`;
  }
  const each = reasons.map(([reason, cards]) => `${cards} ${STOPPED_BECAUSE_WORDS[reason]}`).join(", ");
  return `${stopped} stopped before print (${each}${saved ? `; ${saved}` : ""})`;
}

/**
 * What the follow-ups did so far, in words: "12 sent to print, 5 due later, 3 stopped before print
 * (2 after a lead from the home, 1 because the home became a customer; $2.55 not spent)". The money
 * only with the card cost from Settings. Null when none was ever written.
 */
export function followUpResults(tally: FollowUpTally, costPerCardCents: number | null): string | null {
  const { sent_to_print, scheduled, waiting, not_sent, stopped_because } = tally;
  if (tallyTotal(tally) === 0) return null;
  // The printer's return stops a sequence too: said with the other stops, not as "other reasons".
  const otherwise = not_sent - stopped_because.returned;
  const parts = [
    `${sent_to_print} sent to print`,
    scheduled > 0 && `${scheduled} due later`,
    waiting > 0 && `${waiting} waiting before print`,
    stoppedWords(stopped_because, costPerCardCents),
    otherwise > 0 && `${otherwise} not sent for other reasons`,
  ];
  return parts.filter(Boolean).join(", ");
}

/** The summary line for the automation list: null for an automation whose follow-ups never began. */
export const followUpSummary = (tally: FollowUpTally, costPerCardCents: number | null) => {
  const results = followUpResults(tally, costPerCardCents);
  return results && `Follow-ups so far, ${count(tallyTotal(tally), "card")}: ${results}`;
};
