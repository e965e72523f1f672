import { type FieldOverflow, overflowAsWritten } from "./card-layout.ts";
import { type CardRecipient, type CardSender, composeCard } from "./compose.ts";
import { customMergeSamples, LONGEST_MERGE_VALUES } from "./merge-bounds.ts";
import type { ResolvedTemplate } from "./template.ts";

export type TemplateField = FieldOverflow["field"];

export interface FieldFit {
  field: TemplateField;
  /** The field's characters as written (merge fields as typed, white space collapsed). */
  characters: number;
  /** How many of them fit, with merge fields at their longest. */
  fitting: number;
}

const length = (text: string) => Array.from(text.replace(/\s+/g, " ").trim()).length;

/**
 * The one rule that decides whether a template fits its card: the card is laid out exactly as it
 * prints (card-layout.ts, the same code the PDF and the proof are drawn with), for the
 * organization's own profile (name, phone, logo, return address, offer), once with every merge
 * field filled with the longest value a record plausibly has and once with every field at its
 * fallback (a record with no name, address or custom fields). A template fits when nothing of its
 * headline, message or offer is cut either way; a record's value that would cut it then prints
 * shortened by whole words, down to the fallback (merge-bounds.ts). The values, and why, are in
 * docs/card-design.md.
 *
 * Returns the fields that do not fit, with how much of each does (the less of the two). Empty: it fits.
 */
export function templateOverflow(template: ResolvedTemplate, sender: CardSender): FieldFit[] {
  const longest: CardRecipient = {
    recipientName: LONGEST_MERGE_VALUES.client_name,
    address: `${LONGEST_MERGE_VALUES.street}, ${LONGEST_MERGE_VALUES.city}, CA 92688`,
    street: LONGEST_MERGE_VALUES.street,
    city: LONGEST_MERGE_VALUES.city,
    state: "CA",
    zip: "92688",
    properties: {
      ...customMergeSamples({ ...template, offer: template.offer ?? sender.offer }),
      job_street: LONGEST_MERGE_VALUES.job_street,
      job_city: LONGEST_MERGE_VALUES.job_city,
    },
  };
  const empty: CardRecipient = {
    recipientName: null,
    address: "",
    street: null,
    city: null,
    state: null,
    zip: null,
    properties: {},
  };
  const written: Record<TemplateField, string> = {
    headline: template.headline,
    message: template.message,
    offer: template.offer ?? sender.offer ?? "",
  };
  const fits = new Map<TemplateField, FieldFit>();
  for (const recipient of [longest, empty]) {
    for (const { field, characters, printed } of overflowAsWritten(cardFor(recipient, template, sender))) {
      const typed = length(written[field]);
      const fitting = Math.max(0, typed - (characters - printed));
      if (fitting < (fits.get(field)?.fitting ?? typed + 1))
        fits.set(field, { field, characters: typed, fitting });
    }
  }
  return [...fits.values()];
}

function cardFor(recipient: CardRecipient, template: ResolvedTemplate, sender: CardSender) {
  return composeCard({
    recipient,
    orgName: sender.name,
    sender,
    template,
    // The QR code's box is fixed: the link's length moves nothing.
    landingUrl: "https://example.invalid/l/fit",
    homeImage: { bytes: new Uint8Array() },
    printAddressBlock: true,
  });
}

/** The refusal's words for one field, e.g. "does not fit the 4x6 card: 212 of its 260 characters fit …". */
export function overflowProblem(fit: FieldFit, size: ResolvedTemplate["size"]): string {
  return (
    `does not fit the ${size} card: ${fit.fitting} of its ${fit.characters} characters fit ` +
    "(merge fields counted at their longest)"
  );
}
