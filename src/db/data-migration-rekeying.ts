import { composeAddress } from "../domain/address.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

/**
 * The machinery of the data migrations that re-key stored addresses after a parser fix (0410,
 * 0420): each names its candidate rows and the key a row's text has now; this reads the candidates
 * of every table that stores a key with its text, and moves the keys that change. Kept as it was
 * written for 0410, so that migration still does what it did.
 */

/** How a migration re-keys: which rows to parse again, and the new key of a row it changes. */
export interface AddressRekeying {
  /**
   * A condition on a key column (`normalized_address`, or `d.normalized_address`) selecting the
   * rows to parse again: cheap at a million rows (split_part, no regular expression).
   */
  candidate: (column: string) => ReturnType<typeof sql>;
  /** The key `text` has now when the migration corrects `oldKey` to it; otherwise undefined. */
  rekeyed: Rekeyed;
}

type Rekeyed = (oldKey: string, text: string) => string | undefined;

/** The rows of one table to parse again (its key column's condition) and how to re-key them. */
interface Selection {
  candidate: ReturnType<typeof sql>;
  rekeyed: Rekeyed;
}

/** Where address keys are stored: with what they were read from (neighbour campaigns follow reference addresses). */
export const KEY_COLUMNS = [
  ["mail_pieces", "normalized_address"],
  ["leads", "normalized_address"],
  ["conversions", "normalized_address"],
  ["import_rows", "normalized_address"],
  ["customers", "normalized_address"],
  ["do_not_mail", "normalized_address"],
  ["reference_addresses", "normalized_address"],
] as const;

const BATCH = 5000;

/**
 * Re-keys every stored address `rekeying` corrects: pieces, leads, conversions (and a deal's
 * idempotency key made of its address), import rows, customers (and a held-out deal's key),
 * the do-not-mail list, reference addresses and the neighbour campaigns naming them.
 */
export async function rekeyStoredAddresses(
  tx: Queryable,
  { candidate, rekeyed }: AddressRekeying,
): Promise<void> {
  const of = (column: string): Selection => ({ candidate: candidate(column), rekeyed });
  await rekeyRows(tx, "mail_pieces", "address", of("normalized_address"));
  await rekeyRows(tx, "leads", "full_address", of("normalized_address"));
  const deals = await rekeyRows(tx, "conversions", "address", of("normalized_address"));
  await rekeyAddressIdempotency(tx, "conversions", deals);
  await rekeyImportRows(tx, of("normalized_address"));
  // A deal at a held-out home stores no address, but its home became a customer (its text).
  const customers = await rekeyCustomers(tx, of("normalized_address"));
  await rekeyAddressIdempotency(tx, "holdout_conversions", customers);
  await rekeyDoNotMail(tx, of("d.normalized_address"));
  const homes = await rekeyReferenceAddresses(tx, of("normalized_address"));
  await rekeyNeighbourHomes(tx, homes);
}

interface KeyMove {
  oldKey: string;
  newKey: string;
}

/** A row's key move: the row is (org_id, id), or for a table keyed otherwise its key in `id`. */
interface Move extends KeyMove {
  org: string;
  id: string;
}

function movesOf<T extends { org_id: string; id: string; old_key: string; text: string }>(
  rows: T[],
  rekeyed: Rekeyed,
): Move[] {
  return rows.flatMap((row) => {
    const newKey = rekeyed(row.old_key, row.text);
    return newKey ? [{ org: row.org_id, id: row.id, oldKey: row.old_key, newKey }] : [];
  });
}

function batches<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += BATCH) out.push(items.slice(at, at + BATCH));
  return out;
}

const column = <T, K extends keyof T>(items: T[], key: K) => sql.param(items.map((item) => item[key]));

/** A table whose rows are (org_id, id) and whose key is no primary key: each row's key is replaced. */
async function rekeyRows(
  tx: Queryable,
  table: "mail_pieces" | "leads" | "conversions",
  textColumn: string,
  { candidate, rekeyed }: Selection,
): Promise<Move[]> {
  const rows = await queryRows<{ org_id: string; id: string; old_key: string; text: string }>(
    tx,
    sql`SELECT org_id, id, normalized_address AS old_key, ${sql.raw(textColumn)} AS text
        FROM ${sql.raw(table)} WHERE ${candidate}`,
  );
  const all = movesOf(rows, rekeyed);
  for (const moves of batches(all)) {
    await tx.execute(
      sql`UPDATE ${sql.raw(table)} AS t SET normalized_address = m.new_key
          FROM unnest(${column(moves, "org")}::uuid[], ${column(moves, "id")}::uuid[],
                      ${column(moves, "oldKey")}::text[], ${column(moves, "newKey")}::text[])
            AS m(org_id, id, old_key, new_key)
          WHERE t.org_id = m.org_id AND t.id = m.id AND t.normalized_address = m.old_key`,
    );
  }
  return all;
}

async function rekeyImportRows(tx: Queryable, { candidate, rekeyed }: Selection): Promise<void> {
  const rows = await queryRows<{ org_id: string; id: string; old_key: string; text: string }>(
    tx,
    sql`SELECT org_id, import_id::text || '/' || row_index AS id, normalized_address AS old_key, address AS text
        FROM import_rows WHERE ${candidate}`,
  );
  for (const moves of batches(movesOf(rows, rekeyed))) {
    const importIds = moves.map((move) => move.id.split("/")[0]);
    const indexes = moves.map((move) => Number(move.id.split("/")[1]));
    await tx.execute(
      sql`UPDATE import_rows AS t SET normalized_address = m.new_key
          FROM unnest(${column(moves, "org")}::uuid[], ${sql.param(importIds)}::uuid[], ${sql.param(indexes)}::int[],
                      ${column(moves, "oldKey")}::text[], ${column(moves, "newKey")}::text[])
            AS m(org_id, import_id, row_index, old_key, new_key)
          WHERE t.org_id = m.org_id AND t.import_id = m.import_id AND t.row_index = m.row_index
            AND t.normalized_address = m.old_key`,
    );
  }
}

/** `moves` as a FROM item `m(org_id, old_key, new_key)`. */
const movedKeys = (moves: Move[]) =>
  sql`unnest(${column(moves, "org")}::uuid[], ${column(moves, "oldKey")}::text[], ${column(moves, "newKey")}::text[])
        AS m(org_id, old_key, new_key)`;

/**
 * Customers are keyed by (org_id, normalized_address): a customer registered in both forms becomes
 * one, as a second registration of the same home is (the earliest keeps its address, source and
 * date; notes are the earliest given).
 */
async function rekeyCustomers(tx: Queryable, { candidate, rekeyed }: Selection): Promise<Move[]> {
  const rows = await queryRows<{ org_id: string; id: string; old_key: string; text: string }>(
    tx,
    sql`SELECT org_id, normalized_address AS id, normalized_address AS old_key, address AS text
        FROM customers WHERE ${candidate}`,
  );
  const all = movesOf(rows, rekeyed);
  for (const moves of batches(all)) {
    await tx.execute(
      sql`INSERT INTO customers (org_id, normalized_address, address, notes, source, created_at)
          SELECT DISTINCT ON (c.org_id, m.new_key) c.org_id, m.new_key, c.address,
                 first_value(c.notes) OVER (PARTITION BY c.org_id, m.new_key ORDER BY c.notes IS NULL, c.created_at),
                 c.source, c.created_at
          FROM customers c JOIN ${movedKeys(moves)} ON c.org_id = m.org_id AND c.normalized_address = m.old_key
          ORDER BY c.org_id, m.new_key, c.created_at, c.address
          ON CONFLICT (org_id, normalized_address) DO UPDATE SET
            address = CASE WHEN excluded.created_at < customers.created_at THEN excluded.address ELSE customers.address END,
            source = CASE WHEN excluded.created_at < customers.created_at THEN excluded.source ELSE customers.source END,
            notes = CASE WHEN excluded.created_at < customers.created_at THEN coalesce(excluded.notes, customers.notes)
                         ELSE coalesce(customers.notes, excluded.notes) END,
            created_at = least(customers.created_at, excluded.created_at)`,
    );
    await tx.execute(
      sql`DELETE FROM customers c USING ${movedKeys(moves)}
          WHERE c.org_id = m.org_id AND c.normalized_address = m.old_key`,
    );
  }
  return all;
}

/**
 * A deal sent without a deal_id is idempotent under `address:<key>|<day>` (attribution's
 * conversionKey), in conversions and, at a held-out home, in holdout_conversions. A replay after
 * the upgrade computes the new key, so the stored one follows, unless a row already holds it (that
 * row stays the deal's, and the other keeps its key).
 */
async function rekeyAddressIdempotency(
  tx: Queryable,
  table: "conversions" | "holdout_conversions",
  moves: Move[],
): Promise<void> {
  const scope = sql.raw(table === "holdout_conversions" ? "t.automation_id::text" : "''");
  const newKeyOf = new Map(moves.map((move) => [`${move.org} ${move.oldKey}`, move.newKey]));
  const pairs = [...new Map(moves.map((move) => [`${move.org} ${move.oldKey}`, move])).values()];
  for (const batch of batches(pairs)) {
    const rows = await queryRows<{ org_id: string; old_key: string; idempotency_key: string; scope: string }>(
      tx,
      sql`SELECT t.org_id, m.old_key, t.idempotency_key, ${scope} AS scope
          FROM ${sql.raw(table)} t
          JOIN unnest(${column(batch, "org")}::uuid[], ${column(batch, "oldKey")}::text[]) AS m(org_id, old_key)
            ON t.org_id = m.org_id AND starts_with(t.idempotency_key, 'address:' || m.old_key || '|')
          ORDER BY t.created_at, t.idempotency_key`,
    );
    const renamed = rows.map((row) => {
      const day = row.idempotency_key.slice(`address:${row.old_key}`.length);
      return { ...row, next: `address:${newKeyOf.get(`${row.org_id} ${row.old_key}`)}${day}` };
    });
    const taken = new Set(
      (
        await queryRows<{ org_id: string; idempotency_key: string; scope: string }>(
          tx,
          sql`SELECT t.org_id, t.idempotency_key, ${scope} AS scope FROM ${sql.raw(table)} t
              JOIN unnest(${column(renamed, "org_id")}::uuid[], ${column(renamed, "next")}::text[]) AS m(org_id, key)
                ON t.org_id = m.org_id AND t.idempotency_key = m.key`,
        )
      ).map((row) => `${row.org_id} ${row.scope} ${row.idempotency_key}`),
    );
    const changes = renamed.filter((row) => {
      const slot = `${row.org_id} ${row.scope} ${row.next}`;
      if (taken.has(slot)) return false;
      taken.add(slot);
      return true;
    });
    if (changes.length === 0) continue;
    await tx.execute(
      sql`UPDATE ${sql.raw(table)} AS t SET idempotency_key = m.next
          FROM unnest(${column(changes, "org_id")}::uuid[], ${column(changes, "idempotency_key")}::text[],
                      ${column(changes, "next")}::text[], ${column(changes, "scope")}::text[]) AS m(org_id, key, next, scope)
          WHERE t.org_id = m.org_id AND t.idempotency_key = m.key AND ${scope} = m.scope`,
    );
  }
}

/**
 * The do-not-mail list keeps no address text: an entry takes the key its opted-out piece's address
 * has now. Keyed by (org_id, normalized_address): the earliest opt-out of the home is kept.
 */
async function rekeyDoNotMail(tx: Queryable, { candidate, rekeyed }: Selection): Promise<void> {
  const rows = await queryRows<{ org_id: string; id: string; old_key: string; text: string }>(
    tx,
    sql`SELECT d.org_id, d.normalized_address AS id, d.normalized_address AS old_key, p.address AS text
        FROM do_not_mail d JOIN mail_pieces p ON p.org_id = d.org_id AND p.id = d.piece_id
        WHERE ${candidate}`,
  );
  for (const moves of batches(movesOf(rows, rekeyed))) {
    await tx.execute(
      sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, piece_id, created_at)
          SELECT DISTINCT ON (d.org_id, m.new_key) d.org_id, m.new_key, d.reason, d.piece_id, d.created_at
          FROM do_not_mail d JOIN ${movedKeys(moves)} ON d.org_id = m.org_id AND d.normalized_address = m.old_key
          ORDER BY d.org_id, m.new_key, d.created_at
          ON CONFLICT (org_id, normalized_address) DO UPDATE SET
            reason = CASE WHEN excluded.created_at < do_not_mail.created_at THEN excluded.reason ELSE do_not_mail.reason END,
            piece_id = CASE WHEN excluded.created_at < do_not_mail.created_at THEN excluded.piece_id ELSE do_not_mail.piece_id END,
            created_at = least(do_not_mail.created_at, excluded.created_at)`,
    );
    await tx.execute(
      sql`DELETE FROM do_not_mail d USING ${movedKeys(moves)}
          WHERE d.org_id = m.org_id AND d.normalized_address = m.old_key`,
    );
  }
}

/**
 * Reference addresses are deployment-wide, one row per key, keyed from their parts' line. A home
 * already loaded under the new key keeps its row (the other is dropped, and the homes counted per
 * ZIP with it). Returns the keys it moved, for the neighbour campaigns that name a home.
 */
async function rekeyReferenceAddresses(tx: Queryable, { candidate, rekeyed }: Selection): Promise<KeyMove[]> {
  const rows = await queryRows<{ key: string; street: string; city: string; state: string; zip: string }>(
    tx,
    sql`SELECT normalized_address AS key, street, city, state, zip FROM reference_addresses WHERE ${candidate}`,
  );
  const moves = rows.flatMap((row) => {
    const newKey = rekeyed(row.key, composeAddress(row));
    return newKey ? [{ oldKey: row.key, newKey }] : [];
  });
  const homes = new Map<string, number>();
  const count = (rows: { zip: string; homes: number }[], sign: number) => {
    for (const row of rows) homes.set(row.zip, (homes.get(row.zip) ?? 0) + sign * Number(row.homes));
  };
  for (const batch of batches(moves)) {
    const keys = sql`unnest(${column(batch, "oldKey")}::text[], ${column(batch, "newKey")}::text[]) AS m(old_key, new_key)`;
    const added = await queryRows<{ zip: string; homes: number }>(
      tx,
      sql`WITH added AS (
            INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
            SELECT DISTINCT ON (m.new_key) m.new_key, r.street, r.city, r.state, r.zip, r.latitude, r.longitude
            FROM reference_addresses r JOIN ${keys} ON r.normalized_address = m.old_key
            ORDER BY m.new_key, m.old_key
            ON CONFLICT (normalized_address) DO NOTHING
            RETURNING zip)
          SELECT zip, count(*)::int AS homes FROM added WHERE zip <> '' GROUP BY zip`,
    );
    const dropped = await queryRows<{ zip: string; homes: number }>(
      tx,
      sql`WITH dropped AS (
            DELETE FROM reference_addresses r USING ${keys} WHERE r.normalized_address = m.old_key RETURNING r.zip)
          SELECT zip, count(*)::int AS homes FROM dropped WHERE zip <> '' GROUP BY zip`,
    );
    count(added, 1);
    count(dropped, -1);
  }
  const changed = [...homes].filter(([, delta]) => delta !== 0);
  if (changed.length > 0) {
    await tx.execute(
      sql`UPDATE reference_address_zips z SET homes = z.homes + d.delta
          FROM unnest(${sql.param(changed.map(([zip]) => zip))}::text[], ${sql.param(changed.map(([, delta]) => delta))}::int[])
            AS d(zip, delta)
          WHERE z.zip = d.zip`,
    );
  }
  return moves;
}

/** A neighbour campaign names its home by the reference address's key: it follows that key. */
async function rekeyNeighbourHomes(tx: Queryable, moves: KeyMove[]): Promise<void> {
  for (const batch of batches(moves)) {
    await tx.execute(
      sql`UPDATE neighbour_campaigns n SET home_key = m.new_key
          FROM unnest(${column(batch, "oldKey")}::text[], ${column(batch, "newKey")}::text[]) AS m(old_key, new_key)
          WHERE n.home_key = m.old_key`,
    );
  }
}
