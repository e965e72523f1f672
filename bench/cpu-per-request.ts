// DATABASE_URL=postgres://… [REDIS_URL=redis://…] node --import tsx bench/cpu-per-request.ts
// Where a live event's CPU goes, next to baseline (b)'s one INSERT: `--role api` and the baseline
// take turns under the same load (CLIENTS connections; RATE req/s, or as fast as they answer with
// RATE=0), and each turn prints, per request, the CPU of the server process, of every PostgreSQL
// and Redis process on the machine and of this load generator, and the server's page faults. A
// ratio of throughputs says that the service is slower; this says which process pays for it.
// Settings: CLIENTS (10), RATE (0), SECONDS (5), ROUNDS (3), SERVICE_LOG_LEVEL (warn, as the bench;
// info is the default start's, which writes an access-log line per request). PostgreSQL only (one
// database shared by both servers, as in events-live).
import { readdirSync, readFileSync } from "node:fs";
import { scenarioDatabase } from "./lib/databases.ts";
import { type LoadPlan, runLoad } from "./lib/load.ts";
import { OrgPool } from "./lib/org-pool.ts";
import { BASELINE, MAIN, pinSelfToLoadCore, type RunningServer, startNodeServer } from "./lib/processes.ts";
import { baselineContender, EVENT_TYPE, eventContender } from "./scenarios/events.ts";

const clients = Number(process.env.CLIENTS ?? 10);
const rate = Number(process.env.RATE ?? 0);
const seconds = Number(process.env.SECONDS ?? 5);
const rounds = Number(process.env.ROUNDS ?? 3);
const TICK_MICROSECONDS = 10_000; // /proc's clock ticks are 100 a second

/** utime + stime (µs) and minor page faults of one process, from /proc/<pid>/stat. */
function processUsage(pid: string | number): { cpuUs: number; faults: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return {
      cpuUs: (Number(fields[11]) + Number(fields[12])) * TICK_MICROSECONDS,
      faults: Number(fields[7]),
    };
  } catch {
    return undefined; // the process has exited
  }
}

/** CPU (µs) of every process with this command name. */
function commandCpuUs(command: string): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === command)
        total += processUsage(pid)?.cpuUs ?? 0;
    } catch {}
  }
  return total;
}

function snapshot(serverPid: number) {
  const own = process.cpuUsage();
  return {
    server: processUsage(serverPid)!,
    postgres: commandCpuUs("postgres"),
    redis: commandCpuUs("redis-server"),
    load: own.user + own.system,
  };
}

async function turn(name: string, server: RunningServer, plan: Omit<LoadPlan, "durationSeconds">) {
  const before = snapshot(server.child.pid!);
  const stats = await runLoad({
    ...plan,
    durationSeconds: seconds,
    ...(rate > 0 ? { overallRate: rate } : {}),
  });
  const after = snapshot(server.child.pid!);
  const perRequest = (value: number) => Math.round(value / Math.max(stats.requests, 1));
  const cpu = {
    server: perRequest(after.server.cpuUs - before.server.cpuUs),
    postgres: perRequest(after.postgres - before.postgres),
    redis: perRequest(after.redis - before.redis),
    load: perRequest(after.load - before.load),
  };
  const total = cpu.server + cpu.postgres + cpu.redis + cpu.load;
  const faults = ((after.server.faults - before.server.faults) / Math.max(stats.requests, 1)).toFixed(2);
  console.log(
    `${name.padEnd(8)} ${String(Math.round(stats.requests / seconds)).padStart(5)} req/s, p99 ${stats.p99Ms} ms;` +
      ` CPU µs a request: server ${cpu.server}, postgres ${cpu.postgres}, redis ${cpu.redis},` +
      ` load ${cpu.load}, all ${total}; server page faults a request ${faults}`,
  );
}

pinSelfToLoadCore();
const database = await scenarioDatabase("postgres", process.env.DATABASE_URL!);
const service = await startNodeServer({
  entry: MAIN,
  args: ["--role", "api"],
  // database.env carries REDIS_URL when it is set (bench/lib/databases.ts).
  env: { ...database.env, TRUST_PROXY: "true", LOG_LEVEL: process.env.SERVICE_LOG_LEVEL ?? "warn" },
});
const baseline = await startNodeServer({ entry: BASELINE, args: ["insert"], env: database.env });
try {
  const pool = new OrgPool(service.baseUrl, EVENT_TYPE);
  const events = eventContender("service", service, pool, clients, false);
  const inserts = baselineContender("baseline", baseline, "POST", clients);
  for (let round = 0; round < rounds; round++) {
    await pool.ensureCapacity((rate || 4000) * (seconds + 1));
    await turn("service", service, events.plan);
    await turn("baseline", baseline, inserts.plan);
  }
} finally {
  await Promise.all([service.stop(), baseline.stop()]);
  await database.dispose();
}
