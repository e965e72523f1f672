import { existsSync, readFileSync } from "node:fs";
import { scenarioDatabase } from "../lib/databases.ts";
import { MAIN, type RunningServer, startNodeServer } from "../lib/processes.ts";
import type { ResultRow, Scenario } from "../lib/scenario.ts";

/** How long a started server is left alone before its idle memory is read. */
const IDLE_SETTLE_MS = 5_000;

/** Resident set size now (VmRSS), in MiB; undefined where /proc is missing. */
function residentMb(pid: number | undefined): number | undefined {
  const status = `/proc/${pid}/status`;
  if (pid === undefined || !existsSync(status)) return undefined;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(status, "utf8"));
  return match ? Math.round(Number(match[1]) / 102.4) / 10 : undefined;
}

async function idleResidentMb(server: RunningServer): Promise<number | undefined> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  return residentMb(server.child.pid);
}

/**
 * From spawn of the compiled server (what `npm start` runs) to the first /readyz 200, on an empty
 * database (migrations run) and on an existing one, three times; then the idle resident memory.
 * On PostgreSQL the API-only start (`--role api`) is measured as well.
 */
export const startUp: Scenario = {
  name: "start-up",
  target: "existing database: ≤ 2 s on PGlite, ≤ 1 s on PostgreSQL to /readyz; idle RSS ≤ 300 MB",
  async run(context) {
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    const rows: ResultRow[] = [];
    const starts: { name: string; args: string[] }[] = [{ name: "existing database", args: [] }];
    if (context.kind === "postgres")
      starts.push({ name: "existing database, --role api", args: ["--role", "api"] });
    try {
      const empty = await startNodeServer({ entry: MAIN, env: database.env });
      rows.push({
        name: "empty database (migrations, first-run seed)",
        p50Ms: empty.readyAfterMs,
        peakRssMb: empty.peakRssMb(),
      });
      await empty.stop();
      for (const { name, args } of starts) {
        const times: number[] = [];
        for (let run = 0; run < 3; run++) {
          const existing = await startNodeServer({ entry: MAIN, args, env: database.env });
          times.push(existing.readyAfterMs);
          if (run === 2) {
            const idle = await idleResidentMb(existing);
            rows.push({
              name,
              p50Ms: [...times].sort((a, b) => a - b)[1],
              peakRssMb: existing.peakRssMb(),
              note: `three starts: ${times.join(", ")} ms; idle RSS ${idle ?? "?"} MiB after ${IDLE_SETTLE_MS / 1000} s`,
            });
          }
          await existing.stop();
        }
      }
    } finally {
      await database.dispose();
    }
    return { scenario: "start-up", database: context.kind, target: this.target, rows };
  },
};
