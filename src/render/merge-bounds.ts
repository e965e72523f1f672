import { type MergeValues, mergeFieldsOf, RESERVED_MERGE_FIELDS } from "./merge.ts";
import type { ResolvedTemplate } from "./template.ts";

/**
 * The longest value of each merge field a card is measured with (card-fit.ts): a template fits
 * when its text fits with these and with every field at its fallback. A record's longer value
 * that would cut the text is shortened by whole words (shorterMergeValues), so the headline,
 * message and offer the contractor approved always print whole. The values, and why, are in
 * docs/card-design.md.
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

const characters = (text: string) => Array.from(text).length;
const length = (words: string[]) => characters(words.join(" "));

const templateTexts = (template: ResolvedTemplate) => [
  template.headline,
  template.message,
  template.offer ?? "",
];

/** The longest plausible value of each of the template's custom fields: the sample or its fallback, the longer. */
export function customMergeSamples(template: ResolvedTemplate): Record<string, string> {
  const samples: Record<string, string> = {};
  for (const text of templateTexts(template)) {
    for (const { name, fallback } of mergeFieldsOf(text)) {
      if (!name.startsWith("cf_")) continue;
      const written = (fallback ?? "").trim();
      const longest = samples[name] ?? LONGEST_MERGE_VALUES.custom;
      samples[name] = characters(written) > characters(longest) ? written : longest;
    }
  }
  return samples;
}

/**
 * The fields a record fills with a value of any length that this template prints: its name (the
 * front's greeting always does), address and custom fields; never the profile's own.
 */
function recordFields(template: ResolvedTemplate): string[] {
  const used = new Set(
    templateTexts(template).flatMap((text) => mergeFieldsOf(text).map((field) => field.name)),
  );
  const reserved = Object.keys(RESERVED_MERGE_FIELDS).filter(
    (field) => field in LONGEST_MERGE_VALUES && (field === "client_name" || used.has(field)),
  );
  return [...reserved, ...Object.keys(customMergeSamples(template))];
}

/** Words a shortened value must not end on: "Miller &", "Smith and"; nor marks: "Roofing,". */
const JOINING_WORD = /^(?:[,;:&/+-]+|and|or|of|the|at)$/i;
const TRAILING_MARKS = /[,;:&/+-]+$/;

/** Shortenings tried before every record field falls back: each costs a layout of the card. */
const MAX_SHORTENINGS = 15;

/**
 * The record's values shortened step by step, for when its text would not fit the card: each step
 * drops the last word of the longest value that has more than one word (never ending on "and" or
 * "&"); the last step prints every record field's fallback ("Neighbor", "your home"), which the fit
 * rule measured. Empty when no record field has a value.
 */
export function shorterMergeValues(values: MergeValues, template: ResolvedTemplate): MergeValues[] {
  const fields = recordFields(template).filter((field) => values[field]?.trim());
  if (fields.length === 0) return [];
  const words = new Map(fields.map((field) => [field, (values[field] as string).trim().split(/\s+/)]));
  const steps: MergeValues[] = [];
  while (steps.length < MAX_SHORTENINGS) {
    const longest = [...words]
      .filter(([, kept]) => kept.length > 1)
      .sort(([, a], [, b]) => length(b) - length(a))[0];
    if (!longest) break;
    const kept = longest[1];
    kept.pop();
    while (kept.length > 1 && JOINING_WORD.test(kept.at(-1) as string)) kept.pop();
    kept[kept.length - 1] = (kept.at(-1) as string).replace(TRAILING_MARKS, "");
    steps.push({
      ...values,
      ...Object.fromEntries([...words].map(([field, rest]) => [field, rest.join(" ")])),
    });
  }
  steps.push({ ...values, ...Object.fromEntries(fields.map((field) => [field, null])) });
  return steps;
}
