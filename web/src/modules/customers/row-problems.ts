import { inWords } from "../../api/errors.ts";

/** What a row's field is called where the contractor picked its column (the upload's column choices). */
const ROW_FIELD_NAMES: Record<string, string> = {
  address: "address",
  notes: "note",
  customer_name: "customer name",
  external_id: "job or record id",
  completed_at: "job date",
  job_type: "job type",
};

/** The checks' own words that read badly after a field's name, said as a contractor would. */
const PLAIN_REFUSALS: [RegExp, string][] = [
  [/^is empty$/, "is empty"],
  [/^longer than (\d+) characters?$/, "is longer than $1 characters"],
  [/^must NOT have more than (\d+) characters?.*$/s, "is longer than $1 characters"],
  [/^must be an ISO-8601 date.*$/s, "is not a date: write it as 5/31/2024 or 2024-05-31"],
];

/**
 * A refused CSV row's reason as a sentence. The server names the field first, as its checks write
 * it ("address: is empty", "completed_at: must be an ISO-8601 date …"); the list shows "The address
 * is empty", never the field's code name.
 */
export function rowProblemInWords(message: string): string {
  const named = /^([a-z_]+): (.+)$/s.exec(message);
  if (!named) return inWords(message);
  const [, field, reason] = named as unknown as [string, string, string];
  const name = ROW_FIELD_NAMES[field];
  if (!name) return inWords(reason);
  for (const [pattern, plain] of PLAIN_REFUSALS) {
    if (pattern.test(reason)) return `The ${name} ${reason.replace(pattern, plain)}.`;
  }
  return inWords(reason);
}
