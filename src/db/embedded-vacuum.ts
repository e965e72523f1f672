/**
 * PGlite runs PostgreSQL in single-user mode, where no autovacuum runs. Without one, the old
 * versions of the rows the service updates (each live event overwrites the oldest event sample;
 * jobs, mail pieces, key use) and the rows it deletes are never reclaimed: the data directory
 * grows with every event, and the planner never gets statistics. This timer stands in for autovacuum on the
 * embedded database. A plain VACUUM takes no exclusive lock and, thanks to the visibility map,
 * reads only the pages changed since the last one; on PGlite it still holds the one connection
 * (and the event loop) while it runs, so it runs every few minutes rather than continuously, one
 * table per statement with a loop turn between (one database-wide VACUUM (ANALYZE) froze every
 * request for over a second after 130 k events), and ANALYZE only tables whose row estimate moved
 * by more than autovacuum's threshold (50 rows + 10 %) since this process last analyzed them.
 *
 * PostgreSQL (DATABASE_URL) has its own autovacuum; this is never started there.
 */
import type { Logger } from "pino";
import type { Database } from "./database.ts";
import { type PeriodicTask, startPeriodicTask } from "./periodic-task.ts";

export const EMBEDDED_VACUUM_INTERVAL_MS = 5 * 60_000;

interface TableEstimate {
  name: string;
  rows: string | number;
}

/** The service's own tables with their row estimates (reltuples: -1 until first vacuumed). */
const TABLES_SQL = `
SELECT c.relname AS name, greatest(c.reltuples, 0)::bigint AS rows
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind = 'r'
ORDER BY c.relname`;

/** Autovacuum's analyze rule: 50 rows plus 10 % of the table changed since the last ANALYZE. */
export function needsAnalyze(rowsWhenAnalyzed: number | undefined, rowsNow: number): boolean {
  if (rowsWhenAnalyzed === undefined) return true;
  return Math.abs(rowsNow - rowsWhenAnalyzed) > 50 + 0.1 * rowsWhenAnalyzed;
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

export type EmbeddedVacuum = PeriodicTask;

export function startEmbeddedVacuum(deps: {
  database: Pick<Database, "run">;
  logger: Logger;
  intervalMs?: number;
}): EmbeddedVacuum {
  // Row estimate of each table when this process last analyzed it.
  const rowsWhenAnalyzed = new Map<string, number>();

  const listTables = () =>
    deps.database.run<TableEstimate>({ name: "embedded_vacuum_tables", text: TABLES_SQL, values: [] });

  async function runEach(command: "VACUUM" | "ANALYZE", tables: string[]) {
    for (const table of tables) {
      await new Promise((resolve) => setImmediate(resolve));
      await deps.database.run({
        name: `embedded_${command.toLowerCase()}_${table}`,
        text: `${command} ${quoteIdentifier(table)}`,
        values: [],
      });
    }
  }

  async function pass() {
    const started = Date.now();
    try {
      await runEach(
        "VACUUM",
        (await listTables()).map((table) => table.name),
      );
      // VACUUM has just refreshed each table's row estimate.
      const stale = (await listTables()).filter((table) =>
        needsAnalyze(rowsWhenAnalyzed.get(table.name), Number(table.rows)),
      );
      await runEach(
        "ANALYZE",
        stale.map((table) => table.name),
      );
      for (const table of stale) rowsWhenAnalyzed.set(table.name, Number(table.rows));
      deps.logger.debug({ ms: Date.now() - started, analyzed: stale.length }, "embedded database vacuumed");
    } catch (error) {
      deps.logger.warn({ err: error }, "embedded database vacuum failed; will retry at the next interval");
    }
  }

  return startPeriodicTask(pass, { intervalMs: deps.intervalMs ?? EMBEDDED_VACUUM_INTERVAL_MS });
}
