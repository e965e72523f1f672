/**
 * PGlite runs PostgreSQL in single-user mode, where no autovacuum runs. Without one, the old
 * versions of the rows the service updates (each live event overwrites the oldest event sample;
 * jobs, mail pieces, key use) and the rows it deletes are never reclaimed: the data directory
 * grows with every event, and the planner never gets statistics. This timer stands in for autovacuum on the
 * embedded database. A plain VACUUM takes no exclusive lock and, thanks to the visibility map,
 * reads only the pages changed since the last one; on PGlite it still holds the one connection
 * while it runs, so it runs every few minutes rather than continuously.
 *
 * PostgreSQL (DATABASE_URL) has its own autovacuum; this is never started there.
 */
import type { Logger } from "pino";
import type { Database } from "./database.ts";

export const EMBEDDED_VACUUM_INTERVAL_MS = 5 * 60_000;

export interface EmbeddedVacuum {
  /** One pass now (a pass already running is awaited instead of doubled). */
  runOnce(): Promise<void>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

export function startEmbeddedVacuum(deps: {
  database: Pick<Database, "run">;
  logger: Logger;
  intervalMs?: number;
}): EmbeddedVacuum {
  let running: Promise<void> | undefined;

  async function pass() {
    const started = Date.now();
    try {
      await deps.database.run({ name: "embedded_vacuum", text: "VACUUM (ANALYZE)", values: [] });
      deps.logger.debug({ ms: Date.now() - started }, "embedded database vacuumed");
    } catch (error) {
      deps.logger.warn({ err: error }, "embedded database vacuum failed; will retry at the next interval");
    }
  }

  const runOnce = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runOnce(), deps.intervalMs ?? EMBEDDED_VACUUM_INTERVAL_MS);
  timer.unref();

  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
