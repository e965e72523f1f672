import { isTownOfState, keyAsWritten } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, sql } from "./database.ts";

/**
 * Re-keys the addresses whose town opens with an abbreviation, stored before keys spelled it out
 * (town-names.ts): `12 MAIN ST, ST PAUL MN 55101` is `12 MAIN ST, SAINT PAUL MN 55101`, the key
 * "Saint Paul" always had, so a customer written one way suppresses mail written the other. And,
 * with no ZIP, the reading that gave such a town's first word to the street: "12 Main St St Paul
 * MN" was `12 MAIN ST ST, PAUL MN`, "9 Elm Ave Ft Worth TX" `9 ELM AVE FT, WORTH TX`, "12 Main St
 * Mt Vernon NY" `12 MAIN ST MT, VERNON NY`; each is now the street and the whole town. The rows
 * move as 0410's to 0470's do (data-migration-rekeying.ts).
 *
 * Cheap at a million rows: the candidates are found with split_part alone; a town to spell out is
 * re-keyed from the key itself, without parsing; a street ending with such a word is parsed again
 * only when that word and the town after it name a town of the state (a lookup in memory).
 */
export const spelledOutTownKeys: DataMigration = {
  version: "0480_spelled_out_town_keys",
  run: (tx: Queryable) => rekeyStoredAddresses(tx, { candidate, rekeyed: spelledOutTownKey }),
};

/** A frozen copy of town-names.ts's abbreviations, as 0460 and 0470 keep theirs: a later change there must not move other rows. */
const SPELLED_OUT: Record<string, string> = { ST: "SAINT", STE: "SAINTE", FT: "FORT", MT: "MOUNT" };

const ABBREVIATIONS = Object.keys(SPELLED_OUT)
  .map((word) => `'${word}'`)
  .join(", ");

function candidate(column: string) {
  const locality = `split_part(${column}, ', ', 2)`;
  const secondWord = `split_part(${locality}, ' ', 2)`;
  const lastWord = `reverse(split_part(reverse(${column}), ' ', 1))`;
  const lastStreetWord = `reverse(split_part(reverse(split_part(${column}, ', ', 1)), ' ', 1))`;
  // `ST PAUL MN`: an abbreviation, then a word that is no ZIP (`MT 59601` is Montana's).
  const townToSpellOut = `(split_part(${locality}, ' ', 1) IN (${ABBREVIATIONS}) AND ${secondWord} <> ''
                          AND translate(${secondWord}, '0123456789', '') <> '')`;
  // `12 MAIN ST ST, PAUL MN`: a street ending with one, then a locality that ends with no ZIP.
  const streetTookTheWord = `(strpos(${column}, ', ') > 0 AND ${lastStreetWord} IN (${ABBREVIATIONS})
                             AND translate(${lastWord}, '0123456789', '') <> '')`;
  return sql.raw(`(${townToSpellOut} OR ${streetTookTheWord})`);
}

/** The key `text` has now when it is one of these corrections of `oldKey`; otherwise undefined. */
export function spelledOutTownKey(oldKey: string, text: string): string | undefined {
  const old = keyParts(oldKey);
  const town = spelledOut(old.city);
  if (town !== old.city) return keyOf({ ...old, city: town });
  return townTakenBackFromStreet(old, text);
}

/** `12 MAIN ST ST, PAUL MN` → `12 MAIN ST, SAINT PAUL MN`, when the text now reads so. */
function townTakenBackFromStreet(old: ReturnType<typeof keyParts>, text: string): string | undefined {
  const words = old.street.split(" ");
  const word = words.at(-1) as string;
  if (old.zip !== "" || old.state === "" || old.city === "" || !Object.hasOwn(SPELLED_OUT, word))
    return undefined;
  if (words.length < 3 || !isTownOfState(`${word} ${old.city}`, old.state)) return undefined;
  const corrected = keyOf({
    street: words.slice(0, -1).join(" "),
    city: spelledOut(`${word} ${old.city}`),
    state: old.state,
    zip: "",
  });
  return keyAsWritten(text) === corrected ? corrected : undefined;
}

function spelledOut(city: string): string {
  const [first = "", ...rest] = city.split(" ");
  if (!Object.hasOwn(SPELLED_OUT, first) || rest.length === 0) return city;
  return [SPELLED_OUT[first], ...rest].join(" ");
}

const keyOf = (parts: ReturnType<typeof keyParts>) =>
  `${parts.street}, ${[parts.city, parts.state, parts.zip].filter(Boolean).join(" ")}`;
