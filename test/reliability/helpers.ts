import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type pg from "pg";
import { createFreshPostgres, withClient } from "../../bench/lib/databases.ts";
import { freePort } from "../../bench/lib/processes.ts";
import { TEST_DATABASE_URL } from "../helpers/harness.ts";
import { ensureServerBuilt } from "../helpers/server-process.ts";

export { TEST_DATABASE_URL };

/** Set when the suite cannot run: it needs a PostgreSQL (PGlite has one connection and cannot race). */
export const skipWithoutPostgres = TEST_DATABASE_URL
  ? false
  : "the reliability suite needs PostgreSQL: set TEST_DATABASE_URL or DATABASE_URL";

/** What `npm start` runs: the compiled server. */
const MAIN = path.resolve(import.meta.dirname, "../../dist/main.js");
export const RELIABILITY_ADMIN_TOKEN = "reliability-admin-token-0123456789";

/** A database of its own on the test server (dropped at the end), so outages touch nobody else. */
export async function freshDatabase() {
  return createFreshPostgres(TEST_DATABASE_URL!, "reliability");
}

export async function queryDatabase<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
) {
  return withClient(url, async (client) => (await client.query<T>(text, values)).rows);
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  port: number;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The real server (compiled, as `npm start` runs it) as a child process on the given database. */
export async function startService(options: {
  databaseUrl: string;
  env?: Record<string, string>;
  args?: string[];
  port?: number;
}): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-reliability-"));
  ensureServerBuilt();
  let output = "";
  const child = spawn(process.execPath, [MAIN, ...(options.args ?? [])], {
    env: {
      PATH: process.env.PATH ?? "",
      LOG_LEVEL: "warn",
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: options.databaseUrl,
      ADMIN_TOKEN: RELIABILITY_ADMIN_TOKEN,
      IP_RATE_LIMIT_PER_MINUTE: "1000000",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-50_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited:\n${output}`);
    if (Date.now() - started > 60_000) throw new Error(`service not ready:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    baseUrl,
    port,
    output: () => output,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
}

export async function http(
  baseUrl: string,
  method: string,
  pathname: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: response.status, headers: response.headers, body };
}

export const adminHttp = (baseUrl: string, method: string, pathname: string, body?: unknown) =>
  http(baseUrl, method, `/admin/v1${pathname}`, { key: RELIABILITY_ADMIN_TOKEN, body });

/** A fresh org with an unrestricted key, through the operator API of a running service. */
export async function createServiceOrg(baseUrl: string, name = "Reliability org") {
  const org = await adminHttp(baseUrl, "POST", "/orgs", { name });
  if (org.status !== 201) throw new Error(`org: ${JSON.stringify(org.body)}`);
  const key = await adminHttp(baseUrl, "POST", `/orgs/${org.body.org_id}/keys`, {});
  if (key.status !== 201) throw new Error(`key: ${JSON.stringify(key.body)}`);
  return { orgId: org.body.org_id as string, key: key.body.key as string };
}

/**
 * Subscribes `targetUrl` for the org, mails one piece to `address` and captures a landing-page
 * lead on it: the lead's delivery job is then queued. Returns the captured lead's id.
 */
export async function captureSubscribedLead(
  baseUrl: string,
  org: { orgId: string; key: string },
  targetUrl: string,
  address: string,
): Promise<string> {
  const subscribed = await http(baseUrl, "POST", "/api/v1/webhooks/subscribe", {
    key: org.key,
    body: { target_url: targetUrl },
  });
  if (subscribed.status !== 200) throw new Error(`subscribe: ${JSON.stringify(subscribed.body)}`);
  const mailing = await adminHttp(baseUrl, "POST", `/orgs/${org.orgId}/mailings`, {
    pieces: [{ address }],
  });
  const captured = await http(baseUrl, "POST", `/l/${mailing.body.pieces[0].token}`, {
    body: { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" },
  });
  if (captured.status !== 201) throw new Error(`capture: ${JSON.stringify(captured.body)}`);
  return captured.body.lead_id as string;
}

export function liveEvent(dedupId: string, eventType = "job.completed") {
  return {
    event_type: eventType,
    object_type: "job",
    dedup_id: dedupId,
    record: {
      id: dedupId,
      properties: { street: "1600 Pennsylvania Ave NW", city: "Washington", state: "DC", zip: "20500" },
    },
  };
}
