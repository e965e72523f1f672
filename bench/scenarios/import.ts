import { randomInt } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { apiCall, createOrg } from "../lib/api-client.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { percentile } from "../lib/load.ts";
import { MAIN, startNodeServer } from "../lib/processes.ts";
import type { ResultRow, Scenario, ScenarioContext } from "../lib/scenario.ts";

const ROWS = 500;
const REMOTE_DELAY_MS = 50;

/** A Nominatim stand-in on loopback that answers every search after 50 ms. */
async function startSlowNominatim(): Promise<{ url: string; calls: () => number; close(): Promise<void> }> {
  let calls = 0;
  const server: Server = createServer((request, response) => {
    calls++;
    request.resume();
    setTimeout(() => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify([{ lat: "39.7817", lon: "-89.6501", addresstype: "building", type: "house" }]),
      );
    }, REMOTE_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** 500 rows at distinct addresses (new house numbers each time, so no geocode cache hit). */
function batch() {
  return {
    source: "jobs",
    rows: Array.from({ length: ROWS }, (_, index) => ({
      address: `${randomInt(1, 99_999)} Oak ${index} Ave, Springfield, IL 62701`,
      external_id: `job-${index}`,
      customer_name: "Bench Customer",
      completed_at: "2025-06-01",
    })),
  };
}

/** Imports one batch per org (10 batches per org per day); times each 500-row request. */
async function timeImports(
  context: ScenarioContext,
  env: Record<string, string>,
  label: string,
): Promise<ResultRow> {
  const database = await scenarioDatabase(context.kind, context.serverUrl);
  try {
    const server = await startNodeServer({
      entry: MAIN,
      args: ["--role", "api"],
      env: { ...database.env, ...env },
    });
    try {
      const org = await createOrg(server.baseUrl, "Bench import");
      const importOnce = async () => {
        const started = performance.now();
        const response = await apiCall(server.baseUrl, "POST", "/api/v1/import/jobs", {
          key: org.key,
          body: batch(),
        });
        const elapsed = performance.now() - started;
        if (response.status !== 201)
          throw new Error(`import failed: ${response.status} ${JSON.stringify(response.body)}`);
        return { elapsed, staged: response.body.staged as number };
      };
      await importOnce();
      const durations: number[] = [];
      let staged = 0;
      for (let run = 0; run < 3; run++) {
        const result = await importOnce();
        durations.push(result.elapsed);
        staged = result.staged;
      }
      const median = percentile(durations, 0.5);
      return {
        name: label,
        p50Ms: Math.round(median),
        errors: 0,
        non2xx: 0,
        peakRssMb: server.peakRssMb(),
        note: `median of 3 requests of ${ROWS} rows, ${staged} staged; ${Math.round(ROWS / (median / 1000))} rows/s`,
      };
    } finally {
      await server.stop();
    }
  } finally {
    await database.dispose();
  }
}

export const importRows: Scenario = {
  name: "import",
  target: `500 rows; with a remote geocoder adding ${REMOTE_DELAY_MS} ms per call, well under 500 × ${REMOTE_DELAY_MS} ms = 25 s`,
  async run(context) {
    const local = await timeImports(context, {}, "500 rows, local geocoder");
    const nominatim = await startSlowNominatim();
    try {
      const remote = await timeImports(
        context,
        { GEOCODER: "nominatim", GEOCODER_URL: nominatim.url },
        `500 rows, remote geocoder +${REMOTE_DELAY_MS} ms/call`,
      );
      remote.note = `${remote.note}; ${nominatim.calls()} geocoder calls in all; serial would be ${(ROWS * REMOTE_DELAY_MS) / 1000} s`;
      return { scenario: "import", database: context.kind, target: this.target, rows: [local, remote] };
    } finally {
      await nominatim.close();
    }
  },
};
