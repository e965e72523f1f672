/**
 * Merge fields in card templates: `{{client_name}}`, `{{street}}`, `{{city}}`, `{{org_name}}`,
 * the business's `{{phone}}` and `{{website}}` (its profile in the app's Settings), a neighbour card's `{{job_street}}` and `{{job_city}}` (the job it follows, without its house
 * number: src/neighbours/) and the record's custom properties `{{cf_…}}`. A value that is missing or blank prints an
 * explicit fallback, never "undefined" or an empty gap: the reserved fields have defaults
 * ("Neighbor", "your home", …) and a custom field must name its own, `{{cf_roof|your roof}}`,
 * which a template is checked for when it is saved.
 */
import { unprintableCharacters } from "./printable-text.ts";

export const RESERVED_MERGE_FIELDS = {
  client_name: "Neighbor",
  street: "your home",
  city: "your neighborhood",
  org_name: "your local pros",
  job_street: "your street",
  job_city: "your neighborhood",
  // "Call {{phone}}" reads "Call us" and "Visit {{website}}" "Visit our website" before the profile has them.
  phone: "us",
  website: "our website",
} as const;

type ReservedField = keyof typeof RESERVED_MERGE_FIELDS;

const MERGE_FIELD = /\{\{\s*([a-z][a-z0-9_]*)\s*(?:\|([^}]*))?\}\}/g;

export type MergeValues = Readonly<Record<string, string | null | undefined>>;

/** The merge fields a text uses, in order, each with the fallback written after its `|`, if any. */
export function mergeFieldsOf(text: string): { name: string; fallback: string | undefined }[] {
  return [...text.matchAll(MERGE_FIELD)].map(([, name, fallback]) => ({ name: name!, fallback }));
}

const isReserved = (name: string): name is ReservedField => Object.hasOwn(RESERVED_MERGE_FIELDS, name);

/** Problems that make a template unusable, each naming the field; empty when it is fine. */
export function templateProblems(text: string): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(MERGE_FIELD)) {
    const [whole, name, fallback] = match;
    if (isReserved(name!)) continue;
    if (!name!.startsWith("cf_")) {
      problems.push(
        `unknown merge field ${whole}; use ${Object.keys(RESERVED_MERGE_FIELDS).join(", ")} or cf_…`,
      );
    } else if (!fallback?.trim()) {
      problems.push(`merge field ${whole} needs a fallback for records without it, e.g. {{${name}|…}}`);
    }
  }
  const unclosed = text.replace(MERGE_FIELD, "").match(/\{\{[^}]*(\}(?!\})|$)/);
  if (unclosed) problems.push(`malformed merge field near "${unclosed[0].slice(0, 40)}"`);
  const unprintable = unprintableCharacters(text);
  if (unprintable.length > 0) {
    problems.push(
      `the card's typeface cannot print ${unprintable.slice(0, 5).join(" ")} (emoji, and letters outside Latin, Greek and Cyrillic, would print as empty boxes); remove ${unprintable.length === 1 ? "it" : "them"}`,
    );
  }
  return problems;
}

/** Replaces every merge field; blank values take the field's fallback. */
export function applyMergeFields(text: string, values: MergeValues): string {
  return text.replace(
    MERGE_FIELD,
    (whole: string, name: string, fallback: string | undefined, offset: number, source: string) => {
      const value =
        values[name]?.trim() || fallback?.trim() || (isReserved(name) ? RESERVED_MERGE_FIELDS[name] : "");
      // "… from {{org_name}}." with "Acme Co." must not print "Acme Co..".
      const periodFollows = source[offset + whole.length] === ".";
      return periodFollows && value.endsWith(".") ? value.slice(0, -1) : value;
    },
  );
}
