/**
 * The embedded database's data survives a backup and restore, and a move to PostgreSQL, end to
 * end: data made through the API of a real server process, the commands run as an operator runs
 * them, then a server started on the result serves the same key, landing page, leads and app
 * account (docs/operations.md, Backups and Moving to PostgreSQL).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { COPIED_MARKER } from "../../src/db/copied-marker.ts";
import { runCollecting } from "../db/restore-helpers.ts";
import { ensureServerBuilt, freePort } from "../helpers/server-process.ts";
import {
  adminHttp,
  freshDatabase,
  http,
  liveEvent,
  RELIABILITY_ADMIN_TOKEN,
  TEST_DATABASE_URL,
} from "./helpers.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const MAIN = path.join(REPO, "dist/main.js");
const PASSWORD = "correct horse battery";
const cleanup: string[] = [];
const running: ChildProcess[] = [];

after(() => {
  for (const child of running) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "porchlight-move-"));
  cleanup.push(dir);
  return dir;
}

interface Server {
  baseUrl: string;
  stop(): Promise<void>;
}

/** The compiled server (as `npm start` runs it) on DATA_DIR, or on DATABASE_URL when given. */
async function startServer(dataDir: string, databaseUrl?: string): Promise<Server> {
  ensureServerBuilt();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      LOG_LEVEL: "warn",
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      DATA_DIR: dataDir,
      ADMIN_TOKEN: RELIABILITY_ADMIN_TOKEN,
      IP_RATE_LIMIT_PER_MINUTE: "1000000",
      BACKUP_INTERVAL_HOURS: "0",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
    if (Date.now() - started > 240_000) throw new Error(`server not ready:\n${output}`);
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

/** `npm run <script> -- <arg>` as an operator runs it: its exit status and what it printed. */
function runScript(script: "db:restore" | "db:copy-to-postgres", arg: string, env: Record<string, string>) {
  // --silent: npm's own banner and error lines aside, so the command's one-line refusals show as they are.
  return runCollecting("npm", ["run", "--silent", script, "--", arg], REPO, env);
}

interface Made {
  orgId: string;
  key: string;
  token: string;
  leadId: string;
  eventDedupId: string;
  email: string;
  /** The app session the accepted invitation signed in on the original server. */
  cookie: string;
}

/** An org, its key, a bound automation and an event (a queued card), a mailed card with a lead, an app account. */
async function makeData(baseUrl: string): Promise<Made> {
  const org = await adminHttp(baseUrl, "POST", "/orgs", { name: "Moving Roofing" });
  assert.equal(org.status, 201);
  const orgId = org.body.org_id as string;
  const key = (await adminHttp(baseUrl, "POST", `/orgs/${orgId}/keys`, {})).body.key as string;
  const automation = await adminHttp(baseUrl, "POST", `/orgs/${orgId}/automations`, {
    name: "Jobs done",
    trigger: { type: "custom_api", event_type: "job.completed" },
  });
  assert.equal(automation.status, 201);
  const eventDedupId = `move-${randomBytes(4).toString("hex")}`;
  const event = await http(baseUrl, "POST", "/api/v1/events", { key, body: liveEvent(eventDedupId) });
  assert.equal(event.status, 202, JSON.stringify(event.body));
  const mailing = await adminHttp(baseUrl, "POST", `/orgs/${orgId}/mailings`, {
    pieces: [{ address: "12 Oak Lane, Austin, TX 78701", recipient_name: "Jane Doe" }],
  });
  assert.equal(mailing.status, 201);
  const token = mailing.body.pieces[0].token as string;
  const lead = await http(baseUrl, "POST", `/l/${token}`, {
    body: { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" },
  });
  assert.equal(lead.status, 201, JSON.stringify(lead.body));
  const email = `owner-${randomBytes(3).toString("hex")}@example.com`;
  const invited = await adminHttp(baseUrl, "POST", `/orgs/${orgId}/invitations`, { email, role: "owner" });
  assert.equal(invited.status, 201);
  // The invitation's link carries its token (the id alone does not accept it).
  const inviteToken = decodeURIComponent(new URL(invited.body.invite_url).pathname.split("/").at(-1)!);
  const accepted = await fetch(
    `${baseUrl}/app/api/v1/invitations/${encodeURIComponent(inviteToken)}/accept`,
    {
      method: "POST",
      headers: { "content-type": "application/json", origin: baseUrl },
      body: JSON.stringify({ name: "Pat Owner", password: PASSWORD }),
    },
  );
  assert.equal(accepted.status, 200, await accepted.text());
  const cookie = accepted.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  assert.match(cookie, /porchlight\.session_token=/);
  return { orgId, key, token, leadId: lead.body.lead_id as string, eventDedupId, email, cookie };
}

/** Signs the app account in; its session cookie. */
async function signIn(baseUrl: string, email: string): Promise<string> {
  const response = await fetch(`${baseUrl}/app/api/v1/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  assert.equal(response.status, 200, await response.text());
  return response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
}

/** What the moved data must still do on the server at `baseUrl`. */
async function assertServes(baseUrl: string, made: Made): Promise<void> {
  const me = await http(baseUrl, "GET", "/api/v1/me", { key: made.key });
  assert.equal(me.status, 200);
  assert.equal(me.body.org_id, made.orgId);
  const landing = await fetch(`${baseUrl}/l/${made.token}`);
  assert.equal(landing.status, 200);
  assert.match(await landing.text(), /<form/);
  const leads = await adminHttp(baseUrl, "GET", `/orgs/${made.orgId}/leads`);
  assert.ok(leads.body.leads.some((lead: { id: string }) => lead.id === made.leadId));
  const campaigns = await adminHttp(baseUrl, "GET", `/orgs/${made.orgId}/campaigns`);
  assert.equal(campaigns.body.campaigns.length, 2, "the event's card and the recorded mailing");
  // The same event again is a duplicate: the bound automation and its campaign came along.
  const replay = await http(baseUrl, "POST", "/api/v1/events", {
    key: made.key,
    body: liveEvent(made.eventDedupId),
  });
  assert.equal(replay.status, 202);
  assert.equal(replay.body.duplicate, true);
  // New events are taken (the sequences continue after the moved rows).
  const fresh = await http(baseUrl, "POST", "/api/v1/events", {
    key: made.key,
    body: liveEvent(`after-move-${randomBytes(4).toString("hex")}`),
  });
  assert.equal(fresh.status, 202, JSON.stringify(fresh.body));
  assert.equal(fresh.body.duplicate, false);
  // The session signed in before the move is still signed in (its row and the app's secret
  // came along), and the account signs in again with its password.
  const kept = await fetch(`${baseUrl}/app/api/v1/session`, { headers: { cookie: made.cookie } });
  assert.equal(kept.status, 200, await kept.text());
  const session = await fetch(`${baseUrl}/app/api/v1/session`, {
    headers: { cookie: await signIn(baseUrl, made.email) },
  });
  assert.equal(session.status, 200);
}

/**
 * The restore needs no PostgreSQL (its servers run on the embedded database whatever the test
 * run's database): registered in every run, the reliability run on PostgreSQL included. The copy
 * needs one: registered only where there is one, into a database of its own on that server.
 */
const withPostgres = TEST_DATABASE_URL === undefined ? () => {} : describe;

describe("a backup restored into a new DATA_DIR", () => {
  // Two server starts and three commands: minutes on a loaded 2-core machine.
  test("serves the same key, landing page, leads, automations, cards and app account", {
    timeout: 900_000,
  }, async () => {
    const original = newDataDir();
    const server = await startServer(original);
    const made = await makeData(server.baseUrl);
    // The event's card printed before the backup: a backup holding a card still on its way restores
    // with automations paused (test/db/restore-paused.test.ts), and this one must take new events.
    for (let wait = 0; wait < 300; wait++) {
      const jobs = await adminHttp(server.baseUrl, "GET", "/jobs?kind=process_piece");
      const going = (jobs.body.jobs as { status: string }[]).filter((job) =>
        ["pending", "running"].includes(job.status),
      );
      if (going.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const backup = await adminHttp(server.baseUrl, "POST", "/backups");
    assert.equal(backup.status, 201, JSON.stringify(backup.body));

    const target = newDataDir();
    // Refused while a server holds the DATA_DIR (and it is not empty either).
    const whileRunning = await runScript("db:restore", backup.body.file, { DATA_DIR: original });
    assert.equal(whileRunning.status, 1);
    assert.match(whileRunning.stderr, /^DATA_DIR .* is in use by process \d+/);
    assert.equal(whileRunning.stderr.trim().split("\n").length, 1);
    await server.stop();
    const nonEmpty = await runScript("db:restore", backup.body.file, { DATA_DIR: original });
    assert.equal(nonEmpty.status, 1);
    assert.match(nonEmpty.stderr, /^DATA_DIR .* is not empty/);
    assert.equal(nonEmpty.stderr.trim().split("\n").length, 1);

    const restored = await runScript("db:restore", backup.body.file, { DATA_DIR: target });
    assert.equal(restored.status, 0, restored.stderr);
    assert.match(restored.stdout, /Checked: the file against .*\.sha256/);
    // The first start's demo organization and ours.
    assert.match(restored.stdout, /It holds: 2 organizations, 2 api_keys, 1 automations, 2 campaigns/);
    assert.doesNotMatch(restored.stdout, /Automations are paused/);
    assert.ok(readdirSync(target).includes("PG_VERSION"));

    const onRestored = await startServer(target);
    try {
      await assertServes(onRestored.baseUrl, made);
    } finally {
      await onRestored.stop();
    }
  });
});

withPostgres("db:copy-to-postgres", () => {
  test("moves everything to a new PostgreSQL database, which then serves it and takes new events", {
    timeout: 900_000,
  }, async () => {
    // A database of its own on the test server, dropped at the end: no other run sees it.
    const target = await freshDatabase();
    const targetUrl = new URL(target.url);
    const databaseName = targetUrl.pathname.slice(1);
    try {
      const dataDir = newDataDir();
      const server = await startServer(dataDir);
      const made = await makeData(server.baseUrl);
      const whileRunning = await runScript("db:copy-to-postgres", targetUrl.toString(), {
        DATA_DIR: dataDir,
      });
      assert.equal(whileRunning.status, 1);
      assert.match(whileRunning.stderr, /^DATA_DIR .* is in use by process \d+/);
      await server.stop();

      const copied = await runScript("db:copy-to-postgres", targetUrl.toString(), { DATA_DIR: dataDir });
      assert.equal(copied.status, 0, copied.stderr);
      // The first start's demo organization and ours.
      assert.match(copied.stdout, /organizations: 2 rows/);
      assert.match(copied.stdout, /Copied \d+ tables \(\d+ rows, each table's count checked\)/);
      assert.doesNotMatch(copied.stdout, new RegExp(databaseName), "the URL is never printed");

      // The embedded copy refuses to serve (a unit that lost DATABASE_URL would take events nobody
      // reads) until its marker is removed; the marker names the target without its password.
      const marker = path.join(dataDir, COPIED_MARKER);
      assert.match(
        readFileSync(marker, "utf8"),
        new RegExp(`^Copied to PostgreSQL [^\\s]+/${databaseName} at `),
      );
      await assert.rejects(
        startServer(dataDir),
        /Invalid configuration: DATA_DIR .+ was copied to PostgreSQL \(Copied to PostgreSQL .+\): start with DATABASE_URL, or delete .+copied-to-postgres to serve the embedded copy again/,
      );
      unlinkSync(marker);
      await (await startServer(dataDir)).stop();

      const again = await runScript("db:copy-to-postgres", targetUrl.toString(), { DATA_DIR: dataDir });
      assert.equal(again.status, 1);
      assert.match(again.stderr, /^the target database already holds data \(table \w+ has rows\)/);
      assert.match(again.stderr, /drop it, create it again and copy before starting the server on it/);
      assert.equal(again.stderr.trim().split("\n").length, 1);

      const onPostgres = await startServer(newDataDir(), targetUrl.toString());
      try {
        await assertServes(onPostgres.baseUrl, made);
        const backup = await adminHttp(onPostgres.baseUrl, "POST", "/backups");
        assert.equal(backup.status, 409);
      } finally {
        await onPostgres.stop();
      }
    } finally {
      await target.drop();
    }
  });
});
