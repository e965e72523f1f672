import { randomUUID } from "node:crypto";
import type { Static, TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import type { JobCatalog, JobKind } from "./job-kind.ts";

export interface ClaimedJob {
  id: string;
  org_id: string | null;
  kind: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** A job about to be inserted: what `enqueueJob` writes, or a batch writer writes many of. */
export interface NewJobRow {
  id: string;
  orgId: string | null;
  kind: string;
  payloadJson: string;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
}

const payloadValidators = new WeakMap<TSchema, Validator>();

/** Job payloads are checked on every enqueue (the events hot path): compile each schema once. */
function payloadValidator(schema: TSchema): Validator {
  let validator = payloadValidators.get(schema);
  if (!validator) {
    validator = Compile(schema) as unknown as Validator;
    payloadValidators.set(schema, validator);
  }
  return validator;
}

/** Validates the payload against its kind and returns the row to insert. */
export function newJobRow<S extends TSchema>(
  kind: JobKind<S>,
  payload: Static<S>,
  options: { orgId?: string | null; now: Date; runAt?: Date },
): NewJobRow {
  const validator = payloadValidator(kind.payload);
  if (!validator.Check(payload)) {
    const [first] = validator.Errors(payload);
    throw new Error(`invalid ${kind.name} payload at ${first?.instancePath || "/"}: ${first?.message ?? ""}`);
  }
  return {
    id: randomUUID(),
    orgId: options.orgId ?? null,
    kind: kind.name,
    payloadJson: JSON.stringify(payload),
    maxAttempts: kind.maxAttempts,
    runAt: options.runAt ?? options.now,
    createdAt: options.now,
  };
}

/** The notification channel on which enqueueJob tells workers that a job is waiting. */
export const JOBS_READY_CHANNEL = "jobs_ready";

/**
 * Adds a job. Pass the caller's open transaction as `db` so the job commits (or rolls back)
 * with the rows it refers to.
 */
export async function enqueueJob<S extends TSchema>(
  db: Queryable,
  kind: JobKind<S>,
  payload: Static<S>,
  options: { orgId?: string | null; now: Date; runAt?: Date },
): Promise<string> {
  const job = newJobRow(kind, payload, options);
  // The notification (sent when the caller's transaction commits) wakes idle workers at once;
  // without a listener it is dropped, and workers still find the job on their next poll.
  await db.execute(
    sql`WITH inserted AS (
          INSERT INTO jobs (id, org_id, kind, payload, max_attempts, run_at, created_at, updated_at)
          VALUES (${job.id}::uuid, ${job.orgId}::uuid, ${job.kind}, ${job.payloadJson}::jsonb, ${job.maxAttempts}::int,
                  ${at(job.runAt)}, ${at(job.createdAt)}, ${at(job.createdAt)})
          RETURNING 1)
        SELECT pg_notify(${JOBS_READY_CHANNEL}, '') FROM inserted`,
  );
  return job.id;
}

/**
 * Takes up to `limit` due jobs of the catalog's kinds: pending ones whose time has come, and
 * running ones whose holder let the lock expire (a crashed worker). Urgent kinds (lead
 * deliveries) are taken first, the rest fill the remaining slots, each oldest first.
 */
export async function claimJobs(
  db: Queryable,
  catalog: JobCatalog,
  now: Date,
  limit: number,
): Promise<ClaimedJob[]> {
  const kinds = [...catalog.values()].map((entry) => entry.kind);
  if (kinds.length === 0) return [];
  await failAbandonedJobs(db, kindNames(kinds), now);
  const urgent = await claimDue(
    db,
    kinds.filter((kind) => kind.urgent),
    now,
    limit,
  );
  const rest = await claimDue(
    db,
    kinds.filter((kind) => !kind.urgent),
    now,
    limit - urgent.length,
  );
  return [...urgent, ...rest];
}

const kindNames = (kinds: readonly JobKind[]) =>
  sql.join(
    kinds.map((kind) => sql`${kind.name}`),
    sql`, `,
  );

/** One claim of up to `limit` due jobs of `kinds`. SKIP LOCKED lets workers claim side by side. */
async function claimDue(db: Queryable, kinds: JobKind[], now: Date, limit: number): Promise<ClaimedJob[]> {
  if (kinds.length === 0 || limit <= 0) return [];
  const names = kindNames(kinds);
  const timeouts = sql.join(
    kinds.map((kind) => sql`(${kind.name}::text, ${kind.timeoutSeconds}::int)`),
    sql`, `,
  );
  return queryRows<ClaimedJob>(
    db,
    sql`
    WITH due AS (
      SELECT id FROM jobs
      WHERE kind IN (${names})
        AND ((status = 'pending' AND run_at <= ${at(now)})
          OR (status = 'running' AND locked_until <= ${at(now)} AND attempts < max_attempts))
      ORDER BY run_at, created_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), timeouts(kind, seconds) AS (VALUES ${timeouts})
    UPDATE jobs SET
      status = 'running',
      attempts = jobs.attempts + 1,
      locked_until = ${at(now)} + make_interval(secs => timeouts.seconds),
      updated_at = ${at(now)}
    FROM due, timeouts
    WHERE jobs.id = due.id AND timeouts.kind = jobs.kind
    RETURNING jobs.id, jobs.org_id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts`,
  );
}

/** A job whose last allowed try died with its worker is failed, not retried forever. */
async function failAbandonedJobs(db: Queryable, names: ReturnType<typeof sql.join>, now: Date) {
  await db.execute(sql`
    UPDATE jobs SET status = 'failed', locked_until = NULL, updated_at = ${at(now)},
      last_error = 'the worker holding the last attempt stopped before finishing it'
    WHERE kind IN (${names}) AND status = 'running' AND locked_until <= ${at(now)}
      AND attempts >= max_attempts`);
}

/** Marks a try done; `attempts` fences out a worker whose lock had already been taken over. */
export async function completeJob(db: Queryable, job: ClaimedJob, now: Date): Promise<void> {
  await db.execute(sql`
    UPDATE jobs SET status = 'done', locked_until = NULL, last_error = NULL, updated_at = ${at(now)}
    WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}`);
}

/** Schedules the next try after the kind's backoff, or fails the job once its tries are spent. */
export async function failJob(
  db: Queryable,
  job: ClaimedJob,
  kind: JobKind,
  error: string,
  now: Date,
): Promise<"retry" | "failed"> {
  const exhausted = job.attempts >= job.max_attempts;
  const runAt = new Date(now.getTime() + kind.backoffSeconds(job.attempts) * 1000);
  await db.execute(sql`
    UPDATE jobs SET
      status = ${exhausted ? "failed" : "pending"},
      run_at = ${at(exhausted ? now : runAt)},
      locked_until = NULL,
      last_error = ${error.slice(0, 2000)},
      updated_at = ${at(now)}
    WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}`);
  return exhausted ? "failed" : "retry";
}
