#!/usr/bin/env node
// Replays CRM events to Porchlight after an outage (Node 20, no dependencies).
//
//   PORCHLIGHT_URL=https://porchlight.example.com PORCHLIGHT_API_KEY=ak_… \
//     node examples/replay-events.mjs events.ndjson [--dry-run]
//
// PORCHLIGHT_URL is the service's base URL (a trailing /api/v1 is tolerated and dropped).
//
// events.ndjson holds one event envelope per line, exactly as first sent (or as your CRM would
// have sent them), each with its ORIGINAL dedup_id: the service absorbs a dedup_id it already
// enqueued for an automation (outcome `duplicate`), so replaying everything since before the
// outage is safe and mails nothing twice. The service never pulls missed records; replaying is
// the recovery path.
//
// Pacing follows the spec's retry guidance: 429 waits Retry-After (from one machine the per-IP
// limit, 60 requests a minute across every endpoint, comes before the events limit of 120 per
// organization), 503 (kill switch: Retry-After 300) waits and retries, 500/502 back off;
// 400/413/422 are the event's fault (logged, skipped); 401/403 stop the replay (exit code 3), as
// do an unreachable server (exit code 4) and a URL with no events endpoint (404, exit code 5).
// Exit code 1: some events were rejected or still failing at the end. Exit code 2: usage, or a
// line of the file that is not JSON (named; nothing is sent).
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const TERMINAL_FOR_RUN = new Set([401, 403]);
const RETRYABLE = new Set([429, 500, 502, 503]);
const MAX_ATTEMPTS = 8;

/** Thrown on 401/403: no later event can succeed with this key. */
export class KeyRefusedError extends Error {}

/** Thrown on 404: PORCHLIGHT_URL does not lead to the events endpoint. */
export class NoEndpointError extends Error {}

/** The service's base URL: without trailing slashes or the /api/v1 an integrator may add. */
export function baseUrlOf(url) {
  return url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
}

const defaultSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function waitFor(response, attempt) {
  const retryAfter = response.headers.get("retry-after");
  if (retryAfter && /^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000 + Math.random() * 1000;
  return Math.min(60_000, 1000 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
}

/** Sends one envelope until it is accepted, rejected for good, or attempts run out. */
async function sendOne({ baseUrl, apiKey, fetch, sleep }, envelope) {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${baseUrl}/api/v1/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(envelope),
    });
    const body = await response.json().catch(() => undefined);
    if (!RETRYABLE.has(response.status) || attempt >= MAX_ATTEMPTS) return { status: response.status, body };
    await sleep(waitFor(response, attempt));
  }
}

/**
 * Replays the envelopes in order. Returns counts: accepted (202; of which duplicate = already
 * enqueued before), rejected (the event itself is invalid) and failed (still retryable at the end).
 */
export async function replayEvents({
  events,
  baseUrl,
  apiKey,
  dryRun = false,
  fetch = globalThis.fetch,
  sleep = defaultSleep,
  log = console.log,
}) {
  const summary = { accepted: 0, duplicate: 0, rejected: 0, failed: 0 };
  const base = baseUrlOf(baseUrl);
  for (const event of events) {
    const envelope = dryRun ? { ...event, dry_run: true } : event;
    const { status, body } = await sendOne({ baseUrl: base, apiKey, fetch, sleep }, envelope);
    if (status === 202) {
      summary.accepted++;
      if (body?.duplicate) summary.duplicate++;
      log(
        `${event.dedup_id}: ${body?.duplicate ? "already applied" : "accepted"} (${body?.outcomes?.map((o) => o.reason).join(", ") || "no binding"})`,
      );
    } else if (TERMINAL_FOR_RUN.has(status)) {
      throw new KeyRefusedError(
        `stopping: the key was refused (${status} ${body?.error ?? ""}); fix the key or its scopes (events:write)`,
      );
    } else if (status === 404) {
      throw new NoEndpointError(
        `stopping: ${base}/api/v1/events was not found (404); PORCHLIGHT_URL is the service's base URL`,
      );
    } else if (RETRYABLE.has(status)) {
      summary.failed++;
      log(
        `${event.dedup_id}: still failing after ${MAX_ATTEMPTS} attempts (${status} ${body?.error ?? ""}); replay again later`,
      );
    } else {
      summary.rejected++;
      log(`${event.dedup_id}: rejected ${status} ${body?.error ?? ""} ${body?.detail ?? ""}`);
    }
  }
  return summary;
}

/** The envelopes of an ndjson file; a line that is not JSON stops with its number. */
function readEvents(file) {
  const events = [];
  for (const [index, line] of readFileSync(file, "utf8").split("\n").entries()) {
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line));
    } catch (error) {
      console.error(`${file}:${index + 1}: not a JSON envelope (${error.message}); nothing was sent`);
      process.exit(2);
    }
  }
  return events;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const usage = (problem) => {
    console.error(
      `${problem}\nusage: PORCHLIGHT_URL=… PORCHLIGHT_API_KEY=ak_… node replay-events.mjs events.ndjson [--dry-run]`,
    );
    process.exit(2);
  };
  // Strict: a mistyped --dryrun must stop the replay, not send every event for real.
  let args;
  try {
    args = parseArgs({ options: { "dry-run": { type: "boolean" } }, allowPositionals: true, strict: true });
  } catch (error) {
    usage(error.message);
  }
  const [file, ...extra] = args.positionals;
  const { PORCHLIGHT_URL, PORCHLIGHT_API_KEY } = process.env;
  if (!file || extra.length > 0)
    usage(file ? `unexpected arguments: ${extra.join(" ")}` : "no events file named");
  if (!PORCHLIGHT_URL || !PORCHLIGHT_API_KEY) usage("PORCHLIGHT_URL and PORCHLIGHT_API_KEY must be set");
  if (!existsSync(file)) usage(`${file}: no such file`);
  const dryRun = args.values["dry-run"] === true;
  const events = readEvents(file);
  try {
    const summary = await replayEvents({
      events,
      baseUrl: PORCHLIGHT_URL,
      apiKey: PORCHLIGHT_API_KEY,
      dryRun,
    });
    console.log(JSON.stringify(summary));
    process.exit(summary.failed > 0 || summary.rejected > 0 ? 1 : 0);
  } catch (error) {
    if (error instanceof KeyRefusedError || error instanceof NoEndpointError) {
      console.error(error.message);
      process.exit(error instanceof KeyRefusedError ? 3 : 5);
    }
    // fetch rejects with a TypeError when the server cannot be reached (refused, DNS, TLS).
    const cause = error?.cause?.code ?? error?.cause?.message ?? error?.message;
    console.error(`stopping: ${PORCHLIGHT_URL} could not be reached (${cause}); replay again once it is`);
    process.exit(4);
  }
}
