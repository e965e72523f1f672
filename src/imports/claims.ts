import { randomUUID } from "node:crypto";
import { type Queryable, queryOne, sql } from "../db/database.ts";

/**
 * A keyed import holds its Idempotency-Key through a unique `imports` row in status `processing`,
 * committed on its own before any geocoding. A claim older than this is a process that died
 * mid-import; the next request with the key takes it over.
 */
export const ABANDONED_CLAIM_SECONDS = 120;
/** What a client waiting on a running import is told to wait before retrying. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 5;

export type ClaimOutcome =
  | { kind: "claimed"; importId: string }
  | { kind: "in_progress" }
  | {
      kind: "staged";
      importId: string;
      staged: number;
      skippedNoAddress: number;
      skippedGeocodeFailed: number;
    };

interface ImportRow {
  id: string;
  status: "processing" | "staged";
  staged: number;
  skipped_no_address: number;
  skipped_geocode_failed: number;
}

/**
 * Claims the key atomically. `ON CONFLICT DO NOTHING` waits for a concurrent uncommitted claim
 * and then does nothing, so exactly one request wins; the others read the winner's row.
 */
export async function claimKey(
  db: Queryable,
  input: { orgId: string; key: string; source: string; now: Date },
): Promise<ClaimOutcome> {
  const { orgId, key, source, now } = input;
  const at = now.toISOString();
  const inserted = await queryOne<{ id: string }>(
    db,
    sql`INSERT INTO imports (org_id, id, source, idempotency_key, status, claimed_at, created_at)
        VALUES (${orgId}, ${randomUUID()}, ${source}, ${key}, 'processing', ${at}::timestamptz, ${at}::timestamptz)
        ON CONFLICT (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING id`,
  );
  if (inserted) return { kind: "claimed", importId: inserted.id };

  const existing = await queryOne<ImportRow>(
    db,
    sql`SELECT id, status, staged, skipped_no_address, skipped_geocode_failed
        FROM imports WHERE org_id = ${orgId} AND idempotency_key = ${key}`,
  );
  if (existing?.status === "staged") return stagedOutcome(existing);
  // Released between our insert and our read: claim again (one retry is enough to make progress).
  if (!existing) return claimAgain(db, input);
  return takeOverAbandoned(db, input);
}

async function claimAgain(
  db: Queryable,
  input: { orgId: string; key: string; source: string; now: Date },
): Promise<ClaimOutcome> {
  const at = input.now.toISOString();
  const inserted = await queryOne<{ id: string }>(
    db,
    sql`INSERT INTO imports (org_id, id, source, idempotency_key, status, claimed_at, created_at)
        VALUES (${input.orgId}, ${randomUUID()}, ${input.source}, ${input.key}, 'processing', ${at}::timestamptz, ${at}::timestamptz)
        ON CONFLICT (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING id`,
  );
  return inserted ? { kind: "claimed", importId: inserted.id } : { kind: "in_progress" };
}

/**
 * A stale claim is taken over in one conditional UPDATE, under a new id: should the original
 * process still be alive, its final write (which names its own id) finds nothing and rolls back.
 */
async function takeOverAbandoned(
  db: Queryable,
  input: { orgId: string; key: string; source: string; now: Date },
): Promise<ClaimOutcome> {
  const cutoff = new Date(input.now.getTime() - ABANDONED_CLAIM_SECONDS * 1000).toISOString();
  const taken = await queryOne<{ id: string }>(
    db,
    sql`UPDATE imports
        SET id = ${randomUUID()}, source = ${input.source}, claimed_at = ${input.now.toISOString()}::timestamptz
        WHERE org_id = ${input.orgId} AND idempotency_key = ${input.key}
          AND status = 'processing' AND claimed_at < ${cutoff}::timestamptz
        RETURNING id`,
  );
  return taken ? { kind: "claimed", importId: taken.id } : { kind: "in_progress" };
}

/** The finished batch staged under this key, if any (a replay answers it before reading the body). */
export async function findStagedBatch(
  db: Queryable,
  orgId: string,
  key: string,
): Promise<Extract<ClaimOutcome, { kind: "staged" }> | undefined> {
  const row = await queryOne<ImportRow>(
    db,
    sql`SELECT id, status, staged, skipped_no_address, skipped_geocode_failed
        FROM imports WHERE org_id = ${orgId} AND idempotency_key = ${key} AND status = 'staged'`,
  );
  return row && stagedOutcome(row);
}

const stagedOutcome = (row: ImportRow) => ({
  kind: "staged" as const,
  importId: row.id,
  staged: row.staged,
  skippedNoAddress: row.skipped_no_address,
  skippedGeocodeFailed: row.skipped_geocode_failed,
});

/** Deletes our claim so nothing stays behind after a failure (and the key is free again). */
export async function releaseClaim(db: Queryable, orgId: string, importId: string): Promise<void> {
  await db.execute(
    sql`DELETE FROM imports WHERE org_id = ${orgId} AND id = ${importId} AND status = 'processing'`,
  );
}
