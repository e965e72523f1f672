import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { retryWhileUnavailable } from "../db/retry-while-unavailable.ts";
import { briefCause } from "../errors.ts";
import type { JobCatalog, RegisteredJob } from "./job-kind.ts";
import { type ClaimedJob, claimJobs, completeJob, failJob, giveUpJobsWork } from "./queue.ts";

export interface WorkerDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  /** The platform kill switch: while it answers true, kinds `heldWhilePaused` are not claimed. */
  automationsPaused?: () => Promise<boolean>;
}

export interface WorkerOptions {
  /** How long an idle worker waits before looking for due jobs again. */
  pollIntervalMs?: number;
  /** Jobs run at once (default 16). */
  concurrency?: number;
}

export interface Worker {
  /** Looks for due jobs now instead of at the next poll (new jobs were enqueued). */
  wake(): void;
  /** Stops claiming, lets the jobs in hand finish (each bounded by its timeout), then resolves. */
  stop(): Promise<void>;
}

class JobTimeoutError extends Error {}

/** The least time writing a job's outcome waits out a database outage. */
const OUTCOME_BUDGET_MS = 15_000;

/**
 * How long a job's outcome write may wait out an outage: until its lock is about to expire (then
 * another worker may take the job over, and the write, fenced by `attempts`, would be moot).
 * Giving up earlier would leave a finished delivery 'running' until the lock expired and then send
 * it again.
 */
function outcomeBudgetMs(lockedAtMs: number, timeoutSeconds: number): number {
  const lockLeftMs = lockedAtMs + timeoutSeconds * 1000 - Date.now() - 1_000;
  return Math.max(OUTCOME_BUDGET_MS, lockLeftMs);
}

async function runOne(deps: WorkerDeps, entry: RegisteredJob, job: ClaimedJob) {
  const { kind } = entry;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new JobTimeoutError(`${kind.name} exceeded its ${kind.timeoutSeconds} s timeout`));
    }, kind.timeoutSeconds * 1000);
  });
  const log = deps.logger.child({ jobId: job.id, kind: kind.name, attempt: job.attempts });
  const lockedAtMs = Date.now();
  const recordOutcome = <T>(write: () => Promise<T>) =>
    retryWhileUnavailable(write, {
      budgetMs: outcomeBudgetMs(lockedAtMs, kind.timeoutSeconds),
      onRetry: (error, attempt) =>
        attempt === 1 && log.warn({ cause: briefCause(error) }, "job outcome waits for the database"),
    });
  try {
    await Promise.race([
      entry.run(job.payload, {
        jobId: job.id,
        orgId: job.org_id,
        attempt: job.attempts,
        signal: controller.signal,
      }),
      timeout,
    ]);
    // A finished job left 'running' by an outage would wait out its whole lock and run again.
    await recordOutcome(() => completeJob(deps.db, job, deps.clock.now()));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const verdict = await recordOutcome(() => failOrGiveUp(deps, entry, job, message));
    if (verdict === "failed") log.error({ err: error }, "job failed for good");
    else if (verdict === "retry") log.warn({ err: error }, "job failed; will retry");
    else log.warn({ err: error }, "job failed after another worker took it over; its outcome is that one's");
  } finally {
    clearTimeout(timer);
  }
}

/** Fails the try; the last one fails the job and gives its work up, in one transaction. */
function failOrGiveUp(deps: WorkerDeps, entry: RegisteredJob, job: ClaimedJob, message: string) {
  const now = deps.clock.now();
  if (job.attempts < job.max_attempts || !entry.giveUp)
    return failJob(deps.db, job, entry.kind, message, now);
  return deps.db.transaction(async (tx) => {
    const verdict = await failJob(tx, job, entry.kind, message, now);
    if (verdict === "failed") await giveUpJobsWork(tx, entry, job, message);
    return verdict;
  });
}

/** The kinds to claim now: all of them, or those not held while automations are paused. */
async function claimableKinds(deps: WorkerDeps, catalog: JobCatalog): Promise<JobCatalog> {
  if (!(await deps.automationsPaused?.())) return catalog;
  return new Map([...catalog].filter(([, entry]) => !entry.kind.heldWhilePaused));
}

/** Claims and runs one batch; returns how many jobs it ran. */
async function runBatch(deps: WorkerDeps, catalog: JobCatalog, batchSize: number) {
  const jobs = await claimJobs(deps.db, await claimableKinds(deps, catalog), deps.clock.now(), batchSize);
  await Promise.all(
    jobs.map((job) => {
      const entry = catalog.get(job.kind);
      return entry ? runOne(deps, entry, job) : Promise.resolve();
    }),
  );
  return jobs.length;
}

/** Runs due jobs until none is left; returns how many ran. Tests and one-shot tools use it. */
export async function runPendingJobs(
  deps: WorkerDeps,
  catalog: JobCatalog,
  options: { batchSize?: number } = {},
): Promise<number> {
  let total = 0;
  for (;;) {
    const ran = await runBatch(deps, catalog, options.batchSize ?? 10);
    if (ran === 0) return total;
    total += ran;
  }
}

/**
 * A polling worker loop; any number of processes may run one against the same database.
 *
 * Up to `concurrency` jobs run at once, and the loop claims again as soon as half the slots are
 * free: a slow job (a receiver that takes its time, a provider near its timeout) holds only its own
 * slot, never a whole batch. When the queue is empty it looks again every `pollIntervalMs`, or as
 * soon as `wake()` is called.
 */
export function startWorker(deps: WorkerDeps, catalog: JobCatalog, options: WorkerOptions = {}): Worker {
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const refillAt = Math.max(1, Math.floor(concurrency / 2));
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let endPause: (() => void) | undefined;
  // A wake-up that arrives while the loop is claiming must not be lost: the next pause is skipped.
  let wokenSinceClaim = false;

  const pause = () =>
    new Promise<void>((resolve) => {
      if (wokenSinceClaim) return resolve();
      const timer = setTimeout(resolve, pollIntervalMs);
      endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const start = (job: ClaimedJob) => {
    const entry = catalog.get(job.kind);
    if (!entry) return;
    const task = runOne(deps, entry, job)
      // The outcome could not be written (the database went away): the job's lock expires and
      // another round runs it again, which every job kind tolerates.
      .catch((error: unknown) =>
        deps.logger.warn({ cause: briefCause(error), jobId: job.id }, "job outcome not recorded"),
      )
      .finally(() => {
        inFlight.delete(task);
        // A finished job of a kind capped per org frees a place its org's waiting jobs may take
        // now: claim again at once rather than at the next poll (one org's deliveries would
        // otherwise go out in rounds of the cap every 250 ms).
        if (entry.kind.maxRunningPerOrg !== undefined) wake();
      });
    inFlight.add(task);
  };

  let held = false;
  const claimable = async () => {
    const kinds = await claimableKinds(deps, catalog);
    if (held !== (kinds !== catalog)) {
      held = kinds !== catalog;
      deps.logger.info(
        held
          ? "automations paused platform-wide: queued mail is held until they resume"
          : "automations resumed: queued mail goes out again",
      );
    }
    return kinds;
  };

  // Claims fail four times a second while the database is away: one line when that starts, one
  // every 30 s while it lasts, one when claims succeed again.
  let failingSince: number | undefined;
  let lastFailureLog = 0;
  const claimFreeSlots = async () => {
    const free = concurrency - inFlight.size;
    wokenSinceClaim = false;
    try {
      const claimed = await claimJobs(deps.db, await claimable(), deps.clock.now(), free);
      if (failingSince !== undefined) {
        deps.logger.info({ failedForMs: Date.now() - failingSince }, "job worker claims jobs again");
        failingSince = undefined;
      }
      for (const job of claimed) start(job);
      return claimed.length === free;
    } catch (error) {
      const now = Date.now();
      failingSince ??= now;
      if (now === failingSince || now - lastFailureLog >= 30_000) {
        lastFailureLog = now;
        deps.logger.warn(
          { err: error, failingForMs: now - failingSince },
          "job worker could not claim jobs; retrying",
        );
      }
      return false;
    }
  };

  const loop = (async () => {
    deps.logger.info({ kinds: [...catalog.keys()], concurrency }, "job worker started");
    while (!stopping.signal.aborted) {
      if (concurrency - inFlight.size < refillAt) {
        await Promise.race(inFlight);
        continue;
      }
      const mayHaveMore = await claimFreeSlots();
      if (!mayHaveMore && !stopping.signal.aborted) await pause();
    }
    await Promise.all(inFlight);
    deps.logger.info("job worker stopped");
  })();

  function wake() {
    wokenSinceClaim = true;
    endPause?.();
  }

  return {
    wake,
    stop: async () => {
      stopping.abort();
      endPause?.();
      await loop;
    },
  };
}
