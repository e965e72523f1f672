import { cityOfZip, isStreetTypeWord, keyAsWritten, streetTypeOf, zipsOfCity } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses stored before a town after a street without a street type was kept as
 * the town: "100 Broadway, Long Beach, CA 90802" (and "100 Broadway Long Beach CA 90802") was
 * `100 BROADWAY LONG BCH, CA 90802`, the town's last word read as the street's type, and "20 Calle
 * Ocho Coral Gables FL 33134" `20 CALLE, OCHO CORAL GABLES FL 33134`; they are now `100 BROADWAY,
 * LONG BEACH CA 90802` and `20 CALLE OCHO, CORAL GABLES FL 33134`, the keys of their parts.
 * docs/addresses.md tells the rule. The rows move as 0410's to 0430's do (data-migration-rekeying.ts).
 *
 * Cheap at a million rows, as they are: split_part, no regular expression, and one pass first finds
 * the stored localities that matter. Candidates are keys without a town whose street (three words
 * or more) ends with a street type a town could end with (not one that closes streets, as ST or
 * AVE, unless the ZIP's town ends with it), and keys whose town names none but ends with a town of
 * the state. A key changes only into that correction: the same state and ZIP, and the same words
 * with the town taken from the end of the old street or the start of the old town.
 */
export const commaTownKeys: DataMigration = {
  version: "0440_comma_town_keys",
  run: rekeyCommaTowns,
};

/**
 * Street types that end streets far more often than towns: a townless street ending with one is a
 * street. A frozen copy of address.ts's CLOSING_STREET_TYPES, as 0420 and 0430 keep theirs: this
 * migration corrects the keys written before it, so a later change to the parser's set must not
 * change which stored rows it moves.
 */
const CLOSING_TYPES = new Set("ST AVE RD DR LN CT BLVD WAY PL CIR TER PKWY HWY SQ TRL LOOP".split(" "));

/** A key's street, its locality (`CITY ST ZIP`, any part missing) and the street's last word, in SQL. */
function keyShape(column: string) {
  const street = `split_part(${column}, ', ', 1)`;
  const locality = `split_part(${column}, ', ', 2)`;
  const word = (n: number) => `split_part(${locality}, ' ', ${n})`;
  return {
    locality,
    lastStreetWord: `reverse(split_part(reverse(${street}), ' ', 1))`,
    // A street of three words or more ("100 BROADWAY LONG BCH") before "CA 90802" or "CA": no town.
    townlessLongStreet: `(split_part(${street}, ' ', 3) <> '' AND length(${word(1)}) = 2
                          AND ${word(3)} = '' AND translate(${word(2)}, '0123456789', '') = '')`,
  };
}

interface CandidateLocalities {
  /** "BCH CA 90802": a street's last word and a townless locality it may have taken its town from. */
  townEnds: string[];
  /** "OCHO CORAL GABLES FL 33134": localities whose town names none but ends with one. */
  townsWithStreetWords: string[];
}

/**
 * One pass over the stored keys finds their distinct localities, with the street's last word where
 * the locality has no town; only those this migration may correct select rows.
 */
async function storedCandidateLocalities(tx: Queryable): Promise<CandidateLocalities> {
  const scans = KEY_COLUMNS.map(([table, column]) => {
    const key = keyShape(column);
    return `SELECT ${key.locality} AS locality,
                   CASE WHEN ${key.townlessLongStreet} THEN ${key.lastStreetWord} END AS last_word
            FROM ${table} WHERE ${key.locality} <> ''`;
  });
  const rows = await queryRows<{ locality: string; last_word: string | null }>(
    tx,
    sql.raw(`SELECT DISTINCT locality, last_word FROM (${scans.join(" UNION ALL ")}) AS localities`),
  );
  const townEnds = new Set<string>();
  const townsWithStreetWords = new Set<string>();
  for (const { locality, last_word: lastWord } of rows) {
    const { city, state, zip } = keyParts(`X, ${locality}`);
    if (city === "" && lastWord !== null && mayEndATown(lastWord, zip))
      townEnds.add(`${lastWord} ${locality}`);
    if (city !== "" && endsWithATownOnly(city, state, zip)) townsWithStreetWords.add(locality);
  }
  return { townEnds: [...townEnds], townsWithStreetWords: [...townsWithStreetWords] };
}

/** "BCH", "SPGS": a street type that could be a town's last word, or the type of the ZIP's town's last word. */
function mayEndATown(word: string, zip: string): boolean {
  if (!isStreetTypeWord(word)) return false;
  const zipTownEnd = cityOfZip(zip).split(" ").at(-1) ?? "";
  return !CLOSING_TYPES.has(word) || (zipTownEnd !== "" && streetTypeOf(zipTownEnd) === word);
}

/** address.ts's `namesATown` for one state: the ZIP's own town, or any town of the state. */
const isTownOf = (city: string, state: string, zip: string) =>
  cityOfZip(zip) === city || zipsOfCity(city, state, 1).length > 0;

/** "OCHO CORAL GABLES" in FL: no town, but its last one to three words are one. */
function endsWithATownOnly(city: string, state: string, zip: string): boolean {
  const words = city.split(" ");
  if (words.length < 2 || state === "" || isTownOf(city, state, zip)) return false;
  for (let size = Math.min(3, words.length - 1); size >= 1; size--) {
    if (isTownOf(words.slice(-size).join(" "), state, zip)) return true;
  }
  return false;
}

function candidate(column: string, { townEnds, townsWithStreetWords }: CandidateLocalities) {
  const key = keyShape(column);
  return sql`${sql.raw(key.locality)} = ANY(${sql.param(townsWithStreetWords)}::text[])
    OR (${sql.raw(key.townlessLongStreet)}
        AND ${sql.raw(key.lastStreetWord)} || ' ' || ${sql.raw(key.locality)} = ANY(${sql.param(townEnds)}::text[]))`;
}

async function rekeyCommaTowns(tx: Queryable): Promise<void> {
  const localities = await storedCandidateLocalities(tx);
  if (localities.townEnds.length === 0 && localities.townsWithStreetWords.length === 0) return;
  await rekeyStoredAddresses(tx, {
    candidate: (column) => candidate(column, localities),
    rekeyed: commaTownKey,
  });
}

/** "LONG BEACH" → "LONG BCH": a town as the old reading wrote it at the end of the street. */
function asStreetEnd(town: string): string {
  const words = town.split(" ");
  const last = words.pop() ?? "";
  return [...words, streetTypeOf(last) || last].join(" ");
}

/**
 * The key `text` has now when it is this correction of `oldKey` (`100 BROADWAY LONG BCH, CA 90802`
 * → `100 BROADWAY, LONG BEACH CA 90802`; `20 CALLE, OCHO CORAL GABLES FL 33134` → `20 CALLE OCHO,
 * CORAL GABLES FL 33134`): the same state and ZIP, and a town that ended the old street (its last
 * word as a street type) or the words of the old town after some that moved to the street;
 * otherwise undefined.
 */
export function commaTownKey(oldKey: string, text: string): string | undefined {
  const key = keyAsWritten(text);
  const before = keyParts(oldKey);
  const after = keyParts(key);
  if (key === oldKey || after.city === "" || after.state !== before.state || after.zip !== before.zip) {
    return undefined;
  }
  if (before.city === "")
    return before.street === `${after.street} ${asStreetEnd(after.city)}` ? key : undefined;
  const wordsMoved = after.street.startsWith(`${before.street} `);
  return wordsMoved && `${before.street} ${before.city}` === `${after.street} ${after.city}`
    ? key
    : undefined;
}
