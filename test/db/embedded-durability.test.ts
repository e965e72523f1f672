/**
 * Every write the embedded database acknowledges is on disk first. The server runs under strace,
 * which records, in the order they happened, every fsync the process makes (with the path of the
 * file it synced) and every HTTP response it writes: before each `202 Accepted` of the events
 * route there must be a completed fsync of a write-ahead-log file (DATA_DIR/pg_wal/…) made after
 * the previous response. Without the sync (`EMBEDDED_SYNC=off`, or PGlite as it ships) there is
 * none at all, which the second test shows.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { TEST_DATABASE_URL } from "../helpers/harness.ts";
import { ensureServerBuilt, freePort } from "../helpers/server-process.ts";
import {
  adminHttp,
  createServiceOrg,
  http,
  liveEvent,
  RELIABILITY_ADMIN_TOKEN,
} from "../reliability/helpers.ts";

const MAIN = path.resolve(import.meta.dirname, "../../dist/main.js");
const EVENTS = 5;
/** Servers started (strace's children), stopped by the suite's end whatever happened. */
const serverPids: number[] = [];

interface TracedServer {
  baseUrl: string;
  stop(): Promise<string>;
}

async function startTraced(dataDir: string, env: Record<string, string>): Promise<TracedServer> {
  ensureServerBuilt();
  const port = await freePort();
  const traceFile = path.join(dataDir, "..", `${path.basename(dataDir)}.strace`);
  let output = "";
  const child: ChildProcess = spawn(
    "/usr/bin/strace",
    [
      "-f", // every thread: PGlite runs on its own
      "-y", // the path of each file descriptor
      "-s",
      "24",
      "-e",
      "trace=fsync,fdatasync,write,writev",
      "-e",
      "signal=none",
      "-o",
      traceFile,
      process.execPath,
      MAIN,
      "--role",
      "api",
    ],
    {
      env: {
        PATH: process.env.PATH ?? "",
        LOG_LEVEL: "warn",
        PORT: String(port),
        DATA_DIR: dataDir,
        ADMIN_TOKEN: RELIABILITY_ADMIN_TOKEN,
        IP_RATE_LIMIT_PER_MINUTE: "1000000",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const since = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
    if (Date.now() - since > 240_000) throw new Error(`server not ready:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The server is strace's child: stopped as a supervisor would, strace then exits with it.
  const serverPid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim());
  serverPids.push(serverPid);
  return {
    baseUrl,
    async stop() {
      process.kill(serverPid, "SIGTERM");
      await exited;
      return readFileSync(traceFile, "utf8");
    },
  };
}

/** Per response written, in order: its status line, and whether a WAL fsync completed since the previous response. */
function walSyncsBeforeResponses(trace: string): { status: string; walSynced: boolean }[] {
  const responses: { status: string; walSynced: boolean }[] = [];
  const unfinished = new Map<string, string>(); // pid → path of its fsync in progress
  let walSyncedSinceLastResponse = false;
  for (const line of trace.split("\n")) {
    const pid = line.split(" ", 1)[0] ?? "";
    const sync = /^\d+\s+f(?:data)?sync\(\d+<([^>]*)>\)?(.*)$/.exec(line);
    if (sync) {
      const [, file = "", rest = ""] = sync;
      if (rest.includes("<unfinished")) unfinished.set(pid, file);
      else if (/= 0$/.test(rest) && file.includes("/pg_wal/")) walSyncedSinceLastResponse = true;
      continue;
    }
    if (/<\.\.\. f(?:data)?sync resumed>.*= 0$/.test(line)) {
      if (unfinished.get(pid)?.includes("/pg_wal/")) walSyncedSinceLastResponse = true;
      unfinished.delete(pid);
      continue;
    }
    const response = /^\d+\s+writev?\(\d+<.*?"HTTP\/1\.1 (\d{3})/.exec(line);
    if (response) {
      responses.push({ status: response[1] ?? "", walSynced: walSyncedSinceLastResponse });
      walSyncedSinceLastResponse = false;
    }
  }
  return responses;
}

async function acknowledgeEvents(baseUrl: string): Promise<void> {
  const org = await createServiceOrg(baseUrl, "Durability Roofing");
  const automation = await adminHttp(baseUrl, "POST", `/orgs/${org.orgId}/automations`, {
    name: "Durability",
    trigger: { type: "custom_api", event_type: "job.completed", object_type: "job" },
  });
  assert.equal(automation.status, 201);
  // One at a time, so that each acknowledgement's window holds its own request's work only.
  for (let index = 0; index < EVENTS; index++) {
    const response = await http(baseUrl, "POST", "/api/v1/events", {
      key: org.key,
      body: liveEvent(`durable-${index}`),
    });
    assert.equal(response.status, 202);
  }
}

// The embedded database's own files: PostgreSQL syncs its own, so this belongs to the PGlite pass
// of the suite only.
const onEmbedded = TEST_DATABASE_URL ? () => {} : describe;

onEmbedded("the embedded database's acknowledged writes", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "porchlight-durability-"));
  after(() => {
    for (const pid of serverPids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {} // already stopped
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it("syncs the write-ahead log to disk before each 202 of the events route", async () => {
    const server = await startTraced(path.join(scratch, "on"), {});
    await acknowledgeEvents(server.baseUrl);
    const responses = walSyncsBeforeResponses(await server.stop());
    const accepted = responses.filter((response) => response.status === "202");
    assert.equal(accepted.length, EVENTS, "every 202 appears in the trace");
    assert.deepEqual(
      accepted.map((response) => response.walSynced),
      Array(EVENTS).fill(true),
      "a WAL fsync completed between the request and each 202",
    );
  });

  it("with EMBEDDED_SYNC=off acknowledges without any sync of the write-ahead log", async () => {
    const server = await startTraced(path.join(scratch, "off"), { EMBEDDED_SYNC: "off" });
    await acknowledgeEvents(server.baseUrl);
    const trace = await server.stop();
    const accepted = walSyncsBeforeResponses(trace).filter((response) => response.status === "202");
    assert.equal(accepted.length, EVENTS);
    assert.equal(accepted.filter((response) => response.walSynced).length, 0);
    assert.doesNotMatch(trace, /sync\(\d+<[^>]*\/pg_wal\//, "no WAL file is ever synced");
  });
});
