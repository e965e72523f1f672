import autocannon, { type AutocannonRequest, type Result } from "autocannon";

/** One measured run, as reported. Latencies in milliseconds. */
export interface RunStats {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  non2xx: number;
  statusCounts: Record<string, number>;
}

export interface LoadPlan {
  url: string;
  connections: number;
  durationSeconds: number;
  overallRate?: number;
  /** Builds each request; called once per request sent. */
  nextRequest: () => { method: string; path: string; headers: Record<string, string>; body?: string };
}

function toStats(result: Result): RunStats {
  const statusCounts: Record<string, number> = {};
  for (const [code, entry] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = entry.count;
  const seconds = Math.max(result.duration, 0.001);
  return {
    reqPerSec: Math.round((result["2xx"] + result.non2xx) / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result["2xx"] + result.non2xx,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statusCounts,
  };
}

export async function runLoad(plan: LoadPlan): Promise<RunStats> {
  const request: AutocannonRequest = {
    setupRequest: (raw) => ({ ...raw, ...plan.nextRequest() }),
  };
  const result = await autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: plan.durationSeconds,
    overallRate: plan.overallRate,
    timeout: 10,
    requests: [request],
  });
  return toStats(result);
}

/** The run with the median req/s of three (its own p50/p99 are reported with it). */
export function medianRun(runs: RunStats[]): RunStats {
  const sorted = [...runs].sort((a, b) => a.reqPerSec - b.reqPerSec);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function percentile(samples: number[], fraction: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return Math.round(sorted[index]! * 100) / 100;
}

export interface MeasureOptions {
  warmupSeconds: number;
  measureSeconds: number;
  runs: number;
}

/** Warm-up, then `runs` measured runs; returns all of them and the median run. */
export async function measure(
  plan: Omit<LoadPlan, "durationSeconds">,
  options: MeasureOptions,
): Promise<{ median: RunStats; runs: RunStats[] }> {
  await runLoad({ ...plan, durationSeconds: options.warmupSeconds });
  const runs: RunStats[] = [];
  for (let run = 0; run < options.runs; run++) {
    runs.push(await runLoad({ ...plan, durationSeconds: options.measureSeconds }));
  }
  return { median: medianRun(runs), runs };
}

/**
 * Like measure, but before each run `prepare` is told how many requests the run may send
 * (from the previous run's rate), so it can provision enough organizations.
 */
export async function measureProvisioned(
  plan: Omit<LoadPlan, "durationSeconds">,
  options: MeasureOptions,
  prepare: (expectedRequests: number) => Promise<void>,
  initialRateGuess = 1500,
): Promise<{ median: RunStats; runs: RunStats[] }> {
  let rate = initialRateGuess;
  const expected = (seconds: number) => Math.ceil(rate * 1.5 * Math.min(seconds + 1, 60));
  await prepare(expected(options.warmupSeconds));
  const warmup = await runLoad({ ...plan, durationSeconds: options.warmupSeconds });
  rate = Math.max(warmup.reqPerSec, 50);
  const runs: RunStats[] = [];
  for (let run = 0; run < options.runs; run++) {
    await prepare(expected(options.measureSeconds));
    const stats = await runLoad({ ...plan, durationSeconds: options.measureSeconds });
    rate = Math.max(rate, stats.reqPerSec);
    runs.push(stats);
  }
  return { median: medianRun(runs), runs };
}
