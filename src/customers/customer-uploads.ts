import { lockUntilCommit, type Queryable, queryOne, sql } from "../db/database.ts";
import { type CustomerSource, type KeyedCustomerEntry, registerCustomers } from "./customers.ts";

/** An upload's answer; `stopped_cards` counts the cards waiting to be mailed to its homes that never will be. */
export interface CustomerUploadResult {
  added: number;
  total: number;
  rows: number;
  stopped_cards: number;
}

/** The answer of an earlier upload with this request id, if there was one. */
export async function findCustomerUpload(
  db: Queryable,
  orgId: string,
  requestId: string,
): Promise<CustomerUploadResult | undefined> {
  const earlier = await queryOne<{ added: number; total: number; row_count: number; stopped_cards: number }>(
    db,
    sql`SELECT added, total, row_count, stopped_cards FROM customer_uploads
        WHERE org_id = ${orgId}::uuid AND request_id = ${requestId}::uuid`,
  );
  return (
    earlier && {
      added: earlier.added,
      total: earlier.total,
      rows: earlier.row_count,
      stopped_cards: earlier.stopped_cards,
    }
  );
}

/**
 * Registers an upload's customers once per `requestId` (the app makes one per chosen file): a
 * retry with the same id answers the first upload's counts and registers nothing,
 * where a second registration would report every address as not new. Retries racing each other
 * take turns on the id's lock, so one registers and the others replay it. Without an id, the
 * entries are registered as before.
 */
export async function registerCustomerUpload(
  db: Queryable,
  orgId: string,
  requestId: string | undefined,
  entries: readonly KeyedCustomerEntry[],
  source: CustomerSource,
  now: Date,
): Promise<CustomerUploadResult> {
  const register = async (tx: Queryable): Promise<CustomerUploadResult> => {
    const { added, total, stoppedCards } = await registerCustomers(tx, orgId, entries, source, now);
    return { added, total, rows: entries.length, stopped_cards: stoppedCards };
  };
  if (requestId === undefined) return register(db);
  return db.transaction(async (tx) => {
    await lockUntilCommit(tx, `customer-upload:${orgId}:${requestId}`);
    const earlier = await findCustomerUpload(tx, orgId, requestId);
    if (earlier) return earlier;
    const result = await register(tx);
    await tx.execute(
      sql`INSERT INTO customer_uploads (org_id, request_id, added, total, row_count, stopped_cards)
          VALUES (${orgId}::uuid, ${requestId}::uuid, ${result.added}, ${result.total}, ${result.rows},
                  ${result.stopped_cards})`,
    );
    return result;
  });
}
