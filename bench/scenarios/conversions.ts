import { randomBytes } from "node:crypto";
import { apiCall } from "../lib/api-client.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { percentile } from "../lib/load.ts";
import { rotatingIp } from "../lib/org-pool.ts";
import { MAIN, startNodeServer } from "../lib/processes.ts";
import type { ResultRow, Scenario } from "../lib/scenario.ts";
import { benchAddress, openForSeeding, seedMailedPieces, seedOrg } from "../lib/seed.ts";

/**
 * 60 conversions per org per minute: each size gets its own org and stays under the limit
 * (5 warm-up + 3 runs of 18 requests), sent one at a time so each latency is the service's alone.
 */
const WARMUP = 5;
const PER_RUN = 18;
const RUNS = 3;

export const conversions: Scenario = {
  name: "conversions",
  target:
    "p50 ≤ 5 ms at 1 M mailed pieces in one org; growth from 10 k to 1 M logarithmic (index probe), not linear",
  async run(context) {
    const sizes = context.settings.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    try {
      const seeding = await openForSeeding(database);
      const orgs: { size: number; key: string; seedMs: number }[] = [];
      for (const size of sizes) {
        const org = await seedOrg(seeding, `Bench ${size} pieces`);
        const started = Date.now();
        await seedMailedPieces(seeding, org.orgId, size);
        orgs.push({ size, key: org.key, seedMs: Date.now() - started });
        context.log(`conversions: seeded ${size} pieces in ${Date.now() - started} ms`);
      }
      await seeding.close();
      const server = await startNodeServer({
        entry: MAIN,
        args: ["--role", "api"],
        env: { ...database.env, TRUST_PROXY: "true" },
      });
      const rows: ResultRow[] = [];
      try {
        const prefix = randomBytes(3).toString("hex");
        const nextIp = rotatingIp();
        for (const { size, key, seedMs } of orgs) {
          const convert = async (index: number) => {
            const house = 1 + Math.floor(Math.random() * size);
            const started = performance.now();
            const response = await apiCall(server.baseUrl, "POST", "/api/v1/conversions", {
              key,
              headers: { "x-forwarded-for": nextIp() },
              body: {
                address: benchAddress(house),
                deal_id: `${prefix}-${size}-${index}`,
                deal_amount: "4200",
              },
            });
            const elapsed = performance.now() - started;
            if (response.status !== 200 || response.body?.matched !== true) {
              throw new Error(`conversion not matched: ${response.status} ${JSON.stringify(response.body)}`);
            }
            return elapsed;
          };
          for (let index = 0; index < WARMUP; index++) await convert(-index - 1);
          const runs: number[][] = [];
          for (let run = 0; run < RUNS; run++) {
            const latencies: number[] = [];
            for (let index = 0; index < PER_RUN; index++)
              latencies.push(await convert(run * PER_RUN + index));
            runs.push(latencies);
          }
          const medians = runs.map((latencies) => percentile(latencies, 0.5));
          const middle = [...medians].sort((a, b) => a - b)[1]!;
          const medianRun = runs[medians.indexOf(middle)]!;
          rows.push({
            name: `${size.toLocaleString("en-US")} pieces`,
            p50Ms: percentile(medianRun, 0.5),
            p99Ms: percentile(medianRun, 0.99),
            errors: 0,
            non2xx: 0,
            peakRssMb: server.peakRssMb(),
            note: `sequential, ${PER_RUN} per run; seeded in ${Math.round(seedMs / 1000)} s`,
          });
        }
      } finally {
        await server.stop();
      }
      const first = rows[0]?.p50Ms;
      const last = rows.at(-1)?.p50Ms;
      return {
        scenario: "conversions",
        database: context.kind,
        target: this.target,
        rows,
        facts: {
          sizes,
          growthP50: first && last ? Math.round((last / first) * 100) / 100 : undefined,
          sizeFactor: sizes.at(-1)! / sizes[0]!,
        },
      };
    } finally {
      await database.dispose();
    }
  },
};
