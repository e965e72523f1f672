import { townOfKey } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses stored with their town as written, from before keys named the town as
 * `townOfKey` does: the ZIP's own town (`6801 HOLLYWOOD BLVD, HOLLYWOOD CA 90028` is `…, LOS ANGELES
 * CA 90028`), else the state's town as the ZIP table spells it (`…, WINSTON-SALEM NC` is `…, WINSTON
 * SALEM NC`). So a home written with its neighbourhood or borough in one place and its postal town
 * in another, or with its town spelled two ways, is one home to suppression, the frequency cap,
 * holdouts and attribution. The rows move as 0410's to 0490's do (data-migration-rekeying.ts).
 *
 * Cheap at a million rows: one pass over each table reads the distinct localities of the stored
 * keys (split_part); those whose town moves (a lookup in memory) select the rows, which are
 * re-keyed from the key itself, without parsing.
 */
export const zipTownKeys: DataMigration = {
  version: "0530_zip_town_keys",
  run: rekeyZipTowns,
};

async function rekeyZipTowns(tx: Queryable): Promise<void> {
  const moving = (await storedLocalities(tx)).filter(
    (locality) => zipTownKey(`0, ${locality}`) !== undefined,
  );
  if (moving.length === 0) return;
  await rekeyStoredAddresses(tx, {
    candidate: (column) => sql`split_part(${sql.raw(column)}, ', ', 2) = ANY(${sql.param(moving)}::text[])`,
    rekeyed: (oldKey) => zipTownKey(oldKey),
  });
}

/** The distinct localities ("CITY ST ZIP", each part optional) of the stored keys. */
async function storedLocalities(tx: Queryable): Promise<string[]> {
  const scans = KEY_COLUMNS.map(
    ([table, column]) => `SELECT DISTINCT split_part(${column}, ', ', 2) AS locality FROM ${table}`,
  );
  const rows = await queryRows<{ locality: string }>(
    tx,
    sql.raw(`SELECT DISTINCT locality FROM (${scans.join(" UNION ALL ")}) AS localities`),
  );
  return rows.map((row) => row.locality).filter((locality) => locality !== "");
}

/** `oldKey` with the town `townOfKey` names, when that is not the town stored; otherwise undefined. */
export function zipTownKey(oldKey: string): string | undefined {
  const parts = keyParts(oldKey);
  if (parts.street === "" || parts.city === "") return undefined;
  const town = townOfKey(parts);
  if (town === parts.city) return undefined;
  return `${parts.street}, ${[town, parts.state, parts.zip].filter(Boolean).join(" ")}`;
}
