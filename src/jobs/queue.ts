import { randomUUID } from "node:crypto";
import type { SQL } from "drizzle-orm";
import type { Static, TSchema } from "typebox";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { compiledSchema } from "../domain/compiled-schema.ts";
import { isoOf } from "../domain/iso-date.ts";
import type { JobCatalog, JobKind, RegisteredJob } from "./job-kind.ts";

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

/** Validates the payload against its kind and returns the row to insert. */
export function newJobRow<S extends TSchema>(
  kind: JobKind<S>,
  payload: Static<S>,
  /** `id`: the job's id when the caller has one (else a new UUID). */
  options: { orgId?: string | null; now: Date; runAt?: Date; id?: string },
): NewJobRow {
  // A capped kind is claimed org by org: a job without an org would never be claimed.
  if (kind.maxRunningPerOrg !== undefined && !options.orgId)
    throw new Error(`${kind.name} jobs need an org id`);
  // Job payloads are checked on every enqueue (the events hot path): compiled once per kind.
  const validator = compiledSchema(kind.payload);
  if (!validator.Check(payload)) {
    const [first] = validator.Errors(payload);
    throw new Error(`invalid ${kind.name} payload at ${first?.instancePath || "/"}: ${first?.message ?? ""}`);
  }
  return {
    id: options.id ?? randomUUID(),
    orgId: options.orgId ?? null,
    kind: kind.name,
    payloadJson: JSON.stringify(payload),
    maxAttempts: kind.maxAttempts,
    runAt: options.runAt ?? options.now,
    createdAt: options.now,
  };
}

/**
 * A job row as the batch inserts below read it from JSON (json_to_recordset: `j` in their SQL), as
 * JSON text, with `extra` fields. The payload is embedded as the JSON it already is, not as a
 * string holding it: encoding it a second time (escaping every quote) cost more than the rest of the
 * row on the events hot path. json_to_recordset reads an object into the `payload text` column as
 * its JSON text.
 */
export function jobJsonRowText(job: NewJobRow, extra?: Record<string, string>): string {
  const fields = JSON.stringify({
    id: job.id,
    org_id: job.orgId,
    kind: job.kind,
    max_attempts: job.maxAttempts,
    run_at: dateJson(job.runAt),
    created_at: dateJson(job.createdAt),
    ...extra,
  });
  return `${fields.slice(0, -1)},"payload":${job.payloadJson}}`;
}

/** What JSON.stringify writes for a Date (Date#toJSON), the instant formatted once per event. */
const dateJson = (date: Date): string | null => (Number.isNaN(date.getTime()) ? null : isoOf(date));

const JOBS_FROM_JSON_HEAD = `INSERT INTO jobs (id, org_id, kind, payload, max_attempts, run_at, created_at, updated_at)
  SELECT j.id, j.org_id, j.kind, j.payload::jsonb, j.max_attempts, j.run_at, j.created_at, j.created_at
  FROM json_to_recordset(`;

/** `extraColumns`: more fields of the JSON rows, for a `where` on `j` (e.g. the job's campaign). */
interface JobsFromJsonOptions {
  extraColumns?: string;
  where?: string;
}

const jobsFromJsonTail = ({ extraColumns, where }: JobsFromJsonOptions) => `)
    AS j(id uuid, org_id uuid, kind text, payload text, max_attempts int, run_at timestamptz,
         created_at timestamptz${extraColumns ? `, ${extraColumns}` : ""})${where ? `\n  WHERE ${where}` : ""}`;

/**
 * The text of an INSERT of jobs read from a JSON array of jobJsonRowText, for a hand-tuned statement
 * that writes its jobs with other rows (a CTE of the events path's group-committed batch); `rows`
 * is the array's place in that statement (e.g. `$2::json`). It sends no notification.
 */
export function insertJobsFromJsonText(rows: string, options: JobsFromJsonOptions = {}): string {
  return `${JOBS_FROM_JSON_HEAD}${rows}${jobsFromJsonTail(options)}`;
}

function insertJobsFromJson(rows: SQL): SQL {
  return sql`${sql.raw(JOBS_FROM_JSON_HEAD)}${rows}${sql.raw(jobsFromJsonTail({}))}`;
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
 * An INSERT of `job` (from newJobRow, with an org) unless a job of its kind for its org is pending
 * already, and only `when` holds (an SQL condition, e.g. on a CTE of the caller's statement): for
 * work that one pending job does for every reason to do it. It sends no notification. Two writers
 * at the same instant may both insert one; such a kind's handler must be idempotent.
 */
export function insertJobUnlessPending(job: NewJobRow, when: SQL = sql`TRUE`): SQL {
  return sql`INSERT INTO jobs (id, org_id, kind, payload, max_attempts, run_at, created_at, updated_at)
    SELECT ${job.id}::uuid, ${job.orgId}::uuid, ${job.kind}, ${job.payloadJson}::jsonb, ${job.maxAttempts}::int,
           ${at(job.runAt)}, ${at(job.createdAt)}, ${at(job.createdAt)}
    WHERE ${when} AND NOT EXISTS (
      SELECT 1 FROM jobs WHERE kind = ${job.kind} AND org_id = ${job.orgId}::uuid AND status = 'pending')`;
}

/**
 * Adds many jobs (rows from newJobRow) in one statement, inside the caller's transaction; one
 * notification wakes idle workers when any was written.
 */
export async function enqueueJobRows(db: Queryable, jobs: NewJobRow[]): Promise<void> {
  const rows = sql`${`[${jobs.map((job) => jobJsonRowText(job)).join(",")}]`}::json`;
  await db.execute(sql`
    WITH inserted AS (${insertJobsFromJson(rows)} RETURNING 1)
    SELECT pg_notify(${JOBS_READY_CHANNEL}, '') WHERE EXISTS (SELECT 1 FROM inserted)`);
}

/**
 * Jobs an ended process held (`running`, their locks not yet expired) are due now: called at the
 * start of the only process the embedded database can have (it holds DATA_DIR's lock), so every
 * running job is a dead predecessor's. A restart after a crash waited out their locks (up to 180 s)
 * before the cards in them went on. Answers how many were released.
 */
export async function releaseJobsOfEndedProcess(db: Queryable, now: Date): Promise<number> {
  const released = await queryRows<{ id: string }>(
    db,
    sql`UPDATE jobs SET locked_until = ${at(now)}, updated_at = ${at(now)}
        WHERE status = 'running' AND locked_until > ${at(now)} RETURNING id`,
  );
  return released.length;
}

/**
 * Takes up to `limit` due jobs of the catalog's kinds: pending ones whose time has come, and
 * running ones whose holder let the lock expire (a crashed worker). Urgent kinds (lead
 * deliveries) are taken first, the rest fill the remaining slots, each oldest first; a kind with
 * a per-org cap is taken org by org (claimPerOrg).
 */
export async function claimJobs(
  db: Queryable,
  catalog: JobCatalog,
  now: Date,
  limit: number,
): Promise<ClaimedJob[]> {
  const kinds = [...catalog.values()].map((entry) => entry.kind);
  if (kinds.length === 0) return [];
  await failAbandonedJobs(db, catalog, now);
  const claimed: ClaimedJob[] = [];
  for (const group of [kinds.filter((kind) => kind.urgent), kinds.filter((kind) => !kind.urgent)]) {
    for (const kind of group.filter((each) => each.maxRunningPerOrg !== undefined)) {
      claimed.push(...(await claimPerOrg(db, kind, now, limit - claimed.length)));
    }
    const uncapped = group.filter((kind) => kind.maxRunningPerOrg === undefined);
    claimed.push(...(await claimDue(db, uncapped, now, limit - claimed.length)));
  }
  return claimed;
}

const kindNames = (kinds: readonly JobKind[]) =>
  sql.join(
    kinds.map((kind) => sql`${kind.name}`),
    sql`, `,
  );

/**
 * One claim of up to `limit` due jobs of `kinds`. SKIP LOCKED lets workers claim side by side. The
 * statement is the function `claim_due_jobs` (migrations/0270_claim_due_jobs.sql), which pins its
 * plan to the ordered walk of the jobs_ready index whatever the table's statistics say.
 */
async function claimDue(db: Queryable, kinds: JobKind[], now: Date, limit: number): Promise<ClaimedJob[]> {
  if (kinds.length === 0 || limit <= 0) return [];
  const names = sql.param(kinds.map((kind) => kind.name));
  const timeouts = sql.param(kinds.map((kind) => kind.timeoutSeconds));
  return queryRows<ClaimedJob>(
    db,
    sql`SELECT * FROM claim_due_jobs(${names}::text[], ${timeouts}::integer[], ${at(now)}, ${limit}::integer)`,
  );
}

/**
 * A kind's name as an SQL literal rather than a parameter, so the planner can use a partial index
 * on that kind (migrations/0090_jobs_deliveries_by_org.sql) whatever plan it caches.
 */
function kindLiteral(kind: JobKind) {
  if (!/^[a-z][a-z0-9_]*$/.test(kind.name)) throw new Error(`job kind ${kind.name} is not a plain name`);
  return sql.raw(`'${kind.name}'`);
}

/**
 * One claim of up to `limit` due jobs of a kind capped per org: each org with jobs of the kind
 * waiting gets at most its cap less the jobs it has running (lock not expired), oldest first, and
 * the oldest of those candidates are taken. Jobs over the cap stay pending and untried. The walk
 * costs a few index probes per org with jobs waiting, never one org's backlog: the orgs are found
 * by skipping from one org id to the next, and each org's candidates are read in index order up
 * to its free places. The running counts come from the statement's snapshot, so two workers
 * claiming at the same moment pick the same oldest candidates and SKIP LOCKED splits them.
 */
async function claimPerOrg(db: Queryable, kind: JobKind, now: Date, limit: number): Promise<ClaimedJob[]> {
  const cap = kind.maxRunningPerOrg;
  if (cap === undefined || limit <= 0) return [];
  const name = kindLiteral(kind);
  return queryRows<ClaimedJob>(
    db,
    sql`
    WITH RECURSIVE orgs(org_id) AS (
      (SELECT org_id FROM jobs
       WHERE kind = ${name} AND status IN ('pending', 'running') AND org_id IS NOT NULL
       ORDER BY org_id LIMIT 1)
      UNION ALL
      SELECT (SELECT later.org_id FROM jobs later
              WHERE later.kind = ${name} AND later.status IN ('pending', 'running')
                AND later.org_id > orgs.org_id
              ORDER BY later.org_id LIMIT 1)
      FROM orgs WHERE orgs.org_id IS NOT NULL
    ), open AS MATERIALIZED (
      SELECT orgs.org_id, ${cap}::int - (
          SELECT count(*)::int FROM jobs held
          WHERE held.kind = ${name} AND held.org_id = orgs.org_id AND held.status = 'running'
            AND held.locked_until > ${at(now)}) AS free
      FROM orgs WHERE orgs.org_id IS NOT NULL
    ), candidates AS (
      SELECT waiting.* FROM open CROSS JOIN LATERAL (
        (SELECT job.id, job.run_at, job.created_at FROM jobs job
         WHERE job.kind = ${name} AND job.org_id = open.org_id
           AND job.status = 'pending' AND job.run_at <= ${at(now)}
         ORDER BY job.run_at, job.created_at, job.id LIMIT greatest(open.free, 0))
        UNION ALL
        (SELECT job.id, job.run_at, job.created_at FROM jobs job
         WHERE job.kind = ${name} AND job.org_id = open.org_id
           AND job.status = 'running' AND job.locked_until <= ${at(now)} AND job.attempts < job.max_attempts
         ORDER BY job.run_at, job.created_at, job.id LIMIT greatest(open.free, 0))
        ORDER BY run_at, created_at, id
        LIMIT greatest(open.free, 0)
      ) waiting
    ), picked AS (
      SELECT id FROM candidates ORDER BY run_at, created_at, id LIMIT ${limit}
    ), due AS (
      SELECT id FROM jobs
      WHERE id IN (SELECT id FROM picked) AND kind = ${name}
        AND ((status = 'pending' AND run_at <= ${at(now)})
          OR (status = 'running' AND locked_until <= ${at(now)} AND attempts < max_attempts))
      FOR UPDATE SKIP LOCKED
    )
    UPDATE jobs SET
      status = 'running',
      attempts = jobs.attempts + 1,
      locked_until = ${at(now)} + make_interval(secs => ${kind.timeoutSeconds}::int),
      updated_at = ${at(now)}
    FROM due
    WHERE jobs.id = due.id
    RETURNING jobs.id, jobs.org_id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts`,
  );
}

/**
 * A job whose last allowed try died with its worker is failed, not retried forever. The expired
 * locks are found first, through jobs_running_locks (a few rows: the jobs in hand), and only then
 * matched to the kinds: with the kinds in the same WHERE, a planner misled by stale statistics
 * read every queued job of those kinds through jobs_ready_by_kind (40-50 ms with ~20 k queued).
 */
async function failAbandonedJobs(db: Queryable, catalog: JobCatalog, now: Date) {
  const names = kindNames([...catalog.values()].map((entry) => entry.kind));
  const expired = sql`expired AS MATERIALIZED (
      SELECT id, kind FROM jobs
      WHERE status = 'running' AND locked_until <= ${at(now)} AND attempts >= max_attempts
    )`;
  // Most polls find none: only a find opens the transaction that gives each one's work up with it.
  const found = await queryRows(
    db,
    sql`WITH ${expired} SELECT 1 FROM expired WHERE kind IN (${names}) LIMIT 1`,
  );
  if (found.length === 0) return;
  await db.transaction(async (tx) => {
    const failed = await queryRows<{ id: string; kind: string; payload: unknown }>(
      tx,
      sql`
      WITH ${expired}
      UPDATE jobs SET status = 'failed', locked_until = NULL, updated_at = ${at(now)}, last_error = ${ABANDONED}
      FROM expired
      WHERE jobs.id = expired.id AND expired.kind IN (${names}) AND jobs.status = 'running'
      RETURNING jobs.id, jobs.kind, jobs.payload`,
    );
    for (const job of failed) await giveUpJobsWork(tx, catalog.get(job.kind), job, ABANDONED);
  });
}

/**
 * The kind's `giveUp` for a job just failed for good, in the caller's transaction. Its own failure
 * (a savepoint keeps the job's failure) is written to the job's last_error, seen in GET /admin/v1/jobs,
 * rather than keeping every other job from being claimed or failed.
 */
export async function giveUpJobsWork(
  tx: Queryable,
  entry: RegisteredJob | undefined,
  job: { id: string; payload: unknown },
  reason: string,
): Promise<void> {
  if (!entry?.giveUp) return;
  const giveUp = entry.giveUp;
  try {
    await tx.transaction((savepoint) => giveUp(savepoint, job.payload, reason));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    await tx.execute(sql`
      UPDATE jobs SET last_error = left(${`${reason}; closing its work failed too: ${why}`}, 2000)
      WHERE id = ${job.id}`);
  }
}

/** Why a job whose worker stopped in its last try failed. */
const ABANDONED = "the worker holding the last attempt stopped before finishing it";

/** True when a job of `kind` whose payload holds `fields` is still to run (pending, or running). */
export async function hasLiveJob(
  db: Queryable,
  kind: JobKind,
  orgId: string,
  fields: Record<string, string>,
): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`SELECT 1 FROM jobs
        WHERE kind = ${kind.name} AND status IN ('pending', 'running') AND org_id = ${orgId}::uuid
          AND payload @> ${JSON.stringify(fields)}::jsonb
        LIMIT 1`,
  );
  return rows.length > 0;
}

/** Marks a try done; `attempts` fences out a worker whose lock had already been taken over. */
export async function completeJob(db: Queryable, job: ClaimedJob, now: Date): Promise<void> {
  await db.execute(sql`
    UPDATE jobs SET status = 'done', locked_until = NULL, last_error = NULL, updated_at = ${at(now)}
    WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}`);
}

/**
 * Schedules the next try after the kind's backoff, or fails the job once its tries are spent;
 * "taken over" when another worker had taken the job over (this try's lock expired).
 */
export async function failJob(
  db: Queryable,
  job: ClaimedJob,
  kind: JobKind,
  error: string,
  now: Date,
): Promise<"retry" | "failed" | "taken over"> {
  const exhausted = job.attempts >= job.max_attempts;
  const runAt = new Date(now.getTime() + kind.backoffSeconds(job.attempts) * 1000);
  const changed = await queryRows(
    db,
    sql`
    UPDATE jobs SET
      status = ${exhausted ? "failed" : "pending"},
      run_at = ${at(exhausted ? now : runAt)},
      locked_until = NULL,
      last_error = ${error.slice(0, 2000)},
      updated_at = ${at(now)}
    WHERE id = ${job.id} AND status = 'running' AND attempts = ${job.attempts}
    RETURNING id`,
  );
  if (changed.length === 0) return "taken over";
  return exhausted ? "failed" : "retry";
}

/**
 * Fails the running job now, with no further tries: the worker's completion then finds it no
 * longer running and leaves it failed, visible with its reason in GET /admin/v1/jobs.
 */
export async function failJobWithoutRetry(db: Queryable, jobId: string, reason: string, now: Date) {
  await db.execute(sql`
    UPDATE jobs SET status = 'failed', locked_until = NULL, last_error = ${reason.slice(0, 2000)},
      updated_at = ${now.toISOString()}::timestamptz
    WHERE id = ${jobId} AND status = 'running'`);
}
