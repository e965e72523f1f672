import type { Static, TSchema } from "typebox";
import type { Queryable } from "../db/database.ts";

/**
 * One kind of background work: its payload schema (ids, not data), how often it may be tried,
 * how long to wait between tries, and how long one try may hold the job before another worker
 * may take it over.
 */
export interface JobKind<S extends TSchema = TSchema> {
  readonly name: string;
  readonly payload: S;
  readonly maxAttempts: number;
  /** Seconds to wait before try number `attempt + 1`, after try `attempt` failed. */
  backoffSeconds(attempt: number): number;
  readonly timeoutSeconds: number;
  /**
   * Claimed before every other kind: a lead's webhook must not wait behind a backlog of mail
   * work (a burst of CRM events queues thousands of pieces in minutes).
   */
  readonly urgent?: boolean;
  /**
   * At most this many jobs of the kind run at once for one organization, counted in the database
   * across every worker: one tenant's hanging webhook receivers must not hold every slot. Jobs
   * over the cap stay pending (no attempt spent) until the org's running ones finish. Every job of
   * such a kind carries an org id; a partial index on the kind keeps the claim off the backlog
   * (see migrations/0090_jobs_deliveries_by_org.sql).
   */
  readonly maxRunningPerOrg?: number;
  /**
   * Automation work (a card on its way to the printer): not claimed while the platform kill
   * switch pauses automations, so pulling it stops queued mail too, not only new events.
   */
  readonly heldWhilePaused?: boolean;
}

export function defineJobKind<S extends TSchema>(kind: JobKind<S>): JobKind<S> {
  return kind;
}

export const exponentialBackoff =
  (baseSeconds: number, maxSeconds: number) =>
  (attempt: number): number =>
    Math.min(maxSeconds, baseSeconds * 2 ** Math.max(0, attempt - 1));

export interface JobContext {
  jobId: string;
  orgId: string | null;
  attempt: number;
  /** Aborted when the try exceeds the kind's timeout. */
  signal: AbortSignal;
}

/**
 * What a kind does when its job is given up for good (its last try threw or timed out, or the worker
 * holding it stopped): closes what the job was for, so nothing it carried waits for ever unexplained.
 * Runs in the transaction that marks the job failed.
 */
export type GiveUp<S extends TSchema = TSchema> = (
  db: Queryable,
  payload: Static<S>,
  reason: string,
) => Promise<void>;

export interface RegisteredJob {
  kind: JobKind;
  run(payload: unknown, context: JobContext): Promise<void>;
  giveUp?: GiveUp;
}

export function handleJob<S extends TSchema>(
  kind: JobKind<S>,
  run: (payload: Static<S>, context: JobContext) => Promise<void>,
  giveUp?: GiveUp<S>,
): RegisteredJob {
  return {
    kind,
    run: (payload, context) => run(payload as Static<S>, context),
    ...(giveUp && { giveUp: (db, payload, reason) => giveUp(db, payload as Static<S>, reason) }),
  };
}

/** The kinds a worker process runs; jobs of other kinds are left for processes that know them. */
export type JobCatalog = ReadonlyMap<string, RegisteredJob>;

export function createJobCatalog(handlers: RegisteredJob[]): JobCatalog {
  const catalog = new Map<string, RegisteredJob>();
  for (const handler of handlers) {
    if (catalog.has(handler.kind.name)) throw new Error(`job kind ${handler.kind.name} registered twice`);
    catalog.set(handler.kind.name, handler);
  }
  return catalog;
}
