/**
 * A restore interrupted at any point (SIGKILL, a power cut, Ctrl-C) leaves a DATA_DIR that the
 * server refuses with one line naming the cause and the fix, never opening or initializing the
 * partial cluster, and that `db:restore` run again recovers (docs/operations.md, Restoring). Real
 * restore processes are killed as their files appear in DATA_DIR: while the backup is unpacked,
 * during the renames into place, and while the restored database is opened.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { isClusterEntry } from "../../src/db/cluster-snapshot.ts";
import { DATA_DIR_LOCK_FILE, RESTORE_MARKER_FILE } from "../../src/db/data-dir-lock.ts";
import { ensureServerBuilt, freePort } from "../helpers/server-process.ts";
import { adminHttp, http, RELIABILITY_ADMIN_TOKEN } from "./helpers.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const MAIN = path.join(REPO, "dist/main.js");
const cleanup: string[] = [];
const running: ChildProcess[] = [];

after(() => {
  for (const child of running) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "porchlight-interrupted-"));
  cleanup.push(dir);
  return dir;
}

interface Exited {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function spawnCollecting(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  const output = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk) => (output.stdout += chunk));
  child.stderr!.on("data", (chunk) => (output.stderr += chunk));
  const exited = new Promise<Exited>((resolve) =>
    child.once("exit", (status, signal) => resolve({ status, signal, ...output })),
  );
  return { child, exited, output };
}

/** The compiled server (as `npm start` runs it) on DATA_DIR, with the environment the other process tests give it. */
function spawnServer(dataDir: string, port: number) {
  ensureServerBuilt();
  return spawnCollecting(process.execPath, [MAIN], {
    LOG_LEVEL: "warn",
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    ADMIN_TOKEN: RELIABILITY_ADMIN_TOKEN,
    IP_RATE_LIMIT_PER_MINUTE: "1000000",
    BACKUP_INTERVAL_HOURS: "0",
  });
}

interface Server {
  baseUrl: string;
  stop(): Promise<void>;
}

async function startServer(dataDir: string): Promise<Server> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const { child, exited, output } = spawnServer(dataDir, port);
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${output.stdout}${output.stderr}`);
    if (Date.now() - started > 240_000)
      throw new Error(`server not ready:\n${output.stdout}${output.stderr}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A server start expected to refuse: what it printed, once it exited (killed if it came up). */
async function startRefused(dataDir: string): Promise<Exited> {
  const { child, exited } = spawnServer(dataDir, await freePort());
  const deadline = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    return await exited;
  } finally {
    clearTimeout(deadline);
  }
}

/** `npm run db:restore -- FILE` as an operator runs it. */
function runRestore(file: string, dataDir: string): Promise<Exited> {
  // --silent: npm's own banner and error lines aside, so the command's lines show as they are.
  return spawnCollecting("npm", ["run", "--silent", "db:restore", "--", file], { DATA_DIR: dataDir }).exited;
}

/**
 * A restore run directly (no npm in between, so the signal reaches it), sent `signal` the moment
 * an entry named to `stopAt`'s liking appears in DATA_DIR; DATA_DIR's names once it exited.
 */
async function interruptRestore(
  file: string,
  dataDir: string,
  stopAt: (name: string) => boolean,
  signal: NodeJS.Signals,
): Promise<Exited & { names: string[]; sent: boolean }> {
  let sent = false;
  const restore = spawnCollecting(process.execPath, ["--import", "tsx", "scripts/db-restore.ts", file], {
    DATA_DIR: dataDir,
  });
  const watcher = watch(dataDir, (_event, name) => {
    if (sent || !name || !stopAt(name)) return;
    sent = restore.child.kill(signal);
  });
  try {
    const exited = await restore.exited;
    return { ...exited, names: readdirSync(dataDir), sent };
  } finally {
    watcher.close();
  }
}

const clusterEntriesIn = (names: string[]) => names.filter(isClusterEntry);

interface Made {
  orgId: string;
  key: string;
  token: string;
}

/** An org with a key and a mailed card (its landing page), through the API. */
async function makeData(baseUrl: string): Promise<Made> {
  const org = await adminHttp(baseUrl, "POST", "/orgs", { name: "Interrupted Roofing" });
  assert.equal(org.status, 201);
  const orgId = org.body.org_id as string;
  const key = (await adminHttp(baseUrl, "POST", `/orgs/${orgId}/keys`, {})).body.key as string;
  const mailing = await adminHttp(baseUrl, "POST", `/orgs/${orgId}/mailings`, {
    pieces: [{ address: "12 Oak Lane, Austin, TX 78701", recipient_name: "Jane Doe" }],
  });
  assert.equal(mailing.status, 201);
  return { orgId, key, token: mailing.body.pieces[0].token as string };
}

async function assertServes(baseUrl: string, made: Made): Promise<void> {
  const me = await http(baseUrl, "GET", "/api/v1/me", { key: made.key });
  assert.equal(me.status, 200);
  assert.equal(me.body.org_id, made.orgId);
  const landing = await fetch(`${baseUrl}/l/${made.token}`);
  assert.equal(landing.status, 200);
  assert.match(await landing.text(), /<form/);
}

const INTERRUPTED_LINE =
  /^DATA_DIR (.+) holds an interrupted restore of (.+), not a whole database: run npm run db:restore -- \2 again \(it clears what the interrupted one left\), or empty DATA_DIR to start a new database$/;

/**
 * What every interruption must leave: the marker; a server that refuses with one line and leaves
 * DATA_DIR as it found it (no cluster initialized, no token, no outbox); and `db:restore` again
 * restoring it whole, after which the server serves the backup's data.
 */
async function assertRefusedThenRecovered(dataDir: string, names: string[], file: string, made: Made) {
  assert.ok(names.includes(RESTORE_MARKER_FILE), `no marker among ${names.join(", ")}`);
  const refused = await startRefused(dataDir);
  assert.equal(refused.status, 1, refused.stdout + refused.stderr);
  const lines = refused.stderr.trim().split("\n");
  assert.equal(lines.length, 1, refused.stderr);
  assert.match(lines[0]!, INTERRUPTED_LINE);
  assert.equal(lines[0]!.match(INTERRUPTED_LINE)![2], file);
  assert.doesNotMatch(refused.stdout, /Demo organization/);
  const withoutLock = (list: string[]) => list.filter((name) => name !== DATA_DIR_LOCK_FILE).sort();
  assert.deepEqual(withoutLock(readdirSync(dataDir)), withoutLock(names));

  const again = await runRestore(file, dataDir);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /^Cleared what an interrupted restore had left in DATA_DIR\.$/m);
  // The first start's demo organization and ours.
  assert.match(again.stdout, /It holds: 2 organizations, 2 api_keys/);
  assert.deepEqual(
    readdirSync(dataDir).filter((name) => name === RESTORE_MARKER_FILE || name.startsWith(".")),
    [],
  );
  const server = await startServer(dataDir);
  try {
    await assertServes(server.baseUrl, made);
  } finally {
    await server.stop();
  }
}

describe("a restore interrupted mid-way", () => {
  let file: string;
  let made: Made;
  let clusterEntries: number;

  before(async () => {
    const original = newDataDir();
    const server = await startServer(original);
    try {
      made = await makeData(server.baseUrl);
      const backup = await adminHttp(server.baseUrl, "POST", "/backups");
      assert.equal(backup.status, 201, JSON.stringify(backup.body));
      file = backup.body.file as string;
    } finally {
      await server.stop();
    }
    clusterEntries = clusterEntriesIn(readdirSync(original)).length;
  });

  test("killed while the backup is unpacked: the server refuses, a restore again recovers", {
    timeout: 600_000,
  }, async () => {
    const dataDir = newDataDir();
    const killed = await interruptRestore(file, dataDir, (name) => name.startsWith(".restore-"), "SIGKILL");
    assert.ok(killed.sent && killed.signal === "SIGKILL", killed.stderr);
    assert.deepEqual(clusterEntriesIn(killed.names), []);
    await assertRefusedThenRecovered(dataDir, killed.names, file, made);
  });

  test("killed during the renames into DATA_DIR, a partial cluster: the server refuses, a restore again recovers", {
    timeout: 600_000,
  }, async () => {
    // The renames take a millisecond or two: tried again until the kill lands among them.
    let killed: Awaited<ReturnType<typeof interruptRestore>> | undefined;
    let dataDir = "";
    for (let attempt = 0; attempt < 5; attempt++) {
      dataDir = newDataDir();
      killed = await interruptRestore(file, dataDir, isClusterEntry, "SIGKILL");
      assert.ok(killed.sent && killed.signal === "SIGKILL", killed.stderr);
      if (clusterEntriesIn(killed.names).length < clusterEntries) break;
    }
    const moved = clusterEntriesIn(killed!.names).length;
    assert.ok(moved > 0 && moved < clusterEntries, `${moved} of ${clusterEntries} cluster entries moved`);
    await assertRefusedThenRecovered(dataDir, killed!.names, file, made);
  });

  test("killed while the restored database is opened: the server refuses, a restore again recovers", {
    timeout: 600_000,
  }, async () => {
    const dataDir = newDataDir();
    // PGlite writes its pid file as it opens the cluster, after the renames and the flush to disk.
    const killed = await interruptRestore(file, dataDir, (name) => name === "postmaster.pid", "SIGKILL");
    assert.ok(killed.sent && killed.signal === "SIGKILL", killed.stderr);
    assert.equal(clusterEntriesIn(killed.names).length, clusterEntries);
    await assertRefusedThenRecovered(dataDir, killed.names, file, made);
  });

  test("stopped by Ctrl-C (SIGINT) during the renames: one line saying what to do, then as a kill", {
    timeout: 600_000,
  }, async () => {
    const dataDir = newDataDir();
    const stopped = await interruptRestore(file, dataDir, isClusterEntry, "SIGINT");
    assert.ok(stopped.sent);
    assert.equal(stopped.status, 130, stopped.stderr);
    const lines = stopped.stderr.trim().split("\n");
    assert.equal(lines.length, 1, stopped.stderr);
    const [, rest] = /^db:restore stopped \(SIGINT\): (.*)$/.exec(lines[0]!) ?? [];
    assert.match(rest ?? lines[0]!, INTERRUPTED_LINE);
    assert.doesNotMatch(stopped.stdout, /Restored/);
    await assertRefusedThenRecovered(dataDir, stopped.names, file, made);
  });
});
