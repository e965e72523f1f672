import { streetOfKey } from "../domain/same-home.ts";
import { LAST_WORDS_OF_ORDINALS, withOrdinalsInFigures } from "../domain/street-ordinals.ts";
import type { DataMigration } from "./data-migration.ts";
import { rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, sql } from "./database.ts";

/**
 * Re-keys the addresses stored with a numbered street in words, from before keys wrote it in
 * figures (`withOrdinalsInFigures`): `12 FIFTH AVE, NEW YORK NY 10011` is `12 5TH AVE, …`, so a
 * home written "Fifth Avenue" in one place and "5th Ave" in another is one home to suppression,
 * the frequency cap, holdouts and attribution. The rows move as 0410's to 0530's do
 * (data-migration-rekeying.ts).
 *
 * Cheap at a million rows: the candidates are keys whose street's second to sixth word is a word
 * an ordinal ends with (split_part against a constant list, which PostgreSQL hashes); each is
 * re-keyed from the key itself, without parsing.
 */
export const ordinalStreetKeys: DataMigration = {
  version: "0540_ordinal_street_keys",
  run: (tx: Queryable) => rekeyStoredAddresses(tx, { candidate, rekeyed: ordinalStreetKey }),
};

// The words are constants of this code (letters and hyphens), written into the statement so the
// list is a constant PostgreSQL can hash rather than a parameter it scans for every word.
const ORDINAL_WORD_LIST = `ARRAY[${LAST_WORDS_OF_ORDINALS.map((word) => {
  if (!/^[A-Z-]+$/.test(word)) throw new Error(`not an ordinal word: ${word}`);
  return `'${word}'`;
}).join(", ")}]`;

function candidate(column: string) {
  const street = `split_part(${column}, ', ', 1)`;
  const words = [2, 3, 4, 5, 6].map((n) => `split_part(${street}, ' ', ${n}) = ANY(${ORDINAL_WORD_LIST})`);
  return sql.raw(`(${words.join(" OR ")})`);
}

/** `oldKey` with the ordinals of its street in figures, when it has any; otherwise undefined. */
export function ordinalStreetKey(oldKey: string): string | undefined {
  const street = streetOfKey(oldKey);
  const inFigures = withOrdinalsInFigures(street);
  return inFigures === street ? undefined : inFigures + oldKey.slice(street.length);
}
