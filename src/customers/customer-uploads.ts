import { lockUntilCommit, type Queryable, queryOne, sql } from "../db/database.ts";
import { type CustomerEntry, type CustomerSource, registerCustomers } from "./customers.ts";

export interface CustomerUploadResult {
  added: number;
  total: number;
  rows: number;
}

/** The answer of an earlier upload with this request id, if there was one. */
export async function findCustomerUpload(
  db: Queryable,
  orgId: string,
  requestId: string,
): Promise<CustomerUploadResult | undefined> {
  const earlier = await queryOne<{ added: number; total: number; row_count: number }>(
    db,
    sql`SELECT added, total, row_count FROM customer_uploads
        WHERE org_id = ${orgId}::uuid AND request_id = ${requestId}::uuid`,
  );
  return earlier && { added: earlier.added, total: earlier.total, rows: earlier.row_count };
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
  entries: readonly CustomerEntry[],
  source: CustomerSource,
  now: Date,
): Promise<CustomerUploadResult> {
  if (requestId === undefined) {
    const counts = await registerCustomers(db, orgId, entries, source, now);
    return { ...counts, rows: entries.length };
  }
  return db.transaction(async (tx) => {
    await lockUntilCommit(tx, `customer-upload:${orgId}:${requestId}`);
    const earlier = await findCustomerUpload(tx, orgId, requestId);
    if (earlier) return earlier;
    const counts = await registerCustomers(tx, orgId, entries, source, now);
    const result = { ...counts, rows: entries.length };
    await tx.execute(
      sql`INSERT INTO customer_uploads (org_id, request_id, added, total, row_count)
          VALUES (${orgId}::uuid, ${requestId}::uuid, ${result.added}, ${result.total}, ${result.rows})`,
    );
    return result;
  });
}
