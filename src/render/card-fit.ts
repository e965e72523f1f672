import { backLayout, type FieldOverflow, frontLayout } from "./card-layout.ts";
import { type CardSender, composeCard } from "./compose.ts";
import type { ResolvedTemplate } from "./template.ts";

/**
 * The one rule that decides whether a template fits its card: the card is laid out exactly as it
 * prints (card-layout.ts, the same code the PDF and the proof are drawn with), for the
 * organization's own profile (name, phone, logo, return address, offer), with every merge field
 * filled with the longest value a record plausibly has. A template fits when nothing of its
 * headline, message or offer is cut. The values, and why, are in docs/card-design.md.
 */
export const LONGEST_MERGE_VALUES = {
  /** A long full name (25 characters). */
  client_name: "Christina Vandermeer-Lowe",
  /** A long street line with its house number (29). */
  street: "12345 Old Cottonwood Ridge Rd",
  /** A long city name (22): "Rancho Santa Margarita". */
  city: "Rancho Santa Margarita",
  /** A neighbour card's job street, which prints without its house number (23). */
  job_street: "Old Cottonwood Ridge Rd",
  job_city: "Rancho Santa Margarita",
  /** A custom CRM field's value, when its fallback is shorter (24). */
  custom: "standing seam metal roof",
} as const;

export type TemplateField = FieldOverflow["field"];

export interface FieldFit {
  field: TemplateField;
  /** The field's characters as written (merge fields as typed, white space collapsed). */
  characters: number;
  /** How many of them fit, with merge fields at their longest. */
  fitting: number;
}

const CUSTOM_FIELD = /\{\{\s*(cf_[a-z0-9_]*)\s*(?:\|([^}]*))?\}\}/g;

const length = (text: string) => Array.from(text.replace(/\s+/g, " ").trim()).length;

/** Longest plausible values of the template's custom fields: the sample or the fallback, the longer. */
function customValues(template: ResolvedTemplate): Record<string, string> {
  const values: Record<string, string> = {};
  const texts = [template.headline, template.message, template.offer ?? ""];
  for (const text of texts) {
    for (const [, name, fallback] of text.matchAll(CUSTOM_FIELD)) {
      const sample = LONGEST_MERGE_VALUES.custom;
      const longer = (fallback ?? "").trim().length > sample.length ? fallback!.trim() : sample;
      values[name!] = longer;
    }
  }
  return values;
}

/** The template's fields that do not fit its card, with how much of each does. Empty: it fits. */
export function templateOverflow(template: ResolvedTemplate, sender: CardSender): FieldFit[] {
  const card = composeCard({
    recipient: {
      recipientName: LONGEST_MERGE_VALUES.client_name,
      address: `${LONGEST_MERGE_VALUES.street}, ${LONGEST_MERGE_VALUES.city}, CA 92688`,
      street: LONGEST_MERGE_VALUES.street,
      city: LONGEST_MERGE_VALUES.city,
      state: "CA",
      zip: "92688",
      properties: {
        ...customValues(template),
        job_street: LONGEST_MERGE_VALUES.job_street,
        job_city: LONGEST_MERGE_VALUES.job_city,
      },
    },
    orgName: sender.name,
    sender,
    template,
    // The QR code's box is fixed: the link's length moves nothing.
    landingUrl: "https://example.invalid/l/fit",
    homeImage: { bytes: new Uint8Array() },
    printAddressBlock: true,
  });
  const overflow = [...frontLayout(card, new Uint8Array()).overflow, ...backLayout(card).overflow];
  const written: Record<TemplateField, string> = {
    headline: template.headline,
    message: template.message,
    offer: template.offer ?? sender.offer ?? "",
  };
  return overflow.map(({ field, characters, printed }) => {
    const typed = length(written[field]);
    return { field, characters: typed, fitting: Math.max(0, typed - (characters - printed)) };
  });
}

/** The refusal's words for one field, e.g. "does not fit the 4x6 card: 212 of its 260 characters fit …". */
export function overflowProblem(fit: FieldFit, size: ResolvedTemplate["size"]): string {
  return (
    `does not fit the ${size} card: ${fit.fitting} of its ${fit.characters} characters fit ` +
    "(merge fields counted at their longest)"
  );
}
