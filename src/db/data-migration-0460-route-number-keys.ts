import { keyAsWritten, streetTypeOf } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import { spelledOutLeadingType } from "../domain/street-type-names.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses of roads named by a number, stored before two readings were corrected:
 * "100 County Road 12, Springfield, IL 62704" was `100 COUNTY RD, SPRINGFIELD IL 62704` (the route
 * number dropped as a note after the street's type, so County Road 12 and County Road 14 were one
 * home; before migration 0440's rule, `100 COUNTY RD, IL 62704`), now `100 COUNTY ROAD 12,
 * SPRINGFIELD IL 62704`; and "100 County Rd 12, …" was `100 COUNTY RD 12, …`, now the same key as
 * "County Road 12". docs/addresses.md tells the rule. The rows move as 0410's to 0450's do
 * (data-migration-rekeying.ts).
 *
 * Cheap at a million rows, as they are: split_part, no regular expression, and one pass first finds
 * the stored words that matter. Candidates are streets of three words or more that end with a type
 * a route number follows (`RD`, `HWY`, `RTE`…), and streets ending with a route number or letters
 * after a word that abbreviates a street type. A key changes only into that correction: the same
 * state and ZIP, the same town (or a town where the old key had none), and the street's words with
 * the route number restored after its type, or its type spelled out.
 */
export const routeNumberKeys: DataMigration = {
  version: "0460_route_number_keys",
  run: rekeyRouteNumbers,
};

/**
 * The types that precede a route's number ("County Road 12", "State Highway 7", "State Route 9").
 * Like the designator rule below, a frozen copy of what address.ts knew when this was written: a
 * later change there must not change which stored rows this migration moves.
 */
const ROUTE_TYPES = "'RD', 'HWY', 'RTE', 'FWY', 'EXPY', 'TPKE', 'PKWY'";
const isRouteDesignator = (word: string) => /\d/.test(word) || /^[A-Z]{1,2}$/.test(word);

/** A key's street and its words that matter, in SQL. */
function keyShape(column: string) {
  const street = `split_part(${column}, ', ', 1)`;
  const fromEnd = (n: number) => `reverse(split_part(reverse(${street}), ' ', ${n}))`;
  return {
    longStreet: `split_part(${street}, ' ', 3) <> ''`,
    lastWord: fromEnd(1),
    // The word before a last word that has a digit or at most two letters ("RD" of "COUNTY RD 12").
    typeBeforeDesignator: `CASE WHEN translate(${fromEnd(1)}, '0123456789', '') <> ${fromEnd(1)}
                                  OR length(${fromEnd(1)}) <= 2 THEN ${fromEnd(2)} END`,
  };
}

/** One pass over the stored keys finds the words before a route's number that abbreviate a type. */
async function storedAbbreviatedTypes(tx: Queryable): Promise<string[]> {
  const scans = KEY_COLUMNS.map(([table, column]) => {
    const key = keyShape(column);
    return `SELECT ${key.typeBeforeDesignator} AS word FROM ${table} WHERE ${key.longStreet}`;
  });
  const rows = await queryRows<{ word: string | null }>(
    tx,
    sql.raw(`SELECT DISTINCT word FROM (${scans.join(" UNION ALL ")}) AS words WHERE word IS NOT NULL`),
  );
  return rows.map((row) => row.word as string).filter((word) => spelledOutLeadingType(word) !== undefined);
}

function candidate(column: string, abbreviatedTypes: string[]) {
  const key = keyShape(column);
  return sql`${sql.raw(key.longStreet)}
    AND (${sql.raw(key.lastWord)} IN (${sql.raw(ROUTE_TYPES)})
         OR ${sql.raw(key.typeBeforeDesignator)} = ANY(${sql.param(abbreviatedTypes)}::text[]))`;
}

async function rekeyRouteNumbers(tx: Queryable): Promise<void> {
  const abbreviatedTypes = await storedAbbreviatedTypes(tx);
  await rekeyStoredAddresses(tx, {
    candidate: (column) => candidate(column, abbreviatedTypes),
    rekeyed: routeNumberKey,
  });
}

/**
 * The key `text` has now when it is this correction of `oldKey` (`100 COUNTY RD, SPRINGFIELD IL
 * 62704` or `100 COUNTY RD, IL 62704` → `100 COUNTY ROAD 12, SPRINGFIELD IL 62704`; `100 COUNTY RD
 * 12, …` → `100 COUNTY ROAD 12, …`); otherwise undefined.
 */
export function routeNumberKey(oldKey: string, text: string): string | undefined {
  if (!namesARouteNumber(text)) return undefined;
  const key = keyAsWritten(text);
  const before = keyParts(oldKey);
  const after = keyParts(key);
  if (key === oldKey || after.state !== before.state || after.zip !== before.zip) return undefined;
  const [old, now] = [before.street.split(" "), after.street.split(" ")];
  if (before.city === "" && after.city !== "") return routeNumberRestored(old, now) ? key : undefined;
  if (before.city !== after.city) return undefined;
  return routeNumberRestored(old, now) || routeTypeSpelledOut(old, now) ? key : undefined;
}

/**
 * Whether the text has a street type followed by a route's number or letters ("Road 12", "Hwy 7"):
 * most candidates (every street ending in RD) have none and are passed over without being parsed
 * (~0.3 ms an address).
 */
function namesARouteNumber(text: string): boolean {
  const words = text.toUpperCase().split(/[\s,.]+/);
  return words.some(
    (word, at) =>
      at + 1 < words.length && isRouteDesignator(words[at + 1] as string) && streetTypeOf(word) !== "",
  );
}

/** `100 COUNTY RD` → `100 COUNTY ROAD 12`: the old street's words, its type maybe spelled out, then route words. */
function routeNumberRestored(old: string[], now: string[]): boolean {
  const type = old.length - 1;
  if (now.length <= old.length || old.slice(0, type).join(" ") !== now.slice(0, type).join(" ")) return false;
  const typeKept = now[type] === old[type] || now[type] === spelledOutLeadingType(old[type] as string);
  return typeKept && now.slice(old.length).every(isRouteDesignator);
}

/** `100 COUNTY RD 12` → `100 COUNTY ROAD 12`: only the type before the route's number spelled out. */
function routeTypeSpelledOut(old: string[], now: string[]): boolean {
  const type = old.length - 2;
  if (now.length !== old.length || type < 1 || !isRouteDesignator(old.at(-1) as string)) return false;
  return old.every((word, at) => (at === type ? spelledOutLeadingType(word) === now[at] : word === now[at]));
}
