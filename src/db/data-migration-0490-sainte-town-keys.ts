import { keyAsWritten } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, sql } from "./database.ts";

/**
 * Re-keys the addresses whose town opens with "Ste", stored while the parser took that word for a
 * suite (address.ts, withSainteTownSpelledOut): "7 Elm Ave, Ste. Genevieve, MO 63670" was
 * `7 ELM AVE #GENEVIEVE, MO 63670` and "7 Elm Ave Ste Genevieve MO" `7 ELM AVE #GENEVIEV, E MO`;
 * both are now the street and the town, `7 ELM AVE, SAINTE GENEVIEVE MO …`, the key "Sainte
 * Genevieve" always had. The rows move as 0410's to 0480's do (data-migration-rekeying.ts).
 *
 * Cheap at a million rows: the candidates are keys whose street ends with a unit of letters alone
 * (`#GENEVIEVE`, and `#REAR` or `#BSMT`, which stay), found with split_part; only those are parsed again.
 */
export const sainteTownKeys: DataMigration = {
  version: "0490_sainte_town_keys",
  run: (tx: Queryable) => rekeyStoredAddresses(tx, { candidate, rekeyed: sainteTownKey }),
};

function candidate(column: string) {
  const lastStreetWord = `reverse(split_part(reverse(split_part(${column}, ', ', 1)), ' ', 1))`;
  return sql.raw(`(strpos(${column}, ', ') > 0 AND left(${lastStreetWord}, 1) = '#'
                   AND length(${lastStreetWord}) > 2
                   AND translate(${lastStreetWord}, '0123456789', '') = ${lastStreetWord})`);
}

/** The key `text` has now when its old key took a Sainte town for a suite; otherwise undefined. */
export function sainteTownKey(oldKey: string, text: string): string | undefined {
  const now = keyAsWritten(text);
  const read = keyParts(now);
  // The old street is the new one and a unit, so a key that moves always changes.
  const tookTheTown =
    read.city.startsWith("SAINTE ") && keyParts(oldKey).street.startsWith(`${read.street} #`);
  return tookTheTown ? now : undefined;
}
