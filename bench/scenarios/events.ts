import { randomBytes } from "node:crypto";
import { type BenchOrg, createOrg } from "../lib/api-client.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { measure, measureProvisioned, type RunStats, runLoad } from "../lib/load.ts";
import { OrgPool, rotatingIp } from "../lib/org-pool.ts";
import { BASELINE, MAIN, type RunningServer, startNodeServer } from "../lib/processes.ts";
import { type ResultRow, ratio, rowFromRun, type Scenario, type ScenarioContext } from "../lib/scenario.ts";

const EVENT_TYPE = "job.completed";

/** A valid envelope that the bound automation queues (street + city + zip), unique dedup id. */
function envelope(dedupId: string, dryRun: boolean) {
  return JSON.stringify({
    event_type: EVENT_TYPE,
    object_type: "job",
    dedup_id: dedupId,
    dry_run: dryRun,
    record: {
      id: dedupId,
      properties: {
        street: "1600 Pennsylvania Ave NW",
        city: "Washington",
        state: "DC",
        zip: "20500",
        client_name: "Bench Client",
        amount: "1250.00",
        status: "completed",
      },
    },
  });
}

interface BaselineMeasurement {
  run: RunStats;
  peakRssMb: number | undefined;
}

/** Starts a baseline server, drives it like the service, and stops it. */
async function measureBaseline(
  context: ScenarioContext,
  mode: "constant" | "insert",
  env: Record<string, string>,
  method: "GET" | "POST",
): Promise<BaselineMeasurement> {
  const server = await startNodeServer({ entry: BASELINE, args: [mode], env });
  try {
    const body = envelope("baseline", false);
    const { median } = await measure(
      {
        url: server.baseUrl,
        connections: context.settings.connections,
        nextRequest: () =>
          method === "GET"
            ? { method, path: "/bench", headers: {} as Record<string, string> }
            : { method, path: "/bench", headers: { "content-type": "application/json" }, body },
      },
      context.settings,
    );
    return { run: median, peakRssMb: server.peakRssMb() };
  } finally {
    await server.stop();
  }
}

async function startService(env: Record<string, string>): Promise<RunningServer> {
  // API role only: the measured work is ingestion; rendering and printing run in worker processes.
  return startNodeServer({ entry: MAIN, args: ["--role", "api"], env: { TRUST_PROXY: "true", ...env } });
}

function baselineRow(name: string, measurement: BaselineMeasurement): ResultRow {
  return rowFromRun(name, measurement.run, measurement.peakRssMb);
}

export const eventsLive: Scenario = {
  name: "events-live",
  target: "req/s ≥ 0.7 × baseline (b) insert; p99 ≤ 25 ms at 70 % of the measured maximum rate",
  async run(context) {
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    try {
      const constant = await measureBaseline(context, "constant", {}, "GET");
      // Baseline (b) writes into its own PGlite directory (one process per PGlite directory),
      // or into the very PostgreSQL database the service then uses.
      const insertDb = await scenarioDatabase(context.kind, context.serverUrl);
      const insert = await measureBaseline(
        context,
        "insert",
        context.kind === "postgres" ? database.env : insertDb.env,
        "POST",
      );
      await insertDb.dispose();

      const server = await startService(database.env);
      try {
        const pool = new OrgPool(server.baseUrl, EVENT_TYPE);
        const nextIp = rotatingIp();
        const prefix = randomBytes(4).toString("hex");
        let counter = 0;
        const plan = {
          url: server.baseUrl,
          connections: context.settings.connections,
          nextRequest: () => {
            const org = pool.next();
            return {
              method: "POST",
              path: "/api/v1/events",
              headers: {
                authorization: `Bearer ${org.key}`,
                "content-type": "application/json",
                "x-forwarded-for": nextIp(),
              },
              body: envelope(`${prefix}-${++counter}`, false),
            };
          },
        };
        const { median, runs } = await measureProvisioned(
          plan,
          context.settings,
          (n) => pool.ensureCapacity(n),
          800,
        );
        const fixedRate = Math.max(1, Math.floor(median.reqPerSec * 0.7));
        await pool.ensureCapacity(fixedRate * Math.min(context.settings.measureSeconds + 1, 60));
        const paced = await runLoad({
          ...plan,
          overallRate: fixedRate,
          durationSeconds: context.settings.measureSeconds,
        });
        const peak = server.peakRssMb();
        context.log(`events-live: ${pool.size} orgs, ${counter} events sent`);
        return {
          scenario: "events-live",
          database: context.kind,
          target: this.target,
          rows: [
            baselineRow("baseline (a) constant", constant),
            baselineRow("baseline (b) insert", insert),
            rowFromRun("POST /api/v1/events (live)", median, peak, {
              ratio: ratio(median.reqPerSec, insert.run.reqPerSec),
              baseline: "b",
              runs,
            }),
            rowFromRun(`live at 70 % (${fixedRate} req/s fixed)`, paced, peak, {
              note: `p99 target ≤ 25 ms`,
            }),
          ],
          facts: { orgs: pool.size, fixedRate },
        };
      } finally {
        await server.stop();
      }
    } finally {
      await database.dispose();
    }
  },
};

export const eventsDryRunAndAuth: Scenario = {
  name: "events-dry-run+auth-only",
  target: "events dry run and GET /api/v1/me: req/s ≥ 0.6 × baseline (a) constant",
  async run(context) {
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    try {
      const constant = await measureBaseline(context, "constant", {}, "GET");
      const server = await startService(database.env);
      try {
        const pool = new OrgPool(server.baseUrl, EVENT_TYPE);
        const nextIp = rotatingIp();
        let counter = 0;
        const dryRun = await measureProvisioned(
          {
            url: server.baseUrl,
            connections: context.settings.connections,
            nextRequest: () => {
              const org = pool.next();
              return {
                method: "POST",
                path: "/api/v1/events",
                headers: {
                  authorization: `Bearer ${org.key}`,
                  "content-type": "application/json",
                  "x-forwarded-for": nextIp(),
                },
                body: envelope(`dry-${++counter}`, true),
              };
            },
          },
          context.settings,
          (n) => pool.ensureCapacity(n),
        );
        const identity: BenchOrg = await createOrg(server.baseUrl, "Bench identity");
        const me = await measure(
          {
            url: server.baseUrl,
            connections: context.settings.connections,
            nextRequest: () => ({
              method: "GET",
              path: "/api/v1/me",
              headers: { authorization: `Bearer ${identity.key}`, "x-forwarded-for": nextIp() },
            }),
          },
          context.settings,
        );
        const peak = server.peakRssMb();
        return {
          scenario: "events-dry-run+auth-only",
          database: context.kind,
          target: this.target,
          rows: [
            baselineRow("baseline (a) constant", constant),
            rowFromRun("POST /api/v1/events (dry run)", dryRun.median, peak, {
              ratio: ratio(dryRun.median.reqPerSec, constant.run.reqPerSec),
              baseline: "a",
              runs: dryRun.runs,
            }),
            rowFromRun("GET /api/v1/me (auth only)", me.median, peak, {
              ratio: ratio(me.median.reqPerSec, constant.run.reqPerSec),
              baseline: "a",
              runs: me.runs,
            }),
          ],
          facts: { orgs: pool.size },
        };
      } finally {
        await server.stop();
      }
    } finally {
      await database.dispose();
    }
  },
};
