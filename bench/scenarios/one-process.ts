import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createPlaceholderImagery } from "../../src/imagery/placeholder.ts";
import { THUMBNAIL_WIDTH } from "../../src/pieces/piece-proof.ts";
import { backDrawing, frontDrawing } from "../../src/render/card-layout.ts";
import { composeCard } from "../../src/render/compose.ts";
import { drawingsToPdf } from "../../src/render/drawing.ts";
import { fitHomeImage, renderSidePng, renderSidePreview } from "../../src/render/render.ts";
import { DEFAULT_TEMPLATE } from "../../src/render/template.ts";
import { scenarioDatabase } from "../lib/databases.ts";
import { measureInterleaved, percentile, runLoad } from "../lib/load.ts";
import { OrgPool } from "../lib/org-pool.ts";
import { MAIN, type RunningServer, startNodeServer } from "../lib/processes.ts";
import { type ResultRow, ratio, rowFromRun, type Scenario, type ScenarioContext } from "../lib/scenario.ts";
import { EVENT_TYPE, eventContender, withServers } from "./events.ts";

const LOOP_REPORT_MS = 1000;

/** `--role api`, or the default start (API and workers in one process) with no role given. */
function startService(role: "api" | "all", env: Record<string, string>): Promise<RunningServer> {
  return startNodeServer({
    entry: MAIN,
    args: role === "api" ? ["--role", "api"] : [],
    // A shared, busy machine has taken over two minutes to start the service.
    readyTimeoutMs: 300_000,
    env: { TRUST_PROXY: "true", EVENT_LOOP_REPORT_MS: String(LOOP_REPORT_MS), ...env },
  });
}

/** The event-loop delay lines (EVENT_LOOP_REPORT_MS) a server logged since `sinceMs`. */
function loopDelays(server: RunningServer, sinceMs: number): { p99: number; max: number }[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.includes('"event loop delay"'))
    .map((line) => JSON.parse(line) as { time: number; eventLoopDelayMs: { p99: number; max: number } })
    .filter((entry) => entry.time >= sinceMs)
    .map((entry) => entry.eventLoopDelayMs);
}

/** CPU seconds (user + system, every thread) a process has used, from /proc. */
function cpuSeconds(pid: number | undefined): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(stat)) return undefined;
  const text = readFileSync(stat, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export const eventsLiveOneProcess: Scenario = {
  name: "events-live-one-process",
  target:
    "default start (API + workers, every event queues a card): req/s ≥ 0.5 × --role api in the same run; p99 ≤ 50 ms at 70 % of the API-only rate; event-loop delay p99 ≤ 20 ms while rendering",
  async run(context: ScenarioContext) {
    const apiDb = await scenarioDatabase(context.kind, context.serverUrl);
    const allDb = await scenarioDatabase(context.kind, context.serverUrl);
    try {
      return await withServers(
        [startService("api", apiDb.env), startService("all", allDb.env)],
        async ([apiOnly, oneProcess]) => {
          const apiPool = new OrgPool(apiOnly!.baseUrl, EVENT_TYPE);
          const allPool = new OrgPool(oneProcess!.baseUrl, EVENT_TYPE);
          const connections = context.settings.connections;
          const api = eventContender("api", apiOnly!, apiPool, connections, false);
          const all = eventContender("all", oneProcess!, allPool, connections, false);
          const measured = await measureInterleaved([api, all], context.settings);
          const apiRate = measured.get("api")!;
          const allRate = measured.get("all")!;
          const fixedRate = Math.max(1, Math.floor(apiRate.median.reqPerSec * 0.7));
          await allPool.ensureCapacity(fixedRate * Math.min(context.settings.measureSeconds + 1, 60));
          const pacedFrom = Date.now();
          const paced = await runLoad({
            ...all.plan,
            overallRate: fixedRate,
            durationSeconds: context.settings.measureSeconds,
          });
          const delays = loopDelays(oneProcess!, pacedFrom);
          const outbox = path.join(allDb.env.DATA_DIR!, "outbox");
          // No card finished yet (a starved render thread) leaves no outbox directory: zero cards.
          const mailed = existsSync(outbox) ? readdirSync(outbox).length : 0;
          const loopP99 = delays.length
            ? percentile(
                delays.map((d) => d.p99),
                1,
              )
            : undefined;
          const loopMax = delays.length ? Math.max(...delays.map((d) => d.max)) : undefined;
          const rows: ResultRow[] = [
            rowFromRun("--role api: POST /api/v1/events (live)", apiRate.median, apiOnly!.peakRssMb(), {
              runs: apiRate.runs,
            }),
            rowFromRun("default start (API + workers): live", allRate.median, oneProcess!.peakRssMb(), {
              runs: allRate.runs,
              ratio: ratio(allRate.median.reqPerSec, apiRate.median.reqPerSec),
              baseline: "--role api",
            }),
            rowFromRun(
              `default start at 70 % of --role api (${fixedRate} req/s fixed)`,
              paced,
              oneProcess!.peakRssMb(),
              {
                note: `p99 target ≤ 50 ms; event-loop delay p99 ${loopP99} ms (worst 1 s window), max ${loopMax} ms; ${mailed} cards in the outbox by then`,
              },
            ),
          ];
          return {
            scenario: "events-live-one-process",
            database: context.kind,
            target: this.target,
            rows,
            facts: { fixedRate, eventLoopDelayPerSecond: delays, cardsInOutbox: mailed, orgs: allPool.size },
          };
        },
      );
    } finally {
      await apiDb.dispose();
      await allDb.dispose();
    }
  },
};

/** Per-card CPU time of each render step, measured in this process (ms, the mean of `count`). */
async function renderSteps(count: number): Promise<Record<string, number>> {
  const imagery = createPlaceholderImagery();
  const totals: Record<string, number> = {};
  const timed = async <T>(step: string, work: () => Promise<T> | T): Promise<T> => {
    const before = process.cpuUsage();
    const result = await work();
    const used = process.cpuUsage(before);
    totals[step] = (totals[step] ?? 0) + (used.user + used.system) / 1000;
    return result;
  };
  for (let index = 0; index < count + 5; index++) {
    if (index === 5) for (const step of Object.keys(totals)) totals[step] = 0;
    const location = {
      address: `${index} Elm St`,
      street: `${index} Elm St`,
      city: "Springfield",
      latitude: null,
      longitude: null,
    };
    const image = await timed("imagery (placeholder)", () => imagery.fetchImage(location));
    const card = await timed("compose (merge fields)", () =>
      composeCard({
        recipient: {
          recipientName: "Jane Smith",
          address: location.address,
          street: location.street,
          city: "Springfield",
          state: "IL",
          zip: "62704",
          properties: {},
        },
        orgName: "Bright Roofing Co.",
        template: DEFAULT_TEMPLATE,
        landingUrl: `https://porchlight.example/l/${index.toString(36).padStart(22, "x")}`,
        homeImage: { bytes: image.bytes, streetSign: image.streetSign },
        printAddressBlock: true,
      }),
    );
    const fitted = await timed("fit picture (cached after the first)", () =>
      fitHomeImage(card.homeImage.bytes, card.size),
    );
    const front = await timed("layout front", () => frontDrawing(card, fitted));
    const back = await timed("layout back (QR, text)", () => backDrawing(card));
    await timed("PDF front", () => drawingsToPdf([front]));
    await timed("PDF back", () => drawingsToPdf([back]));
    await timed("list thumbnail (PNG)", () => renderSidePng(card, "front", { width: THUMBNAIL_WIDTH }));
    await timed("previews (SVG, both sides)", () =>
      Promise.all([renderSidePreview(card, "front"), renderSidePreview(card, "back")]),
    );
  }
  return Object.fromEntries(
    Object.entries(totals).map(([step, ms]) => [step, Math.round((ms / count) * 100) / 100]),
  );
}

const countMailed = (outbox: string) =>
  existsSync(outbox)
    ? readdirSync(outbox).filter((piece) => existsSync(path.join(outbox, piece, "manifest.json"))).length
    : 0;

export const cards: Scenario = {
  name: "cards",
  target: "≥ 30 print-ready cards per second per core, end to end (queued piece → PDFs in the outbox)",
  async run(context: ScenarioContext) {
    const database = await scenarioDatabase(context.kind, context.serverUrl);
    const count = context.settings.quick ? 300 : 1200;
    try {
      // Queue the pieces with an API-only start (no worker runs there) …
      const api = await startService("api", database.env);
      try {
        const pool = new OrgPool(api.baseUrl, EVENT_TYPE);
        await pool.ensureCapacity(count);
        const queue = eventContender("queue", api, pool, context.settings.connections, false);
        let sent = 0;
        while (sent < count) {
          const batch = Math.min(200, count - sent);
          const run = await runLoad({
            ...queue.plan,
            overallRate: 400,
            durationSeconds: Math.ceil(batch / 400) + 0,
          });
          sent += run.requests - run.non2xx;
        }
        context.log(`cards: ${sent} pieces queued`);
      } finally {
        await api.stop();
      }
      // … then time the default start (one core, one render thread) working them off.
      const outbox = path.join(database.env.DATA_DIR!, "outbox");
      const server = await startService("all", { ...database.env, RENDER_CONCURRENCY: "1" });
      try {
        const cpuAtStart = cpuSeconds(server.child.pid);
        const startedAt = Date.now();
        let mailed = 0;
        // The steady state: from the first quarter of the cards on, once the process has warmed up
        // (V8 re-compiles the embedded database's hot WebAssembly and the render thread's code in
        // the background during its first minutes: start-up cost, not a card's).
        let warm: { cpu: number; mailed: number; at: number } | undefined;
        while (Date.now() - startedAt < 600_000) {
          mailed = countMailed(outbox);
          if (!warm && mailed >= count / 4) {
            warm = { cpu: cpuSeconds(server.child.pid) ?? Number.NaN, mailed, at: Date.now() };
          }
          if (mailed >= count) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const endedAt = Date.now();
        const seconds = (endedAt - startedAt) / 1000;
        const cpuAtEnd = cpuSeconds(server.child.pid) ?? Number.NaN;
        const cpu = cpuAtEnd - (cpuAtStart ?? Number.NaN);
        const steadyCards = warm ? mailed - warm.mailed : Number.NaN;
        const steadyCpu = warm ? cpuAtEnd - warm.cpu : Number.NaN;
        const steps = await renderSteps(100);
        const renderMs = Object.values(steps).reduce((sum, ms) => sum + ms, 0);
        const perCardCpuMs = (cpu * 1000) / mailed;
        const breakdown = {
          ...steps,
          "the rest: job claim, piece insert, suppression check, geocode, outbox write, status update, images kept":
            Math.round((perCardCpuMs - renderMs) * 100) / 100,
        };
        context.log(`cards: ${mailed} in ${seconds.toFixed(1)} s, ${cpu.toFixed(1)} CPU s`);
        const rows: ResultRow[] = [
          {
            name: "cards end to end (default start, 1 render thread, server on 1 core)",
            reqPerSec: Math.round((mailed / seconds) * 10) / 10,
            peakRssMb: server.peakRssMb(),
            note: `${Math.round((mailed / cpu) * 10) / 10} cards per CPU-second (all threads); ${perCardCpuMs.toFixed(1)} ms CPU per card`,
          },
          ...(steadyCards > 0
            ? [
                {
                  name: "cards after the first quarter (warmed up)",
                  reqPerSec: Math.round((steadyCards / ((endedAt - warm!.at) / 1000)) * 10) / 10,
                  note: `${Math.round((steadyCards / steadyCpu) * 10) / 10} cards per CPU-second (all threads); ${((steadyCpu * 1000) / steadyCards).toFixed(1)} ms CPU per card`,
                },
              ]
            : []),
        ];
        return {
          scenario: "cards",
          database: context.kind,
          target: this.target,
          rows,
          facts: {
            cards: mailed,
            seconds,
            cpuSeconds: cpu,
            steadyCards,
            steadyCpuSeconds: steadyCpu,
            cpuMsPerCardByStep: breakdown,
          },
        };
      } finally {
        await server.stop();
      }
    } finally {
      await database.dispose();
    }
  },
};
