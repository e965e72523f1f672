import { randomBytes } from "node:crypto";
import { createOrg } from "../lib/api-client.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { type Contender, type Measurement, measureInterleaved, runLoad } from "../lib/load.ts";
import { OrgPool, rotatingIp } from "../lib/org-pool.ts";
import { BASELINE, MAIN, type RunningServer, startNodeServer } from "../lib/processes.ts";
import { type ResultRow, ratio, rowFromRun, type Scenario, type ScenarioContext } from "../lib/scenario.ts";

export const EVENT_TYPE = "job.completed";

/** events-live's second pair of rows: this many times the usual clients. */
const BUSY_FACTOR = 5;

/**
 * A valid envelope that the bound automation queues (street + city + zip), with a unique dedup
 * id and a house number that never repeats, so that no per-address cache flatters the service.
 */
function envelope(dedupId: string, sequence: number, dryRun: boolean) {
  return JSON.stringify({
    event_type: EVENT_TYPE,
    object_type: "job",
    dedup_id: dedupId,
    dry_run: dryRun,
    record: {
      id: dedupId,
      properties: {
        street: `${100 + sequence} Pennsylvania Ave NW`,
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

function startBaseline(mode: "constant" | "insert" | "lookup" | "validate", env: Record<string, string>) {
  return startNodeServer({ entry: BASELINE, args: [mode], env });
}

export function baselineContender(
  label: string,
  server: RunningServer,
  method: "GET" | "POST",
  connections: number,
): Contender {
  const body = envelope("baseline", 0, false);
  const headers: Record<string, string> = method === "POST" ? { "content-type": "application/json" } : {};
  return {
    label,
    plan: {
      url: server.baseUrl,
      connections,
      nextRequest: () => ({ method, path: "/bench", headers, ...(method === "POST" ? { body } : {}) }),
    },
  };
}

/** Events from orgs of the pool, over rotating client addresses, each with a fresh dedup id. */
export function eventContender(
  label: string,
  server: RunningServer,
  pool: OrgPool,
  connections: number,
  dryRun: boolean,
): Contender & { sent(): number } {
  const nextIp = rotatingIp();
  const prefix = randomBytes(4).toString("hex");
  let counter = 0;
  return {
    label,
    initialRateGuess: dryRun ? 1500 : 800,
    prepare: (requests) => pool.ensureCapacity(requests),
    sent: () => counter,
    plan: {
      url: server.baseUrl,
      connections,
      nextRequest: () => {
        const org = pool.next();
        counter++;
        return {
          method: "POST",
          path: "/api/v1/events",
          headers: {
            authorization: `Bearer ${org.key}`,
            "content-type": "application/json",
            "x-forwarded-for": nextIp(),
          },
          body: envelope(`${prefix}-${counter}`, counter, dryRun),
        };
      },
    },
  };
}

async function startService(env: Record<string, string>): Promise<RunningServer> {
  // API role only: the measured work is ingestion; rendering and printing run in worker processes.
  return startNodeServer({ entry: MAIN, args: ["--role", "api"], env: { TRUST_PROXY: "true", ...env } });
}

function measuredRow(
  name: string,
  measurement: Measurement,
  peakRssMb: number | undefined,
  extra: Partial<ResultRow> = {},
) {
  return rowFromRun(name, measurement.median, peakRssMb, { runs: measurement.runs, ...extra });
}

/** Runs `work` with the servers started, and stops them all whatever happens. */
export async function withServers<T>(
  starting: Promise<RunningServer>[],
  work: (servers: RunningServer[]) => Promise<T>,
): Promise<T> {
  const settled = await Promise.allSettled(starting);
  const servers = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    return await work(servers);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

export const eventsLive: Scenario = {
  name: "events-live",
  target: "req/s ≥ 0.7 × baseline (b) insert; p99 ≤ 25 ms at 70 % of the measured maximum rate",
  async run(context: ScenarioContext) {
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    // Baseline (b) writes into the very PostgreSQL database the service uses, or into a PGlite
    // directory of its own (one process per PGlite directory).
    const insertDb =
      context.kind === "postgres" ? database : await scenarioDatabase(context.kind, context.serverUrl);
    try {
      return await withServers(
        [startBaseline("constant", {}), startBaseline("insert", insertDb.env), startService(database.env)],
        async ([constantServer, insertServer, service]) => {
          const pool = new OrgPool(service!.baseUrl, EVENT_TYPE);
          const { connections } = context.settings;
          const live = eventContender("live", service!, pool, connections, false);
          // The same pair again with five times the clients: what group commit gains as a CRM's
          // calls overlap more (the target row stays the one at `connections`).
          const busy = connections * BUSY_FACTOR;
          const measured = await measureInterleaved(
            [
              baselineContender("constant", constantServer!, "GET", connections),
              baselineContender("insert", insertServer!, "POST", connections),
              live,
              baselineContender("insert busy", insertServer!, "POST", busy),
              eventContender("live busy", service!, pool, busy, false),
            ],
            context.settings,
          );
          const insert = measured.get("insert")!;
          const maximum = measured.get("live")!;
          const busyInsert = measured.get("insert busy")!;
          const busyLive = measured.get("live busy")!;
          const fixedRate = Math.max(1, Math.floor(maximum.median.reqPerSec * 0.7));
          await pool.ensureCapacity(fixedRate * Math.min(context.settings.measureSeconds + 1, 60));
          const paced = await runLoad({
            ...live.plan,
            overallRate: fixedRate,
            durationSeconds: context.settings.measureSeconds,
          });
          const peak = service!.peakRssMb();
          context.log(`events-live: ${pool.size} orgs, ${live.sent()} events sent`);
          const rows: ResultRow[] = [
            measuredRow("baseline (a) constant", measured.get("constant")!, constantServer!.peakRssMb()),
            measuredRow("baseline (b) insert", insert, insertServer!.peakRssMb()),
            measuredRow("POST /api/v1/events (live)", maximum, peak, {
              ratio: ratio(maximum.median.reqPerSec, insert.median.reqPerSec),
              baseline: "b",
            }),
            rowFromRun(`live at 70 % (${fixedRate} req/s fixed)`, paced, peak, {
              note: "p99 target ≤ 25 ms",
            }),
            measuredRow(`baseline (b) insert, ${busy} clients`, busyInsert, insertServer!.peakRssMb()),
            measuredRow(`live, ${busy} clients`, busyLive, peak, {
              ratio: ratio(busyLive.median.reqPerSec, busyInsert.median.reqPerSec),
              baseline: "b",
              note: `reference; the target is met or missed at ${connections} clients`,
            }),
          ];
          return {
            scenario: "events-live",
            database: context.kind,
            target: this.target,
            rows,
            facts: { orgs: pool.size, fixedRate, eventsSent: live.sent() },
          };
        },
      );
    } finally {
      if (insertDb !== database) await insertDb.dispose();
      await database.dispose();
    }
  },
};

export const eventsDryRunAndAuth: Scenario = {
  name: "events-dry-run+auth-only",
  target: "events dry run and GET /api/v1/me: req/s ≥ 0.6 × baseline (a) constant",
  async run(context: ScenarioContext) {
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    const lookupDb =
      context.kind === "postgres" ? database : await scenarioDatabase(context.kind, context.serverUrl);
    try {
      return await withServers(
        [
          startBaseline("constant", {}),
          startService(database.env),
          startBaseline("lookup", lookupDb.env),
          startBaseline("validate", {}),
        ],
        async ([constantServer, service, lookupServer, validateServer]) => {
          const pool = new OrgPool(service!.baseUrl, EVENT_TYPE);
          const identity = await createOrg(service!.baseUrl, "Bench identity");
          const nextIp = rotatingIp();
          const measured = await measureInterleaved(
            [
              baselineContender("constant", constantServer!, "GET", context.settings.connections),
              baselineContender("lookup", lookupServer!, "POST", context.settings.connections),
              baselineContender("validate", validateServer!, "POST", context.settings.connections),
              eventContender("dry", service!, pool, context.settings.connections, true),
              {
                label: "me",
                plan: {
                  url: service!.baseUrl,
                  connections: context.settings.connections,
                  nextRequest: () => ({
                    method: "GET",
                    path: "/api/v1/me",
                    headers: { authorization: `Bearer ${identity.key}`, "x-forwarded-for": nextIp() },
                  }),
                },
              },
            ],
            context.settings,
          );
          const constant = measured.get("constant")!;
          const peak = service!.peakRssMb();
          const versusConstant = (measurement: Measurement) => ({
            ratio: ratio(measurement.median.reqPerSec, constant.median.reqPerSec),
            baseline: "a",
          });
          return {
            scenario: "events-dry-run+auth-only",
            database: context.kind,
            target: this.target,
            rows: [
              measuredRow("baseline (a) constant", constant, constantServer!.peakRssMb()),
              measuredRow(
                "reference: bare POST, validate only (no read)",
                measured.get("validate")!,
                validateServer!.peakRssMb(),
                { ...versusConstant(measured.get("validate")!), note: "body parse and validation alone" },
              ),
              measuredRow(
                "reference: bare POST, validate, one dedup read (unbatched)",
                measured.get("lookup")!,
                lookupServer!.peakRssMb(),
                { ...versusConstant(measured.get("lookup")!), note: "the least a dry run does (rule 11)" },
              ),
              measuredRow(
                "POST /api/v1/events (dry run)",
                measured.get("dry")!,
                peak,
                versusConstant(measured.get("dry")!),
              ),
              measuredRow(
                "GET /api/v1/me (auth only)",
                measured.get("me")!,
                peak,
                versusConstant(measured.get("me")!),
              ),
            ],
            facts: { orgs: pool.size },
          };
        },
      );
    } finally {
      if (lookupDb !== database) await lookupDb.dispose();
      await database.dispose();
    }
  },
};
