import { townOfKey } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses stored with their town as written, from before keys named the town as
 * `townOfKey` does: the written town as the ZIP table spells that town of the state (`…, WINSTON-SALEM
 * NC` is `…, WINSTON SALEM NC`, `…, MCLEAN VA 22101` is `…, MC LEAN VA 22101`), so a town spelled two
 * ways is one home to suppression, the frequency cap, holdouts and attribution. The rows move as
 * 0410's to 0490's do (data-migration-rekeying.ts). (As first landed, `townOfKey` named the ZIP's
 * own town instead, and this moved `…, HOLLYWOOD CA 90028` to `…, LOS ANGELES CA 90028`; such a
 * key is still the home of every spelling with that ZIP, by `sameHome`'s ZIP rule. The version
 * name is kept, since databases record it.)
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
