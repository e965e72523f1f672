// npm run bench [-- --quick] [-- --only=events-live,conversions] [-- --db=pglite|postgres]
// Runs every scenario on PGlite and, when DATABASE_URL is set, on PostgreSQL; writes
// bench/results/<scenario>-<db>.json and prints a table.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import type { DatabaseKind } from "./lib/databases.ts";
import { pinSelfToLoadCore, REPO, tasksetAvailable } from "./lib/processes.ts";
import type { BenchSettings, Scenario, ScenarioResult } from "./lib/scenario.ts";
import { formatTable } from "./lib/table.ts";
import { appAtScale } from "./scenarios/app-at-scale.ts";
import { conversions } from "./scenarios/conversions.ts";
import { deliveries } from "./scenarios/deliveries.ts";
import { eventsDryRunAndAuth, eventsLive } from "./scenarios/events.ts";
import { importRows } from "./scenarios/import.ts";
import { neighbours } from "./scenarios/neighbours.ts";
import { cards, eventsLiveOneProcess } from "./scenarios/one-process.ts";
import { screens } from "./scenarios/screens.ts";
import { startUp } from "./scenarios/start-up.ts";

const SCENARIOS: Scenario[] = [
  eventsLive,
  eventsLiveOneProcess,
  cards,
  eventsDryRunAndAuth,
  conversions,
  importRows,
  deliveries,
  startUp,
  neighbours,
  appAtScale,
  screens,
];

function settings(quick: boolean): BenchSettings {
  return quick
    ? { quick, warmupSeconds: 1, measureSeconds: 2, runs: 3, connections: 10 }
    : { quick, warmupSeconds: 3, measureSeconds: 8, runs: 3, connections: 10 };
}

async function main() {
  const { values } = parseArgs({
    options: { quick: { type: "boolean", default: false }, only: { type: "string" }, db: { type: "string" } },
  });
  const serverUrl = loadConfig().databaseUrl;
  const kinds: DatabaseKind[] = values.db
    ? [values.db as DatabaseKind]
    : serverUrl
      ? ["pglite", "postgres"]
      : ["pglite"];
  const only = values.only?.split(",");
  const chosen = SCENARIOS.filter((scenario) => !only || only.includes(scenario.name));
  pinSelfToLoadCore();
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), Node ${process.version}, ${tasksetAvailable ? "server on core 1, load on core 0" : "no taskset: cores shared"}`;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`bench: ${machine}; ${values.quick ? "quick" : "full"} run on ${kinds.join(" and ")}`);
  const resultsDir = path.join(REPO, "bench/results");
  mkdirSync(resultsDir, { recursive: true });
  const results: ScenarioResult[] = [];
  const started = Date.now();
  for (const kind of kinds) {
    for (const scenario of chosen) {
      log(`→ ${scenario.name} on ${kind}`);
      const at = Date.now();
      const result = await scenario.run({ kind, serverUrl, settings: settings(values.quick), log });
      const file = path.join(resultsDir, `${scenario.name}-${kind}.json`);
      writeFileSync(
        file,
        `${JSON.stringify({ ...result, machine, quick: values.quick, at: new Date().toISOString() }, null, 2)}\n`,
      );
      results.push(result);
      log(`  done in ${Math.round((Date.now() - at) / 1000)} s → ${path.relative(REPO, file)}`);
    }
  }
  process.stdout.write(`\n${formatTable(results)}\n`);
  log(`bench finished in ${Math.round((Date.now() - started) / 1000)} s`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
