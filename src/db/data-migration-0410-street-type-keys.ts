import { isStreetTypeWord, keyAsWritten } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses stored before the parser read a street type written after another as the
 * street's ("40 Mill Creek Rd, 62704" was keyed `40 MILL CRK, RD IL 62704`; it is now
 * `40 MILL CREEK RD, IL 62704`, the same home as `40 MILL CREEK RD, SPRINGFIELD IL 62704`). Without
 * it, a customer registered in the old form would no longer suppress the same text, and a card
 * mailed before would escape the 30-day rule and attribution. docs/addresses.md tells the rule.
 *
 * Cheap at a million rows: one pass over each table finds the single-word cities of the stored
 * keys; those the parser reads as a street type ("RD", "ROAD", "CENTER") select the candidate rows;
 * only their address text is parsed again, and a row changes only when its new key is that
 * correction of its old one (the city word moved into the street, state and ZIP unchanged), so a
 * key differing for any other reason (an older parser's) is left as it is. Where the new key is
 * already taken under a primary key (customers, do_not_mail, reference_addresses), one row is kept.
 * A deal's idempotency key made of its address key (`address:<key>|<day>`) follows it.
 * geocode_cache is left: a stale key there only misses the cache once.
 */
export const streetTypeKeys: DataMigration = {
  version: "0410_street_type_keys",
  run: rekeyStreetTypeReadAsCity,
};

/**
 * The first word of a key's locality ("STREET, CITY ST ZIP"), when a two-letter word (the state)
 * follows it: a one-word city, or NULL. split_part, not a regular expression: at a million keys a
 * regular expression took 9 s of PostgreSQL's CPU here, split_part 0.4 s (docs/addresses.md).
 * correctedKey checks the key's exact shape for the few rows this selects.
 */
const oneWordCity = (column: string) => {
  const locality = `split_part(${column}, ', ', 2)`;
  return `CASE WHEN length(split_part(${locality}, ' ', 2)) = 2 THEN split_part(${locality}, ' ', 1) END`;
};

async function rekeyStreetTypeReadAsCity(tx: Queryable): Promise<void> {
  const words = await streetTypeCityWords(tx);
  if (words.length === 0) return;
  await rekeyStoredAddresses(tx, {
    candidate: (column) => sql`${sql.raw(oneWordCity(column))} = ANY(${sql.param(words)}::text[])`,
    rekeyed: correctedKey,
  });
}

/** The one-word cities of stored keys that the parser reads as a street type, upper case. */
async function streetTypeCityWords(tx: Queryable): Promise<string[]> {
  const scans = KEY_COLUMNS.map(([table, column]) => `SELECT ${oneWordCity(column)} AS word FROM ${table}`);
  const rows = await queryRows<{ word: string }>(
    tx,
    sql.raw(`SELECT DISTINCT word FROM (${scans.join(" UNION ALL ")}) AS cities WHERE word IS NOT NULL`),
  );
  return rows.map((row) => row.word).filter(isStreetTypeWord);
}

/**
 * The key `text` has now, when it is the street-type correction of `oldKey` (`40 MILL CRK, RD IL
 * 62704` → `40 MILL CREEK RD, IL 62704`: the city word gone into the street, the same house number,
 * state and ZIP); otherwise undefined.
 */
export function correctedKey(oldKey: string, text: string): string | undefined {
  const before = keyParts(oldKey);
  if (!isStreetTypeWord(before.city)) return undefined;
  const key = keyAsWritten(text);
  const after = keyParts(key);
  const number = (street: string) => street.split(" ")[0];
  if (key === oldKey || after.city !== "" || after.state !== before.state || after.zip !== before.zip) {
    return undefined;
  }
  return after.street !== before.street && number(after.street) === number(before.street) ? key : undefined;
}
