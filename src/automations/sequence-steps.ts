/**
 * An automation's sequence (issue 42): up to three follow-up cards after the first, each mailed
 * `delay_days` after the first card's mailing with a card of its own, and the answers of the home
 * that stop them (`stop_when`). The rules of the shape live here; the follow-up pieces themselves
 * are the pipeline's (pieces/follow-ups.ts).
 */
import { Type } from "@fastify/type-provider-typebox";
import { STOP_CONDITIONS, type StopCondition } from "../domain/stop-conditions.ts";
import { invalidFields } from "../errors.ts";
import { overflowProblem, templateOverflow } from "../render/card-fit.ts";
import type { CardSender } from "../render/compose.ts";
import { templateProblems } from "../render/merge.ts";
import { CardTemplate, type ResolvedTemplate, resolveTemplate } from "../render/template.ts";

export const MAX_FOLLOW_UPS = 3;

export const StopWhen = Type.Array(
  // Typed as the conditions themselves, which a mapped union loses.
  Type.Unsafe<StopCondition>(Type.Union(STOP_CONDITIONS.map((condition) => Type.Literal(condition)))),
  {
    uniqueItems: true,
    maxItems: STOP_CONDITIONS.length,
    description:
      "What stops the follow-ups to a home: `lead` (a lead from any card of the sequence), `won_deal` (a won deal at the home), `opt_out` (the home asked for no more mail), `customer` (the home registered as a customer), `returned` (the printer returned a card of the sequence). Default: all.",
  },
);

export const DelayDays = Type.Integer({
  minimum: 1,
  maximum: 365,
  description: "Days after the first card's mailing that this follow-up is mailed.",
});

/** A follow-up as the operator API sends it: its delay and its whole card (a part left out takes its default). */
export const SequenceStepInput = Type.Object(
  { delay_days: DelayDays, template: CardTemplate },
  { additionalProperties: false },
);
export const SequenceStepsInput = Type.Array(SequenceStepInput, {
  maxItems: MAX_FOLLOW_UPS,
  description: "Up to three follow-up cards; an empty list mails the first card only.",
});

/** A follow-up as stored (`automations.steps`): its delay and its template column. */
export interface SequenceStep {
  delay_days: number;
  template: Record<string, unknown>;
}

/** The stored steps; anything unreadable in the column counts as no step. */
export function storedSteps(value: unknown): SequenceStep[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((step): step is SequenceStep => typeof step?.delay_days === "number")
    .map((step) => ({
      delay_days: step.delay_days,
      template: step.template && typeof step.template === "object" ? step.template : {},
    }));
}

export function storedStopWhen(value: unknown): StopCondition[] {
  if (!Array.isArray(value)) return [...STOP_CONDITIONS];
  return STOP_CONDITIONS.filter((condition) => value.includes(condition));
}

/** A step's card as it prints. */
export const stepTemplate = (step: SequenceStep): ResolvedTemplate => resolveTemplate(step.template);

/**
 * Each follow-up's card under the first card's rules: merge fields that exist, and text the card
 * does not cut. Answers the problems by field (`steps[0].template.message`, as schema validation names
 * a step's fields); empty when all fit.
 */
export function stepProblems(steps: readonly SequenceStep[], sender: CardSender): Record<string, string> {
  const problems: Record<string, string> = {};
  steps.forEach((step, index) => {
    // A follow-up is known by its day (pieces/card-template-sql.ts); two on one day would also reach the home together.
    if (steps.findIndex((other) => other.delay_days === step.delay_days) < index) {
      problems[`steps[${index}].delay_days`] =
        `another follow-up is already mailed ${step.delay_days} days after the first card; give each its own day`;
    }
    const field = (name: string) => `steps[${index}].template.${name}`;
    for (const name of ["headline", "message", "offer"] as const) {
      const text = step.template[name];
      const found = typeof text === "string" ? templateProblems(text) : [];
      if (found.length > 0) problems[field(name)] = found.join("; ");
    }
    const template = stepTemplate(step);
    for (const fit of templateOverflow(template, sender)) {
      problems[field(fit.field)] ??= overflowProblem(fit, template.size);
    }
  });
  return problems;
}

/** Refuses (422, each field named) follow-ups whose card would not print as written. */
export function assertStepsPrint(steps: readonly SequenceStep[], sender: CardSender): void {
  const error = invalidFields(stepProblems(steps, sender));
  if (error) throw error;
}

/** Follow-ups in the order they are mailed (by delay), so step 1 is always the first to go. */
export const inMailingOrder = (steps: readonly SequenceStep[]) =>
  [...steps].sort((a, b) => a.delay_days - b.delay_days);
