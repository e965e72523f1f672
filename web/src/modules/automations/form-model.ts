import type {
  Automation,
  AutomationDraft,
  AutomationFilter,
  CardFitInput,
  CardTemplate,
  DryRunInput,
  NewAutomation,
  ProofInput,
} from "../../api/automations.ts";
import {
  type AudienceFormValues,
  audienceFieldOf,
  audienceOf,
  audienceValuesOf,
  blankAudience,
  validateAudience,
  wholeBetween,
} from "./audience.ts";
import {
  blankFollowUps,
  type FollowUpFormValues,
  followUpFieldOf,
  followUpValuesOf,
  stepsOf,
  validateFollowUps,
} from "./follow-ups.ts";

/** What an empty Offer field prints: the business's default offer (Settings), or no offer line. */
export const EMPTY_OFFER_HINT = "Leave empty to print your default offer from Settings, if you set one.";

/** The filter ops the service knows, by the value each takes (the service's own list). */
export const FILTER_OPS = [
  { value: "eq", label: "is", takes: "string" },
  { value: "neq", label: "is not", takes: "string" },
  { value: "contains", label: "contains", takes: "string" },
  { value: "in", label: "is one of", takes: "strings" },
  { value: "not_in", label: "is none of", takes: "strings" },
  { value: "exists", label: "is present", takes: "none" },
  { value: "not_exists", label: "is missing", takes: "none" },
  { value: "gt", label: "is more than", takes: "number" },
  { value: "gte", label: "is at least", takes: "number" },
  { value: "lt", label: "is less than", takes: "number" },
  { value: "lte", label: "is at most", takes: "number" },
] as const;
export type FilterOp = (typeof FILTER_OPS)[number]["value"];
export const takesOf = (op: FilterOp) => FILTER_OPS.find((entry) => entry.value === op)?.takes ?? "string";

export const CARD_SIZES = [
  { value: "4x6", label: "4 × 6 in postcard" },
  { value: "6x9", label: "6 × 9 in postcard" },
  { value: "6x11", label: "6 × 11 in postcard" },
] as const;

export const OBJECT_TYPES = [
  { value: "job", label: "Job" },
  { value: "deal", label: "Deal" },
  { value: "contact", label: "Contact" },
] as const;

export const KINDS = [
  { value: "standard", label: "Standard: mail when the event arrives" },
  { value: "deal_won", label: "Won deal: mail when a deal is won" },
] as const;

export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

/** A filter as the form edits it: the value is text until it is saved. */
export type FilterRow = { key: string; property: string; op: FilterOp; value: string };

export type AutomationFormValues = {
  name: string;
  enabled: boolean;
  kind: "standard" | "deal_won";
  event_type: string;
  object_type: "" | "job" | "deal" | "contact";
  filters: FilterRow[];
  headline: string;
  message: string;
  offer: string;
  card_size: CardTemplate["card_size"];
  sample_id: string;
  /** The share of homes kept out of the mail (0 to 50); text while the field is empty. */
  holdout_percent: number | string;
  /** A new automation's approval setting, sent with it; a saved one's is set in its Safety section. */
  approval_required: boolean;
} & AudienceFormValues &
  FollowUpFormValues;

/** An automation keeps at most this share of homes out of its mail (the service's limit). */
export const MAX_HOLDOUT_PERCENT = 50;

let rowCounter = 0;
export const newFilterRow = (property = ""): FilterRow => ({
  key: `filter-${++rowCounter}`,
  property,
  op: "eq",
  value: "",
});

/**
 * A new automation's card text: the server's own default (render/template.ts), which fits a 4x6
 * card beside a logo, a two-line return address and a two-line offer from Settings, and suits the
 * record's own home whether it is a customer or a prospect (test/web/default-card-text.test.ts).
 */
export const DEFAULT_CARD_TEXT = {
  headline: "A fresh look for {{street}}",
  message:
    "Hi {{client_name}}, we have been helping homes around {{city}}. Scan the code to see your home's page.",
} as const;

export function blankAutomation(eventType = ""): AutomationFormValues {
  return {
    name: "",
    enabled: true,
    kind: "standard",
    event_type: eventType,
    object_type: "",
    filters: [],
    ...DEFAULT_CARD_TEXT,
    offer: "",
    card_size: "4x6",
    sample_id: "",
    holdout_percent: 0,
    approval_required: false,
    ...blankAudience(),
    ...blankFollowUps(),
  };
}

function filterText(filter: AutomationFilter): string {
  if (!("value" in filter)) return "";
  return Array.isArray(filter.value) ? filter.value.join(", ") : String(filter.value);
}

export function formValuesOf(automation: Automation): AutomationFormValues {
  return {
    name: automation.name,
    enabled: automation.enabled,
    kind: automation.kind,
    event_type: automation.trigger?.event_type ?? "",
    object_type: automation.trigger?.object_type ?? "",
    filters: automation.filters.map((filter) => ({
      ...newFilterRow(filter.property),
      op: filter.op,
      value: filterText(filter),
    })),
    headline: automation.template.headline,
    message: automation.template.message,
    offer: automation.template.offer ?? "",
    card_size: automation.template.card_size,
    sample_id: "",
    holdout_percent: automation.holdout_percent,
    approval_required: false,
    ...audienceValuesOf(automation.audience),
    ...followUpValuesOf(automation),
  };
}

function filterOf(row: FilterRow): AutomationFilter {
  const property = row.property.trim();
  switch (row.op) {
    case "exists":
    case "not_exists":
      return { property, op: row.op };
    case "in":
    case "not_in":
      return {
        property,
        op: row.op,
        value: row.value
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean),
      };
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return { property, op: row.op, value: Number(row.value) };
    default:
      return { property, op: row.op, value: row.value };
  }
}

export function templateOf(values: AutomationFormValues): CardTemplate {
  return {
    headline: values.headline,
    message: values.message,
    offer: values.offer.trim() || null,
    card_size: values.card_size,
  };
}

/** Who every proof of the automation is drawn for: the sample record, and a neighbour's card as a neighbour gets it (the job's street, no name). */
export function proofRecipientOf(values: AutomationFormValues): Omit<ProofInput, "template"> {
  return {
    ...(values.sample_id ? { sample_id: values.sample_id } : {}),
    ...(values.audience === "neighbours" ? { audience: { type: "neighbours" as const } } : {}),
  };
}

/** What a card's fit check takes: its text, and the audience its proof is drawn for (a neighbour's card merges no name). */
export const cardFitInputOf = (
  template: ProofInput["template"],
  recipient: Omit<ProofInput, "template">,
): CardFitInput => ({ template, ...(recipient.audience ? { audience: recipient.audience } : {}) });

/** What the card's proof is drawn with: the builder's, and the one its route asks for before the form mounts. */
export const proofInputOf = (values: AutomationFormValues): ProofInput => ({
  template: templateOf(values),
  ...proofRecipientOf(values),
});

/**
 * What a dry run takes: the parts of the draft that decide the outcome (the trigger is the sample's).
 * A saved automation sends its id: its Safety section is saved apart, and its saved hold window,
 * approval and caps are what a real event meets now. A new one sends the form's approval choice,
 * which its create sends too. Both send the holdout share as typed (when it is a valid one).
 */
export function dryRunInputOf(values: AutomationFormValues, automationId?: string): DryRunInput {
  const { name, kind, filters, template, audience, holdout_percent } = draftOf(values);
  // The holdout share is saved with the draft itself: the test splits homes by the typed one.
  const holdout = wholeBetween(values.holdout_percent, 0, MAX_HOLDOUT_PERCENT) ? { holdout_percent } : {};
  const automation = { name, kind, filters, template, audience, ...holdout };
  return automationId
    ? { automation, automation_id: automationId, sample_id: values.sample_id }
    : {
        automation: { ...automation, approval_required: values.approval_required },
        sample_id: values.sample_id,
      };
}

export function draftOf(values: AutomationFormValues): AutomationDraft {
  return {
    name: values.name.trim(),
    enabled: values.enabled,
    kind: values.kind,
    trigger: {
      type: "custom_api",
      event_type: values.event_type.trim(),
      ...(values.object_type ? { object_type: values.object_type } : {}),
    },
    filters: values.filters.map(filterOf),
    template: templateOf(values),
    audience: audienceOf(values),
    steps: stepsOf(values, values.card_size),
    stop_when: values.stop_when,
    holdout_percent: Number(values.holdout_percent),
  };
}

export const newAutomationOf = (values: AutomationFormValues): NewAutomation => ({
  ...draftOf(values),
  approval_required: values.approval_required,
});

/**
 * Whether leaving the builder would lose something the contractor set: what a save would send
 * differs from `saved`. The sample record picked is no part of the automation.
 */
export const differsFromSaved = (values: AutomationFormValues, saved: AutomationFormValues): boolean =>
  JSON.stringify(newAutomationOf(values)) !== JSON.stringify(newAutomationOf(saved));

/** The server names fields by their place in the saved shape; the form by its own names. */
export function formFieldOf(serverField: string): string {
  return audienceFieldOf(followUpFieldOf(serverField.replace(/^trigger\./, "").replace(/^template\./, "")));
}

export function describeTrigger(trigger: Automation["trigger"]): string {
  if (!trigger) return "No trigger";
  // In the builder's words ("An event your CRM sends"), as a sentence the list's row starts with.
  return `When your CRM sends ${trigger.event_type}${trigger.object_type ? ` (${trigger.object_type})` : ""}`;
}

export function validateAutomation(values: AutomationFormValues) {
  const errors: Record<string, string> = { ...validateAudience(values), ...validateFollowUps(values) };
  if (!values.name.trim()) errors.name = "Give the automation a name";
  if (!values.event_type.trim())
    errors.event_type = "Pick the event your CRM sends, or type one such as job.completed";
  else if (!EVENT_TYPE_PATTERN.test(values.event_type.trim()))
    errors.event_type = "Use the form object.action in lower case, e.g. job.completed";
  if (!values.headline.trim()) errors.headline = "Write a headline";
  if (!values.message.trim()) errors.message = "Write a message";
  if (!wholeBetween(values.holdout_percent, 0, MAX_HOLDOUT_PERCENT))
    errors.holdout_percent = `Enter a whole percent from 0 to ${MAX_HOLDOUT_PERCENT}.`;
  values.filters.forEach((row, index) => {
    if (!row.property.trim()) errors[`filters.${index}.property`] = "Pick a property";
    const takes = takesOf(row.op);
    if (takes === "number" && (row.value.trim() === "" || !Number.isFinite(Number(row.value))))
      errors[`filters.${index}.value`] = "Enter a number";
    if (takes === "strings" && !row.value.trim())
      errors[`filters.${index}.value`] = "Enter values separated by commas";
    // "status is (nothing)" matches no event that has a status: every event would be filtered out.
    // Said once the property is picked (before, "Pick a property" is the one thing to do).
    if (takes === "string" && row.property.trim() && !row.value.trim())
      errors[`filters.${index}.value`] = 'Enter the value to compare with (or choose "is missing")';
  });
  return errors;
}

/** An automation's link in the Automations list, found by the builder that just saved it to give it the focus. */
export const automationLinkSelector = (automationId: string) =>
  `[data-automation-link="${CSS.escape(automationId)}"]`;
