import { once } from "node:events";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import type { Database } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { addressSinkFor } from "../../src/neighbours/address-sink.ts";
import { loadAddressFile } from "../../src/neighbours/load-addresses.ts";
import { nearestHomes, ownHomeKeys, referenceAddressOf } from "../../src/neighbours/reference-addresses.ts";
import { syntheticCsvLines, syntheticHome } from "../../src/neighbours/synthetic-neighbourhood.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { percentile } from "../lib/load.ts";
import { BENCH_ADMIN_TOKEN, MAIN, startNodeServer } from "../lib/processes.ts";
import type { ResultRow, Scenario } from "../lib/scenario.ts";
import { openForSeeding } from "../lib/seed.ts";

const SMALL = 10_000;
const QUERIES = 500;

/** An OpenAddresses CSV of homes [from, to) of the generated grid. */
async function writeCsv(file: string, from: number, to: number): Promise<void> {
  const out = createWriteStream(file);
  let first = true;
  for (const line of syntheticCsvLines(to)) {
    // The header, then only homes from `from` on.
    if (!first && from > 0) {
      from--;
      continue;
    }
    first = false;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** p50/p99 of the K=20, R=400 m query around homes spread over the first `homes`. */
async function nearestLatency(
  database: Database,
  homes: number,
): Promise<{ p50: number; p99: number; found: number }> {
  const times: number[] = [];
  let found = 0;
  for (let index = 0; index < QUERIES + 20; index++) {
    const verdict = referenceAddressOf(syntheticHome((index * 7919) % homes));
    if (!("address" in verdict)) continue;
    const home = verdict.address;
    const started = performance.now();
    const rows = await nearestHomes(database.db, {
      latitude: home.latitude,
      longitude: home.longitude,
      count: 20,
      radiusM: 400,
      excludeKeys: ownHomeKeys(home.normalizedAddress),
    });
    if (index >= 20) {
      times.push(performance.now() - started);
      found += rows.length;
    }
  }
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    p50: round(percentile(times, 0.5)),
    p99: round(percentile(times, 0.99)),
    found: Math.round(found / QUERIES),
  };
}

/**
 * µs per row of the loader's keying (`referenceAddressOf`, the per-street memo) against the key
 * function called on each row, over the same generated homes in the same process: a ratio that
 * holds however loaded the machine is.
 */
function keyingCost(): { memoUs: number; keyFunctionUs: number } {
  const homes = Array.from({ length: 20_000 }, (_, index) => syntheticHome(index + 500_000));
  let started = performance.now();
  for (const home of homes) referenceAddressOf(home);
  const memoUs = ((performance.now() - started) * 1000) / homes.length;
  const sample = homes.slice(0, 2000);
  started = performance.now();
  for (const home of sample) {
    normalizeAddress(`${home.NUMBER} ${home.STREET}, ${home.CITY}, ${home.REGION} ${home.POSTCODE}`);
  }
  const keyFunctionUs = ((performance.now() - started) * 1000) / sample.length;
  const round = (value: number) => Math.round(value * 10) / 10;
  return { memoUs: round(memoUs), keyFunctionUs: round(keyFunctionUs) };
}

async function admin(baseUrl: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`${baseUrl}/admin/v1${url}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** From POST /api/v1/events to 50 print-ready cards in the local outbox, on the default start. */
async function fiftyHomeCampaign(env: Record<string, string>): Promise<number> {
  const server = await startNodeServer({ entry: MAIN, env, readyTimeoutMs: 300_000 });
  try {
    const org = await admin(server.baseUrl, "POST", "/orgs", { name: "Bench Roofing", billing_owner: true });
    const key = (await admin(server.baseUrl, "POST", `/orgs/${org.org_id}/keys`, {})).key;
    await admin(server.baseUrl, "POST", `/orgs/${org.org_id}/automations`, {
      name: "Neighbours",
      trigger: { type: "custom_api", event_type: "job.completed" },
      audience: { type: "neighbours", count: 50, radius_m: 400 },
    });
    const outbox = path.join(env.DATA_DIR!, "outbox");
    const cardsBefore = existsSync(outbox) ? readdirSync(outbox).length : 0;
    const started = performance.now();
    const event = await fetch(`${server.baseUrl}/api/v1/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        event_type: "job.completed",
        object_type: "job",
        dedup_id: "bench-job-742",
        record: {
          id: "bench-job-742",
          properties: { street: "742 Evergreen Terrace", city: "Springfield", state: "IL", zip: "62704" },
        },
      }),
    });
    if (event.status !== 202) throw new Error(`event: ${event.status} ${await event.text()}`);
    for (;;) {
      const cards = existsSync(outbox) ? readdirSync(outbox).length - cardsBefore : 0;
      if (cards >= 50) return Math.round(performance.now() - started);
      if (performance.now() - started > 120_000) throw new Error(`only ${cards} cards after 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await server.stop();
  }
}

export const neighbours: Scenario = {
  name: "neighbours",
  target:
    "load ≥ 50k addresses/s (PostgreSQL), ≥ 10k/s (PGlite) at 1 M; nearest 20 within 400 m at 1 M: p50 ≤ 10 ms, p99 ≤ 30 ms; a 50-home campaign from event to 50 print-ready cards ≤ 5 s (default start)",
  async run(context) {
    const total = Number(process.env.BENCH_NEIGHBOUR_ROWS ?? (context.settings.quick ? 100_000 : 1_000_000));
    const scenarioDb = await scenarioDatabase(context.kind, context.serverUrl);
    const dir = mkdtempSync(path.join(tmpdir(), "porchlight-bench-addresses-"));
    const rows: ResultRow[] = [];
    const facts: Record<string, unknown> = {
      total,
      loadAverageAtStart: loadavg().map((value) => value.toFixed(1)),
    };
    const keying = keyingCost();
    facts.keying = keying;
    rows.push({
      name: "key a row: per-street memo vs the key function on every row (µs/row)",
      note: `${keying.memoUs} µs vs ${keying.keyFunctionUs} µs a row (${(keying.keyFunctionUs / keying.memoUs).toFixed(1)}×), same process`,
    });
    try {
      const database = await openForSeeding(scenarioDb);
      try {
        const smallFile = path.join(dir, "small.csv");
        const restFile = path.join(dir, "rest.csv");
        await writeCsv(smallFile, 0, SMALL);
        await writeCsv(restFile, SMALL, total);
        const load = async (file: string) => {
          const sink = await addressSinkFor(database, file, { databaseUrl: scenarioDb.url });
          try {
            return await loadAddressFile(file, { sink });
          } finally {
            await sink.close();
          }
        };
        await load(smallFile);
        const small = await nearestLatency(database, SMALL);
        context.log(`  nearest at ${SMALL}: p50 ${small.p50} ms, p99 ${small.p99} ms`);
        const big = await load(restFile);
        context.log(`  loaded ${big.rows} rows at ${big.rowsPerSecond} rows/s`);
        rows.push({
          name: `load ${big.rows} generated rows (${context.kind === "postgres" ? "COPY" : "batched INSERT"})`,
          reqPerSec: big.rowsPerSecond,
          note: `${big.seconds.toFixed(1)} s; ${big.added} added, ${big.rejected} rejected; rows/s in the req/s column`,
        });
        const large = await nearestLatency(database, total);
        rows.push({
          name: `nearest 20 within 400 m at ${SMALL} homes`,
          p50Ms: small.p50,
          p99Ms: small.p99,
          note: `${small.found} found per query`,
        });
        rows.push({
          name: `nearest 20 within 400 m at ${total} homes`,
          p50Ms: large.p50,
          p99Ms: large.p99,
          note: `${large.found} found per query; p50 ${(large.p50 / small.p50).toFixed(2)}× the ${SMALL}-home p50`,
        });
        facts.load = big;
        facts.nearestSmall = small;
        facts.nearestLarge = large;
      } finally {
        await database.close();
      }
      // The load and nearest figures stand even when the server cannot start (a shared checkout
      // mid-edit): the failure is reported with them.
      try {
        const campaignMs = await fiftyHomeCampaign(scenarioDb.env);
        rows.push({
          name: "50-home neighbour campaign: event → 50 print-ready cards (default start)",
          p50Ms: campaignMs,
        });
        facts.campaignMs = campaignMs;
      } catch (error) {
        const message =
          error instanceof Error ? error.message.split("\n").slice(0, 2).join(" ") : String(error);
        context.log(`  50-home campaign not measured: ${message}`);
        facts.campaignError = message;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await scenarioDb.dispose();
    }
    facts.loadAverageAtEnd = loadavg().map((value) => value.toFixed(1));
    return { scenario: "neighbours", database: context.kind, target: this.target, rows, facts };
  },
};
