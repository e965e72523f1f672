import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import type { JobCatalog, RegisteredJob } from "./job-kind.ts";
import { type ClaimedJob, claimJobs, completeJob, failJob } from "./queue.ts";

export interface WorkerDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
}

export interface WorkerOptions {
  /** How long an idle worker waits before looking for due jobs again. */
  pollIntervalMs?: number;
  /** Jobs claimed (and run concurrently) per round. */
  batchSize?: number;
}

export interface Worker {
  /** Stops claiming, lets the jobs in hand finish (each bounded by its timeout), then resolves. */
  stop(): Promise<void>;
}

class JobTimeoutError extends Error {}

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
    await completeJob(deps.db, job, deps.clock.now());
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const verdict = await failJob(deps.db, job, kind, message, deps.clock.now());
    if (verdict === "failed") log.error({ err: error }, "job failed for good");
    else log.warn({ err: error }, "job failed; will retry");
  } finally {
    clearTimeout(timer);
  }
}

/** Claims and runs one batch; returns how many jobs it ran. */
async function runBatch(deps: WorkerDeps, catalog: JobCatalog, batchSize: number) {
  const jobs = await claimJobs(deps.db, catalog, deps.clock.now(), batchSize);
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

/** A polling worker loop; any number of processes may run one against the same database. */
export function startWorker(deps: WorkerDeps, catalog: JobCatalog, options: WorkerOptions = {}): Worker {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const batchSize = options.batchSize ?? 10;
  const stopping = new AbortController();
  let wake: (() => void) | undefined;

  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollIntervalMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = (async () => {
    deps.logger.info({ kinds: [...catalog.keys()] }, "job worker started");
    while (!stopping.signal.aborted) {
      let ran = 0;
      try {
        ran = await runBatch(deps, catalog, batchSize);
      } catch (error) {
        deps.logger.warn({ err: error }, "job worker could not claim jobs; retrying");
      }
      if (ran === 0 && !stopping.signal.aborted) await idle();
    }
    deps.logger.info("job worker stopped");
  })();

  return {
    stop: async () => {
      stopping.abort();
      wake?.();
      await loop;
    },
  };
}
