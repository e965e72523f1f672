import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { addressKey, namesAPlace, parseUsAddress } from "../domain/address.ts";
import { impossibleParts } from "../domain/deliverable-address.ts";
import { assertPrintable } from "../domain/printable-text.ts";
import { invalidPayload } from "../errors.ts";
import { createLoopSlicer } from "../event-loop-slices.ts";
import type { WorkBudget } from "../limits/work-budget.ts";
import { suppressWaitingCardsOfHomes } from "../pieces/customer-homes.ts";
import { becameCustomer, stopFollowUps } from "../pieces/follow-ups.ts";

/**
 * Where a customer address came from: the customers webhook, a conversion, the legacy trigger, the
 * app's one-address form (`app`), a CSV uploaded in the app (`csv_upload`) or a lead marked won in the
 * app (`lead_won`). The developer API never answers a customer's source, so these are the app's and
 * the operator's words only.
 */
export type CustomerSource = "webhook" | "conversion" | "trigger" | "app" | "csv_upload" | "lead_won";

export const CUSTOMERS_BATCH_LIMIT = 1000;

export interface CustomerEntry {
  address: string;
  notes?: string | undefined;
  /** How the caller's payload names this entry, for a 422 (`address`, `addresses[3]`). */
  field: string;
}

/** An entry with its address key, from `checkedCustomerKey`: registering it parses nothing. */
export interface KeyedCustomerEntry extends CustomerEntry {
  key: string;
}

export interface CustomerView {
  address: string;
  normalized_address: string;
  notes: string | null;
  source: string;
  created_at: string;
}

interface CustomerRow {
  normalized_address: string;
  address: string;
  notes: string | null;
  source: string;
  created_at: Date | string;
}

/**
 * The entry's address key, after the checks every way of adding a customer makes (422 naming its
 * field). With `wholeHome` (the app's forms and uploads) the address must also name its city or ZIP,
 * and no ZIP or state that does not exist: a street alone is no one home, and an entry stays on the
 * list until an owner removes it. The customers API keeps its contract, any usable address.
 */
export function checkedCustomerKey(entry: CustomerEntry, options: { wholeHome?: boolean } = {}): string {
  assertPrintable(entry.address, entry.field);
  const parts = parseUsAddress(entry.address);
  const normalized = addressKey(parts);
  if (!namesAPlace(normalized)) throw invalidPayload(`${entry.field}: is not a usable address`);
  if (options.wholeHome && !parts.city && !parts.zip) {
    throw invalidPayload(`${entry.field}: give the house number and street, and the city or ZIP`);
  }
  const impossible = options.wholeHome ? impossibleParts(parts) : [];
  if (impossible.length > 0) {
    // A typo kept on the list would never match a home, and the home meant would still be mailed.
    throw invalidPayload(`${entry.field}: ${impossible.map((problem) => problem.words).join("; ")}`);
  }
  return normalized;
}

/**
 * The entries with their address keys (a 422 names the first unusable one). Parsing is charged to
 * the organization's address-work budget (429 once spent: hostile text costs a hundred times an
 * ordinary address to read) and gives way to other requests by time.
 */
export async function keyedCustomerEntries(
  entries: readonly CustomerEntry[],
  orgId: string,
  addressWork: WorkBudget,
): Promise<KeyedCustomerEntry[]> {
  // 1000 addresses take 0.1-0.4 s of CPU to parse (hostile ones far more): other requests get in.
  const slicer = createLoopSlicer();
  const keyed: KeyedCustomerEntry[] = [];
  for (const entry of entries) {
    await slicer.giveWay();
    keyed.push({ ...entry, key: addressWork.spend(orgId, () => checkedCustomerKey(entry)) });
  }
  return keyed;
}

/**
 * A home a lead's win put on the list (`lead_won`) that is then registered another way (the owner's
 * Add, the CRM's customers webhook, a deal) takes that way's source: taking the win back then leaves
 * it on the list, as registered on purpose.
 */
const registeredOnPurpose = sql`source = CASE WHEN customers.source = 'lead_won' THEN EXCLUDED.source
                                              ELSE customers.source END`;

/**
 * Registers existing customers (their addresses are suppressed from future mailings). Upserts
 * on the normalized address: a repeat keeps the first raw address and source, and replaces the
 * notes only when new notes are sent. `added` counts addresses new to the org; `total` is the
 * org's count after the call; `stoppedCards` the cards that were waiting to be mailed to these
 * homes and now never will be.
 */
export async function registerCustomers(
  db: Queryable,
  orgId: string,
  entries: readonly KeyedCustomerEntry[],
  source: CustomerSource,
  now: Date,
): Promise<{ added: number; total: number; stoppedCards: number }> {
  const byKey = new Map<string, { address: string; notes: string | null }>();
  for (const { key, address, notes } of entries) {
    // One INSERT may touch a row once only: the last entry for an address wins.
    byKey.set(key, { address: address.trim(), notes: notes ?? byKey.get(key)?.notes ?? null });
  }
  let added = 0;
  let stoppedCards = 0;
  if (byKey.size > 0) {
    // Rows in one order for every request: two batches sharing addresses in different orders
    // would otherwise lock them in different orders and deadlock on PostgreSQL.
    const sorted = [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const values = sql.join(
      sorted.map(
        ([normalized, entry]) =>
          sql`(${orgId}::uuid, ${normalized}, ${entry.address}, ${entry.notes}, ${source})`,
      ),
      sql`, `,
    );
    const rows = await queryRows<{ inserted: boolean }>(
      db,
      sql`INSERT INTO customers (org_id, normalized_address, address, notes, source)
          VALUES ${values}
          ON CONFLICT (org_id, normalized_address)
          DO UPDATE SET notes = COALESCE(EXCLUDED.notes, customers.notes), ${registeredOnPurpose}
          RETURNING (xmax = 0) AS inserted`,
    );
    added = rows.filter((row) => row.inserted).length;
    const keys = sorted.map(([key]) => key);
    // A home that became a customer gets no more follow-up cards (where its automation says so),
    // and its cards waiting before print are suppressed now, not after someone approves them.
    const stoppedFollowUps = await stopFollowUps(
      db,
      { orgId, addressKeys: keys },
      [becameCustomer(now)],
      now,
    );
    const suppressed = await suppressWaitingCardsOfHomes(db, orgId, keys, now);
    stoppedCards = stoppedFollowUps.length + suppressed.length;
  }
  return { added, total: await countCustomers(db, orgId), stoppedCards };
}

/** Records one address as a customer (conversions, deal_won triggers); true when it was new. */
export async function recordCustomer(
  db: Queryable,
  orgId: string,
  address: string,
  normalizedAddress: string,
  source: CustomerSource,
): Promise<boolean> {
  const row = await queryOne<{ inserted: boolean }>(
    db,
    sql`INSERT INTO customers (org_id, normalized_address, address, source)
        VALUES (${orgId}::uuid, ${normalizedAddress}, ${address}, ${source})
        ON CONFLICT (org_id, normalized_address) DO UPDATE SET ${registeredOnPurpose}
          WHERE customers.source = 'lead_won' AND EXCLUDED.source <> 'lead_won'
        RETURNING (xmax = 0) AS inserted`,
  );
  return row?.inserted === true;
}

/**
 * Takes one home off the customers list (the app's Remove, owners only): automations may mail it
 * again. Cards stopped when it was added stay stopped, and the CRM reporting it again puts it back.
 * True when it was on the list.
 */
export async function removeCustomer(
  db: Queryable,
  orgId: string,
  normalizedAddress: string,
): Promise<boolean> {
  const row = await queryOne<{ normalized_address: string }>(
    db,
    sql`DELETE FROM customers WHERE org_id = ${orgId}::uuid AND normalized_address = ${normalizedAddress}
        RETURNING normalized_address`,
  );
  return row !== undefined;
}

/**
 * A lead marked won by mistake made its home a customer (`lead_won`): taken back, the home leaves the
 * list, unless another won deal at that address (the CRM's, another lead's) keeps it a customer or
 * it came onto the list another way first (then its source is not `lead_won`).
 */
export async function removeCustomerOfTakenBackWin(
  db: Queryable,
  orgId: string,
  normalizedAddress: string,
): Promise<void> {
  await db.execute(
    sql`DELETE FROM customers c
        WHERE c.org_id = ${orgId}::uuid AND c.normalized_address = ${normalizedAddress} AND c.source = 'lead_won'
          AND NOT EXISTS (SELECT 1 FROM conversions v
                          WHERE v.org_id = c.org_id AND v.normalized_address = c.normalized_address)
          AND NOT EXISTS (SELECT 1 FROM leads l
                          WHERE l.org_id = c.org_id AND l.normalized_address = c.normalized_address
                            AND l.won_at IS NOT NULL)`,
  );
}

export async function countCustomers(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ total: number | string }>(
    db,
    sql`SELECT count(*) AS total FROM customers WHERE org_id = ${orgId}::uuid`,
  );
  return Number(row?.total ?? 0);
}

/** The org's customers, newest first (operator API). */
export async function listCustomers(db: Queryable, orgId: string, limit: number): Promise<CustomerView[]> {
  const rows = await queryRows<CustomerRow>(
    db,
    sql`SELECT normalized_address, address, notes, source, created_at FROM customers
        WHERE org_id = ${orgId}::uuid ORDER BY created_at DESC, normalized_address LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    address: row.address,
    normalized_address: row.normalized_address,
    notes: row.notes,
    source: row.source,
    created_at: new Date(row.created_at).toISOString(),
  }));
}

/** The org's customers whose address contains `query` (any case), newest first (the app's search). */
export async function searchCustomers(
  db: Queryable,
  orgId: string,
  query: string | undefined,
  limit: number,
): Promise<CustomerView[]> {
  const pattern = query ? `%${query.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
  const rows = await queryRows<CustomerRow>(
    db,
    sql`SELECT normalized_address, address, notes, source, created_at FROM customers
        WHERE org_id = ${orgId}::uuid
          ${pattern ? sql`AND (address ILIKE ${pattern} OR normalized_address ILIKE ${pattern})` : sql``}
        ORDER BY created_at DESC, normalized_address LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    address: row.address,
    normalized_address: row.normalized_address,
    notes: row.notes,
    source: row.source,
    created_at: new Date(row.created_at).toISOString(),
  }));
}
