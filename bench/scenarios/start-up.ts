import { scenarioDatabase } from "../lib/databases.ts";
import { MAIN, startNodeServer } from "../lib/processes.ts";
import type { ResultRow, Scenario } from "../lib/scenario.ts";

/** From spawn to the first /readyz 200: on an empty database (migrations run) and on an existing one. */
export const startUp: Scenario = {
  name: "start-up",
  target: "time from process start to /readyz 200, empty and existing database (no fixed target)",
  async run(context) {
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    const rows: ResultRow[] = [];
    try {
      const empty = await startNodeServer({ entry: MAIN, env: database.env });
      rows.push({
        name: "empty database (migrations, first-run seed)",
        p50Ms: empty.readyAfterMs,
        peakRssMb: empty.peakRssMb(),
      });
      await empty.stop();
      const times: number[] = [];
      for (let run = 0; run < 3; run++) {
        const existing = await startNodeServer({ entry: MAIN, env: database.env });
        times.push(existing.readyAfterMs);
        if (run === 2)
          rows.push({
            name: "existing database",
            p50Ms: [...times].sort((a, b) => a - b)[1],
            peakRssMb: existing.peakRssMb(),
            note: `three starts: ${times.join(", ")} ms`,
          });
        await existing.stop();
      }
    } finally {
      await database.dispose();
    }
    return { scenario: "start-up", database: context.kind, target: this.target, rows };
  },
};
