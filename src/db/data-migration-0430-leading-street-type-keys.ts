import { isDirectionWord, isStreetTypeWord, normalizeAddress } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import { leadingTypeAbbreviations, spelledOutLeadingType } from "../domain/street-type-names.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses stored before a street type opening a street's name was spelled out and
 * kept in the street: "2 Ave of the Americas, New York NY 10036" was `2 AVE OF THE AMERICAS, NEW
 * YORK NY 10036` and "2 Ave of the Americas, NY 10036" `2 AVE, OF THE AMERICAS NY 10036`; both are
 * now `2 AVENUE OF THE AMERICAS, …`, the key "2 Avenue of the Americas" always had. docs/addresses.md
 * tells the rule. The rows move as 0410's and 0420's do (data-migration-rekeying.ts).
 *
 * Cheap at a million rows, as they are: split_part, no regular expression. Candidates are keys
 * whose street opens (after the number and a direction) with an abbreviation the parser now spells
 * out, followed by another word; and keys with a town whose street is a number, maybe a direction,
 * and a street type alone (one pass finds those words). Only their texts are parsed again, and a
 * key changes only into that correction: the same state and ZIP, the leading type spelled out, and
 * any words added to the street taken from the start of the old town.
 */
export const leadingStreetTypeKeys: DataMigration = {
  version: "0430_leading_street_type_keys",
  run: rekeyLeadingStreetTypes,
};

const DIRECTIONS = ["N", "S", "E", "W", "NE", "NW", "SE", "SW"];

/** A key's street and locality in SQL, and the street's second to fourth words. */
function keyShape(column: string) {
  const street = `split_part(${column}, ', ', 1)`;
  const word = (n: number) => `split_part(${street}, ' ', ${n})`;
  return { locality: `split_part(${column}, ', ', 2)`, second: word(2), third: word(3), fourth: word(4) };
}

/** The word after the number (and a direction) of a street that is no more than that: "2 AVE", "5 N VIA". */
function loneWord(column: string): string {
  const key = keyShape(column);
  return `CASE WHEN ${key.third} = '' THEN ${key.second}
               WHEN ${key.fourth} = '' AND ${key.second} IN (${DIRECTIONS.map((d) => `'${d}'`).join(", ")})
               THEN ${key.third} END`;
}

/** The lone words of stored streets with a locality that the parser reads as a street type. */
async function loneStreetTypeWords(tx: Queryable): Promise<string[]> {
  const scans = KEY_COLUMNS.map(
    ([table, column]) =>
      `SELECT ${loneWord(column)} AS word FROM ${table} WHERE ${keyShape(column).locality} <> ''`,
  );
  const rows = await queryRows<{ word: string | null }>(
    tx,
    sql.raw(`SELECT DISTINCT word FROM (${scans.join(" UNION ALL ")}) AS words WHERE word IS NOT NULL`),
  );
  return rows.flatMap((row) => (row.word && isStreetTypeWord(row.word) ? [row.word] : []));
}

function candidate(column: string, typeWords: string[]) {
  const key = keyShape(column);
  const abbreviations = sql.param(leadingTypeAbbreviations());
  const directions = sql.param(DIRECTIONS);
  const [second, third, fourth] = [key.second, key.third, key.fourth].map((word) => sql.raw(word));
  return sql`(${second} = ANY(${abbreviations}::text[]) AND ${third} <> '')
    OR (${second} = ANY(${directions}::text[]) AND ${third} = ANY(${abbreviations}::text[]) AND ${fourth} <> '')
    OR (${sql.raw(key.locality)} <> '' AND ${sql.raw(loneWord(column))} = ANY(${sql.param(typeWords)}::text[]))`;
}

async function rekeyLeadingStreetTypes(tx: Queryable): Promise<void> {
  const typeWords = await loneStreetTypeWords(tx);
  await rekeyStoredAddresses(tx, {
    candidate: (column) => candidate(column, typeWords),
    rekeyed: leadingStreetTypeKey,
  });
}

/** The street's words after the house number, and how many of them a direction takes (0 or 1). */
function nameWords(street: string): { words: string[]; at: number } {
  const words = street.split(" ");
  return { words, at: words.length > 2 && isDirectionWord(words[1] as string) ? 2 : 1 };
}

/** "2 AVE OF THE AMERICAS" → "2 AVENUE OF THE AMERICAS": the type opening a longer name spelled out. */
function withLeadingTypeSpelledOut(street: string): string {
  const { words, at } = nameWords(street);
  const spelledOut = words.length > at + 1 ? spelledOutLeadingType(words[at] as string) : undefined;
  return spelledOut ? [...words.slice(0, at), spelledOut, ...words.slice(at + 1)].join(" ") : street;
}

/** "2 AVE", "5 N VIA": a number, maybe a direction, and a street type alone. */
function isTypeAlone(street: string): boolean {
  const { words, at } = nameWords(street);
  return words.length === at + 1 && isStreetTypeWord(words[at] as string);
}

/**
 * The key `text` has now when it is this correction of `oldKey` (`2 AVE OF THE AMERICAS, NEW YORK
 * NY 10036` → `2 AVENUE OF THE AMERICAS, NEW YORK NY 10036`; `2 AVE, OF THE AMERICAS NY 10036` →
 * `2 AVENUE OF THE AMERICAS, NY 10036`): the same state and ZIP, and the street the old one with its
 * leading type spelled out, followed by the first words of the old town if the town lost them;
 * otherwise undefined.
 */
export function leadingStreetTypeKey(oldKey: string, text: string): string | undefined {
  const before = keyParts(oldKey);
  const spelledOut = withLeadingTypeSpelledOut(before.street);
  const typeAlone = before.city !== "" && isTypeAlone(before.street);
  if (spelledOut === before.street && !typeAlone) return undefined;
  const key = normalizeAddress(text);
  const after = keyParts(key);
  if (key === oldKey || after.state !== before.state || after.zip !== before.zip) return undefined;
  if (after.city === before.city) return after.street === spelledOut ? key : undefined;
  if (!typeAlone || !` ${before.city}`.endsWith(after.city === "" ? "" : ` ${after.city}`)) return undefined;
  const moved = before.city.slice(0, before.city.length - after.city.length).trim();
  return after.street === withLeadingTypeSpelledOut(`${before.street} ${moved}`) ? key : undefined;
}
