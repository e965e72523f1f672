/**
 * Finished jobs are history: the pieces, leads and deliveries they worked on keep their own
 * records. Without pruning the jobs table grows with every event and lead for as long as the
 * service runs (and with it every index the claims read). Done jobs are kept a week, failed ones
 * a month (operators read their reasons in GET /admin/v1/jobs?status=failed), then deleted in
 * small batches so that no statement holds the database (PGlite's one connection) for long.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { type PeriodicTask, startPeriodicTask } from "../db/periodic-task.ts";

const DAY_MS = 86_400_000;

export const JOB_RETENTION_DAYS = { done: 7, failed: 30 } as const;
export const JOB_PRUNING_INTERVAL_MS = 3_600_000;
const BATCH_SIZE = 1000;

type FinishedStatus = keyof typeof JOB_RETENTION_DAYS;

/** Deletes one batch of one status finished before the cutoff; returns how many went. */
async function deleteBatch(db: Queryable, status: FinishedStatus, cutoff: Date, batchSize: number) {
  const rows = await queryRows<{ deleted: number }>(
    db,
    sql`WITH gone AS (
          DELETE FROM jobs WHERE id IN (
            SELECT id FROM jobs
            WHERE status = ${status} AND updated_at < ${cutoff.toISOString()}::timestamptz
            ORDER BY updated_at
            LIMIT ${batchSize}
            FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS deleted FROM gone`,
  );
  return Number(rows[0]?.deleted ?? 0);
}

/** Deletes every job finished longer ago than its status's retention; returns how many. */
export async function pruneFinishedJobs(
  db: Queryable,
  now: Date,
  options: { batchSize?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  let total = 0;
  for (const status of Object.keys(JOB_RETENTION_DAYS) as FinishedStatus[]) {
    const cutoff = new Date(now.getTime() - JOB_RETENTION_DAYS[status] * DAY_MS);
    for (;;) {
      const deleted = await deleteBatch(db, status, cutoff, batchSize);
      total += deleted;
      if (deleted < batchSize) break;
      // Between batches, requests sharing the process (and PGlite's connection) get their turn.
      await nextTurn();
    }
  }
  return total;
}

export type JobPruning = PeriodicTask;

/** Prunes once shortly after start, then every `intervalMs`; a failed pass is logged and retried next time. */
export function startJobPruning(
  deps: { db: Queryable; clock: Clock; logger: Logger },
  options: { intervalMs?: number; firstPassAfterMs?: number } = {},
): JobPruning {
  async function pass() {
    try {
      const deleted = await pruneFinishedJobs(deps.db, deps.clock.now());
      if (deleted > 0) deps.logger.info({ deleted }, "pruned finished jobs past their retention");
    } catch (error) {
      deps.logger.warn({ err: error }, "pruning finished jobs failed; trying again at the next pass");
    }
  }

  return startPeriodicTask(pass, {
    intervalMs: options.intervalMs ?? JOB_PRUNING_INTERVAL_MS,
    firstPassAfterMs: options.firstPassAfterMs ?? 60_000,
  });
}
