import { isStreetTypeWord, keyAsWritten, STATE_NAMES, streetTypeOf } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import { spelledOutLeadingType } from "../domain/street-type-names.ts";
import type { DataMigration } from "./data-migration.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses of roads named by a number written before a state alone, no town or ZIP,
 * stored before their reading was corrected: "100 Highway 61 MN" was `100 HIGHWAY` (the parser
 * dropped the number and the state, so every Highway was one home), "100 County Road JJ WI" `100
 * COUNTY RD, JJ WI`, "100 Highway 61, Minnesota" `100 HIGHWAY 61, MINNESOTA` and "100 Hwy 61 CT"
 * `100 HIGHWAY 61 CT` (the state read as Court); each is now the route and the state, `100 HIGHWAY
 * 61, MN`. docs/addresses.md tells the rule. The rows move as 0410's to 0460's do
 * (data-migration-rekeying.ts).
 *
 * Cheap at a million rows, as they are: split_part, no regular expression, and one pass first finds
 * the stored words that matter. Candidates are keys of three shapes only: a street with no locality
 * at all whose last word the parser reads as a street type (`100 HIGHWAY`, `100 COUNTY RD`, `100
 * HIGHWAY 61 CT`: a key without town, state or ZIP, which a mailable address never has); a locality
 * of a route's number or letters and a state code (`JJ WI`) after such a street; and a locality that
 * is a state's name (`MINNESOTA`). A candidate's text is parsed again only when it has a street type
 * followed by a route's number or letters. A key changes only into that correction: no town, no ZIP,
 * the state written, and the old street with the route's number or letters restored after its type
 * (the type maybe spelled out), or the same street with the state's name or a type read from the
 * state code taken off.
 */
export const routeBeforeStateKeys: DataMigration = {
  version: "0470_route_before_state_keys",
  run: rekeyRoutesBeforeState,
};

/** A frozen copy of address.ts's rule, as 0460 keeps one: a later change there must not move other rows. */
const isRouteDesignator = (word: string) => /\d/.test(word) || /^[A-Z]{1,2}$/.test(word);

const sqlList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(", ");
const STATE_CODES = sqlList(Object.keys(STATE_NAMES));
const STATE_NAMES_UPPER = sqlList(Object.values(STATE_NAMES).map((name) => name.toUpperCase()));

/** A key's street, its locality, and the shapes a candidate has, in SQL. */
function keyShape(column: string) {
  const street = `split_part(${column}, ', ', 1)`;
  const locality = `split_part(${column}, ', ', 2)`;
  const localityWord = (n: number) => `split_part(${locality}, ' ', ${n})`;
  return {
    lastStreetWord: `reverse(split_part(reverse(${street}), ' ', 1))`,
    // `100 HIGHWAY`: a number and at least one word, no locality.
    streetAlone: `(strpos(${column}, ', ') = 0 AND split_part(${column}, ' ', 2) <> '')`,
    // `JJ WI`, `12 IL`: a route's number or letters and a state code.
    designatorAndState: `(${localityWord(3)} = '' AND ${localityWord(2)} IN (${STATE_CODES})
                          AND (length(${localityWord(1)}) <= 2
                               OR translate(${localityWord(1)}, '0123456789', '') <> ${localityWord(1)}))`,
    stateName: `(split_part(${column}, ', ', 3) = '' AND ${locality} IN (${STATE_NAMES_UPPER}))`,
  };
}

/** One pass over the stored keys finds the last words of streets before no locality or a route's number and a state. */
async function storedStreetTypes(tx: Queryable): Promise<string[]> {
  const scans = KEY_COLUMNS.map(([table, column]) => {
    const key = keyShape(column);
    return `SELECT ${key.lastStreetWord} AS word FROM ${table} WHERE ${key.streetAlone} OR ${key.designatorAndState}`;
  });
  const rows = await queryRows<{ word: string }>(
    tx,
    sql.raw(`SELECT DISTINCT word FROM (${scans.join(" UNION ALL ")}) AS words`),
  );
  return rows.map((row) => row.word).filter((word) => /^[A-Z]+$/.test(word) && isStreetTypeWord(word));
}

function candidate(column: string, streetTypes: string[]) {
  const key = keyShape(column);
  return sql`((${sql.raw(key.streetAlone)} OR ${sql.raw(key.designatorAndState)})
              AND ${sql.raw(key.lastStreetWord)} = ANY(${sql.param(streetTypes)}::text[]))
             OR ${sql.raw(key.stateName)}`;
}

async function rekeyRoutesBeforeState(tx: Queryable): Promise<void> {
  const streetTypes = await storedStreetTypes(tx);
  await rekeyStoredAddresses(tx, {
    candidate: (column) => candidate(column, streetTypes),
    rekeyed: routeBeforeStateKey,
  });
}

/**
 * The key `text` has now when it is this correction of `oldKey` (`100 HIGHWAY` → `100 HIGHWAY 61,
 * MN`; `100 COUNTY RD, JJ WI` → `100 COUNTY ROAD JJ, WI`; `100 HIGHWAY 61, MINNESOTA` and `100
 * HIGHWAY 61 CT` → `100 HIGHWAY 61, MN` and `…, CT`); otherwise undefined.
 */
export function routeBeforeStateKey(oldKey: string, text: string): string | undefined {
  if (!namesARouteNumber(text)) return undefined;
  const key = keyAsWritten(text);
  const after = keyParts(key);
  if (key === oldKey || after.city !== "" || after.zip !== "" || after.state === "") return undefined;
  const before = keyParts(oldKey);
  if (before.zip !== "") return undefined;
  const [old, now] = [before.street.split(" "), after.street.split(" ")];
  const locality = [before.city, before.state].filter(Boolean).join(" ");
  if (locality === "") {
    const typeOfState = streetTypeOf(after.state);
    return routeNumberRestored(old, now) || before.street === `${after.street} ${typeOfState}`
      ? key
      : undefined;
  }
  if (locality === STATE_NAMES[after.state]?.toUpperCase())
    return before.street === after.street ? key : undefined;
  const routeWords = now.slice(old.length).join(" ");
  return before.state === after.state && before.city === routeWords && routeNumberRestored(old, now)
    ? key
    : undefined;
}

/**
 * Whether the text has a street type followed by a route's number or letters ("Highway 61", "Road
 * 12"): most candidates have none and are passed over without being parsed.
 */
function namesARouteNumber(text: string): boolean {
  const words = text.toUpperCase().split(/[\s,.]+/);
  return words.some(
    (word, at) =>
      at + 1 < words.length && isRouteDesignator(words[at + 1] as string) && streetTypeOf(word) !== "",
  );
}

/** `100 COUNTY RD` → `100 COUNTY ROAD 12 #4`: the old street's words, its type maybe spelled out, then the route's words and a unit. */
function routeNumberRestored(old: string[], now: string[]): boolean {
  const type = old.length - 1;
  if (type < 1 || now.length <= old.length || old.slice(0, type).join(" ") !== now.slice(0, type).join(" "))
    return false;
  const typeKept = now[type] === old[type] || now[type] === spelledOutLeadingType(old[type] as string);
  return typeKept && now.slice(old.length).every(isRouteDesignator);
}
