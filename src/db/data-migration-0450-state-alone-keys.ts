import { isStreetTypeWord, isTownOfState, keyAsWritten } from "../domain/address.ts";
import { keyParts } from "../domain/same-home.ts";
import type { DataMigration } from "./data-migration.ts";
import { leadingStreetTypeKey } from "./data-migration-0430-leading-street-type-keys.ts";
import { KEY_COLUMNS, rekeyStoredAddresses } from "./data-migration-rekeying.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * Re-keys the addresses stored with a state but no ZIP, before two readings of such text were
 * corrected: "2 Ave of the Americas, NY" was `2 AVE, OF THE AMERICAS NY` (and "2 Avenue of the
 * Americas NY" `2 AVENUE, OF THE AMERICAS NY`: the name cut after its leading type, the rest read as
 * the town), now `2 AVENUE OF THE AMERICAS, NY`; and "100 Main St West Springfield MA" was `100 MAIN
 * ST W, SPRINGFIELD MA` (the town's direction read as the street's), now `100 MAIN ST, WEST
 * SPRINGFIELD MA`. docs/addresses.md tells the rule. The rows move as 0410's to 0440's do
 * (data-migration-rekeying.ts).
 *
 * Cheap at a million rows, as they are: split_part, no regular expression, and one pass first finds
 * the stored words that matter. Candidates are keys whose locality is a town and a state, no ZIP,
 * and whose street is a number, maybe a direction, and a word the parser reads as a street type
 * (`2 AVE`), or ends with a direction that, written in full before the town, names a town of the
 * state (`W` before `SPRINGFIELD MA`). A key changes only into that correction: the same state and
 * no ZIP, with the old town's words moved to the street after its leading type spelled out (0430's
 * correction, the town left empty), or the street's last direction moved, in full, to the town.
 */
export const stateAloneKeys: DataMigration = {
  version: "0450_state_alone_keys",
  run: rekeyStateAlone,
};

/**
 * The directions the parser writes as a street's suffix, by code, written in full. A frozen copy of
 * address.ts's DIRECTION_CODES, as 0440 keeps its street types: this migration corrects the keys
 * written before it, so a later change there must not change which stored rows it moves.
 */
const DIRECTION_NAMES: Record<string, string> = {
  N: "NORTH",
  S: "SOUTH",
  E: "EAST",
  W: "WEST",
  NE: "NORTHEAST",
  NW: "NORTHWEST",
  SE: "SOUTHEAST",
  SW: "SOUTHWEST",
};

const SQL_DIRECTIONS = Object.keys(DIRECTION_NAMES)
  .map((code) => `'${code}'`)
  .join(", ");

/** A key's street, its locality when it is a town and a state without ZIP, and the street's words that matter, in SQL. */
function keyShape(column: string) {
  const street = `split_part(${column}, ', ', 1)`;
  const locality = `split_part(${column}, ', ', 2)`;
  const word = (n: number) => `split_part(${street}, ' ', ${n})`;
  return {
    locality,
    // "OF THE AMERICAS NY", "SPRINGFIELD MA": a town and a state; no ZIP (no digit).
    townAndState: `(${locality} LIKE '% %' AND translate(${locality}, '0123456789', '') = ${locality})`,
    // The one word of a street that is a number, maybe a direction, and that word ("2 AVE", "5 N VIA").
    loneWord: `CASE WHEN ${word(3)} = '' THEN ${word(2)}
                    WHEN ${word(4)} = '' AND ${word(2)} IN (${SQL_DIRECTIONS}) THEN ${word(3)} END`,
    lastStreetWord: `reverse(split_part(reverse(${street}), ' ', 1))`,
  };
}

interface CandidateWords {
  /** Lone words of stored streets before a town and state that the parser reads as a street type. */
  typeWords: string[];
  /** "W SPRINGFIELD MA": a street's last direction and a locality it may have taken from the town. */
  directionTowns: string[];
}

/** One pass over the stored keys finds the lone words and the last directions before a town and state. */
async function storedCandidateWords(tx: Queryable): Promise<CandidateWords> {
  const scans = KEY_COLUMNS.map(([table, column]) => {
    const key = keyShape(column);
    return `SELECT ${key.locality} AS locality, ${key.loneWord} AS lone_word,
                   CASE WHEN ${key.lastStreetWord} IN (${SQL_DIRECTIONS}) THEN ${key.lastStreetWord} END AS direction
            FROM ${table} WHERE ${key.townAndState}`;
  });
  const rows = await queryRows<{ locality: string; lone_word: string | null; direction: string | null }>(
    tx,
    sql.raw(`SELECT DISTINCT locality, lone_word, direction FROM (${scans.join(" UNION ALL ")}) AS words
             WHERE lone_word IS NOT NULL OR direction IS NOT NULL`),
  );
  const typeWords = new Set<string>();
  const directionTowns = new Set<string>();
  for (const { locality, lone_word: loneWord, direction } of rows) {
    if (loneWord !== null && isStreetTypeWord(loneWord)) typeWords.add(loneWord);
    const { city, state } = keyParts(`X, ${locality}`);
    if (direction !== null && isTownOfState(`${DIRECTION_NAMES[direction]} ${city}`, state))
      directionTowns.add(`${direction} ${locality}`);
  }
  return { typeWords: [...typeWords], directionTowns: [...directionTowns] };
}

function candidate(column: string, { typeWords, directionTowns }: CandidateWords) {
  const key = keyShape(column);
  return sql`${sql.raw(key.townAndState)}
    AND (${sql.raw(key.loneWord)} = ANY(${sql.param(typeWords)}::text[])
         OR ${sql.raw(key.lastStreetWord)} || ' ' || ${sql.raw(key.locality)} = ANY(${sql.param(directionTowns)}::text[]))`;
}

async function rekeyStateAlone(tx: Queryable): Promise<void> {
  const words = await storedCandidateWords(tx);
  if (words.typeWords.length === 0 && words.directionTowns.length === 0) return;
  await rekeyStoredAddresses(tx, {
    candidate: (column) => candidate(column, words),
    rekeyed: stateAloneKey,
  });
}

/**
 * The key `text` has now when it is this correction of `oldKey`, a key with a town and a state
 * and no ZIP (`2 AVE, OF THE AMERICAS NY` → `2 AVENUE OF THE AMERICAS, NY`; `100 MAIN ST W,
 * SPRINGFIELD MA` → `100 MAIN ST, WEST SPRINGFIELD MA`): the same state, still no ZIP, and either
 * no town, the old town's words moved to the street with its leading type spelled out, or the old
 * street's last direction moved, in full, to the front of the town; otherwise undefined.
 */
export function stateAloneKey(oldKey: string, text: string): string | undefined {
  const before = keyParts(oldKey);
  if (before.city === "" || before.state === "" || before.zip !== "") return undefined;
  const typeAlone = leadingStreetTypeKey(oldKey, text);
  if (typeAlone !== undefined) return keyParts(typeAlone).city === "" ? typeAlone : undefined;
  const key = keyAsWritten(text);
  const after = keyParts(key);
  if (key === oldKey || after.state !== before.state || after.zip !== "") return undefined;
  const words = before.street.split(" ");
  const direction = DIRECTION_NAMES[words.pop() ?? ""];
  const moved = direction !== undefined && after.city === `${direction} ${before.city}`;
  return moved && after.street === words.join(" ") ? key : undefined;
}
