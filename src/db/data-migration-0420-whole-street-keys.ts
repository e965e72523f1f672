import { cityOfZip, isDirectionWord, isStreetWord, keyAsWritten, streetTypeOf } from "../domain/address.ts";
import { USPS_STATE_CODES } from "../domain/deliverable-address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses stored before the parser read a street written before a bare state and
 * ZIP as the full form reads it: words of the street had gone into the town, the state had been
 * read as the town or the street's last word, or the street had lost words ("40 N Mill Creek Rd,
 * 62704" was `40 N ML, CREEK RD IL 62704`, "40 Mill Creek Ct CT 06001" `40 MILL CREEK CT CT, CT
 * 06001`, "8 W Park Ave, 80202" `8 W PARK, CO 80202`). docs/addresses.md tells the rule. The rows
 * move as 0410's do (data-migration-rekeying.ts), so the same tables follow, and one row stays
 * where the new key is taken under a primary key.
 *
 * Cheap at a million rows, as 0410: split_part, no regular expression. One pass finds the first
 * words of the stored towns; those the parser reads as a street type or a direction, and a town
 * that is the state itself, select keys with a town; keys without one are selected when the
 * street ends with the state (or the street type the state's code reads as: WAY for WY), with
 * the ZIP's city ("12 BROADWAY SPRINGFIELD, IL 62701"), or is a house number, a direction and one
 * word, or (before a town alone: "40 MILL, AVON") is two words. Only those rows' texts are parsed again, and a key
 * changes only into one with the same house number, state and ZIP, whose town (if any) was
 * written in the old key.
 */
export const wholeStreetKeys: DataMigration = {
  version: "0420_whole_street_keys",
  run: rekeyWholeStreets,
};

const DIRECTIONS = ["N", "S", "E", "W", "NE", "NW", "SE", "SW"];

/** A key's parts in SQL: `STREET, W1 W2 W3…` (the town's words, then the state and the ZIP). */
function keyShape(column: string) {
  const street = `split_part(${column}, ', ', 1)`;
  const locality = `split_part(${column}, ', ', 2)`;
  const word = (n: number) => `split_part(${locality}, ' ', ${n})`;
  return {
    street,
    locality,
    firstWord: word(1),
    secondWord: word(2),
    // "CITY ST ZIP", "CITY ST": a town and a state; "ST ZIP", "ST", "ZIP", "CITY": not.
    hasTown: `(${word(3)} <> '' OR length(${word(2)}) = 2)`,
    // "CITY", "ST LOUIS": a town alone (no state, no ZIP); no digits in it, and not one state code.
    townAlone: `(translate(${word(1)}, '0123456789', '') <> ''
                 AND (length(${word(1)}) <> 2 OR translate(${word(2)}, '0123456789', '') <> ''))`,
  };
}

/**
 * From one pass over the stored keys: the first words of their towns that end a street line (a
 * street type, a direction, a unit or its letter: "CREEK", "W", "BSMT", "B"), and for the ZIPs of keys without a town,
 * the last word of the ZIP's city with the ZIP ("SPRINGFIELD 62701": a street ending with it,
 * "12 BROADWAY SPRINGFIELD", holds the town).
 */
async function storedLocalityWords(tx: Queryable): Promise<{ townWords: string[]; zipCityEnds: string[] }> {
  const scans = KEY_COLUMNS.map(([table, column]) => {
    const key = keyShape(column);
    return `SELECT CASE WHEN ${key.hasTown} THEN ${key.firstWord} END AS town_word,
                   CASE WHEN NOT ${key.hasTown} THEN ${key.secondWord} END AS zip
            FROM ${table}`;
  });
  const rows = await queryRows<{ town_word: string | null; zip: string | null }>(
    tx,
    sql.raw(`SELECT DISTINCT town_word, zip FROM (${scans.join(" UNION ALL ")}) AS localities`),
  );
  const townWords = rows.flatMap((row) =>
    row.town_word && endsAStreetLine(row.town_word) ? [row.town_word] : [],
  );
  const zipCityEnds = rows.flatMap((row) => {
    const cityEnd = cityOfZip(row.zip ?? "")
      .split(" ")
      .at(-1);
    return cityEnd ? [`${cityEnd} ${row.zip}`] : [];
  });
  return { townWords, zipCityEnds };
}

/** "IL IL", "CT CT", "WAY WY": a street's last word and the state, when that word is the state. */
function stateAsStreetEnd(): string[] {
  return [...USPS_STATE_CODES].flatMap((state) => {
    const type = streetTypeOf(state);
    return type && type !== state ? [`${state} ${state}`, `${type} ${state}`] : [`${state} ${state}`];
  });
}

interface CandidateWords {
  townWords: string[];
  zipCityEnds: string[];
  stateEnds: string[];
}

function candidate(column: string, { townWords, zipCityEnds, stateEnds }: CandidateWords) {
  const key = keyShape(column);
  const lastStreetWord = `reverse(split_part(reverse(${key.street}), ' ', 1))`;
  return sql`${sql.raw(key.locality)} <> '' AND CASE WHEN ${sql.raw(key.hasTown)}
      THEN ${sql.raw(key.firstWord)} = ANY(${sql.param(townWords)}::text[]) OR ${sql.raw(key.firstWord)} = ${sql.raw(key.secondWord)}
      ELSE ${sql.raw(lastStreetWord)} || ' ' || ${sql.raw(key.firstWord)} = ANY(${sql.param(stateEnds)}::text[])
        OR ${sql.raw(lastStreetWord)} || ' ' || ${sql.raw(key.secondWord)} = ANY(${sql.param(zipCityEnds)}::text[])
        OR (split_part(${sql.raw(key.street)}, ' ', 2) = ANY(${sql.param(DIRECTIONS)}::text[])
            AND split_part(${sql.raw(key.street)}, ' ', 3) <> '' AND split_part(${sql.raw(key.street)}, ' ', 4) = '')
        OR (${sql.raw(key.townAlone)} AND split_part(${sql.raw(key.street)}, ' ', 3) = '')
      END`;
}

async function rekeyWholeStreets(tx: Queryable): Promise<void> {
  const words = { ...(await storedLocalityWords(tx)), stateEnds: stateAsStreetEnd() };
  await rekeyStoredAddresses(tx, {
    candidate: (column) => candidate(column, words),
    rekeyed: wholeStreetKey,
  });
}

/** A word read as a town's first that belongs to the street: a street word, or a unit's letter ("APT 2B" read as #2, town B). */
const endsAStreetLine = (word: string) => isStreetWord(word) || /^[A-Z]$/.test(word);

/** The shapes `candidate` selects, read from one key. */
function readsStreetIntoLocality(key: string): boolean {
  const { street, city, state, zip } = keyParts(key);
  if (city !== "" && state !== "") {
    const first = city.split(" ")[0] as string;
    return first === state || endsAStreetLine(first);
  }
  const words = street.split(" ");
  const last = words.at(-1) ?? "";
  if (state !== "" && (last === state || last === streetTypeOf(state))) return true;
  const zipCity = cityOfZip(zip);
  if (zipCity !== "" && ` ${street}`.endsWith(` ${zipCity}`)) return true;
  // "40 MILL, AVON": a street read alone before its town lost its last words.
  if (city !== "" && zip === "" && words.length <= 2) return true;
  return words.length === 3 && isDirectionWord(words[1] as string);
}

/**
 * The key `text` has now when it is this correction of `oldKey` (`40 N ML, CREEK RD IL 62704` →
 * `40 N MILL CREEK RD, IL 62704`; `9 LAKE ST LOUISVILLE KY, KY 40202` → `9 LAKE ST, LOUISVILLE KY
 * 40202`): the same house number, state and ZIP, and a town, if any, that the old key holds at the
 * end of its town or inside its street; otherwise undefined.
 */
export function wholeStreetKey(oldKey: string, text: string): string | undefined {
  if (!readsStreetIntoLocality(oldKey)) return undefined;
  const key = keyAsWritten(text);
  const before = keyParts(oldKey);
  const after = keyParts(key);
  const houseNumber = (street: string) => street.split(" ")[0];
  if (key === oldKey || after.state !== before.state || after.zip !== before.zip) return undefined;
  if (houseNumber(after.street) !== houseNumber(before.street)) return undefined;
  const townWritten =
    after.city === "" ||
    ` ${before.city}`.endsWith(` ${after.city}`) ||
    ` ${before.street} `.includes(` ${after.city} `);
  return townWritten ? key : undefined;
}
