import { isDirectionWord, isStreetTypeWord, keyAsWritten } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import { spelledOutLeadingType } from "../domain/street-type-names.ts";
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
 * Cheap at a million rows, as they are: split_part, no regular expression, and one pass first finds
 * the stored words that matter. Candidates are keys whose street opens (after the number and a
 * direction) with an abbreviation the parser now spells out, followed by another word; and keys
 * with a locality whose street is a number, maybe a direction, and a street type alone. Only their
 * texts are parsed again, and a key changes only into that correction: the same state and ZIP, the
 * leading type spelled out, and any words added to the street taken from the start of the old town.
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
  const afterDirection = `${word(2)} IN (${DIRECTIONS.map((direction) => `'${direction}'`).join(", ")})`;
  return {
    locality: `split_part(${column}, ', ', 2)`,
    // The name's first word (after the number and a direction), when another word follows it.
    leadingWord: `CASE WHEN ${afterDirection} THEN CASE WHEN ${word(4)} <> '' THEN ${word(3)} END
                       WHEN ${word(3)} <> '' THEN ${word(2)} END`,
    // The one word of a street that is a number, maybe a direction, and that word ("2 AVE", "5 N VIA").
    loneWord: `CASE WHEN ${word(3)} = '' THEN ${word(2)}
                    WHEN ${word(4)} = '' AND ${afterDirection} THEN ${word(3)} END`,
  };
}

interface CandidateWords {
  /** Leading words of stored streets that are now spelled out ("AVE", "MT"). */
  abbreviations: string[];
  /** Lone words of stored streets with a locality that the parser reads as a street type. */
  typeWords: string[];
}

/**
 * One pass over the stored keys finds their names' leading words and their lone words; only those
 * now spelled out or read as a street type select rows, so the candidates' condition compares a
 * word with a few others (against every abbreviation it took 10 s at a million keys).
 */
async function storedCandidateWords(tx: Queryable): Promise<CandidateWords> {
  const scans = KEY_COLUMNS.map(([table, column]) => {
    const key = keyShape(column);
    return `SELECT ${key.leadingWord} AS leading_word,
                   CASE WHEN ${key.locality} <> '' THEN ${key.loneWord} END AS lone_word
            FROM ${table}`;
  });
  const rows = await queryRows<{ leading_word: string | null; lone_word: string | null }>(
    tx,
    sql.raw(`SELECT DISTINCT leading_word, lone_word FROM (${scans.join(" UNION ALL ")}) AS words
             WHERE leading_word IS NOT NULL OR lone_word IS NOT NULL`),
  );
  const distinct = (words: (string | null)[]) => [...new Set(words.filter((word) => word !== null))];
  return {
    abbreviations: distinct(rows.map((row) => row.leading_word)).filter((word) =>
      spelledOutLeadingType(word),
    ),
    typeWords: distinct(rows.map((row) => row.lone_word)).filter(isStreetTypeWord),
  };
}

function candidate(column: string, { abbreviations, typeWords }: CandidateWords) {
  const key = keyShape(column);
  return sql`${sql.raw(key.leadingWord)} = ANY(${sql.param(abbreviations)}::text[])
    OR (${sql.raw(key.locality)} <> '' AND ${sql.raw(key.loneWord)} = ANY(${sql.param(typeWords)}::text[]))`;
}

async function rekeyLeadingStreetTypes(tx: Queryable): Promise<void> {
  const words = await storedCandidateWords(tx);
  if (words.abbreviations.length === 0 && words.typeWords.length === 0) return;
  await rekeyStoredAddresses(tx, {
    candidate: (column) => candidate(column, words),
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
  const key = keyAsWritten(text);
  const after = keyParts(key);
  if (key === oldKey || after.state !== before.state || after.zip !== before.zip) return undefined;
  if (after.city === before.city) return after.street === spelledOut ? key : undefined;
  if (!typeAlone || !` ${before.city}`.endsWith(after.city === "" ? "" : ` ${after.city}`)) return undefined;
  const moved = before.city.slice(0, before.city.length - after.city.length).trim();
  return after.street === withLeadingTypeSpelledOut(`${before.street} ${moved}`) ? key : undefined;
}
