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
    // Only successful answers count: a 429 or 5xx is cheap and must not pass for throughput.
    reqPerSec: Math.round(result["2xx"] / seconds),
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
  const paced = plan.overallRate !== undefined;
  const run = autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: plan.durationSeconds,
    overallRate: plan.overallRate,
    // autocannon corrects a paced run for coordinated omission with an expected interval of
    // ceil(1 / rate per connection) ms, i.e. 1 ms at any rate above 1 req/s per connection; the
    // correction is redone below with the real interval.
    ignoreCoordinatedOmission: paced,
    timeout: 10,
    requests: [request],
  });
  const latencies: number[] = [];
  if (paced) {
    run.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
    });
  }
  const stats = toStats(await run);
  if (!paced || latencies.length === 0) return stats;
  const corrected = correctForCoordinatedOmission(latencies, (1000 * plan.connections) / plan.overallRate!);
  return { ...stats, p50Ms: percentile(corrected, 0.5), p99Ms: percentile(corrected, 0.99) };
}

/**
 * A paced connection that waits T ms for an answer could not send the requests due every
 * `intervalMs` meanwhile; as HdrHistogram's recordValueWithExpectedInterval does, each such slow
 * answer adds the latencies those requests would have seen: T - interval, T - 2 × interval, ….
 */
export function correctForCoordinatedOmission(latenciesMs: number[], intervalMs: number): number[] {
  const corrected = [...latenciesMs];
  for (const latency of latenciesMs) {
    for (let missed = latency - intervalMs; missed >= intervalMs; missed -= intervalMs)
      corrected.push(missed);
  }
  return corrected;
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

export interface Contender {
  label: string;
  plan: Omit<LoadPlan, "durationSeconds">;
  /**
   * Told before each run how many requests it may send (from this contender's best rate so
   * far), so it can provision enough organizations.
   */
  prepare?: (expectedRequests: number) => Promise<void>;
  /** The rate assumed before the warm-up has measured one. */
  initialRateGuess?: number;
}

export interface Measurement {
  median: RunStats;
  runs: RunStats[];
}

/**
 * A warm-up of each contender, then `runs` rounds in which each contender runs once, in turn, so
 * that drift on a shared machine (another tenant, a CPU's clock, the database's caches) falls on
 * the service and its baselines alike rather than on whichever ran last.
 */
export async function measureInterleaved(
  contenders: Contender[],
  options: MeasureOptions,
): Promise<Map<string, Measurement>> {
  // The best rate measured so far (the guess until the warm-up has run).
  const rates = new Map<string, number>();
  const runOnce = async (contender: Contender, seconds: number) => {
    const rate = rates.get(contender.label) ?? contender.initialRateGuess ?? 1500;
    // Three times the best rate so far: the first measured run after a cold warm-up can run at
    // more than twice the warm-up's rate, and a pool that runs dry turns the rest into 429s.
    await contender.prepare?.(Math.ceil(rate * 3 * Math.min(seconds + 1, 60)));
    const stats = await runLoad({ ...contender.plan, durationSeconds: seconds });
    // Every answer counts here, 429s included: sizing by the 2xx rate alone would feed a run that
    // ran out of organizations (and got cheap 429s) a pool just as short the next time.
    const sentPerSecond = Math.round(stats.requests / seconds);
    rates.set(contender.label, Math.max(rates.get(contender.label) ?? 50, stats.reqPerSec, sentPerSecond));
    return stats;
  };
  for (const contender of contenders) await runOnce(contender, options.warmupSeconds);
  const runs = new Map<string, RunStats[]>(contenders.map((c) => [c.label, []]));
  for (let round = 0; round < options.runs; round++) {
    for (const contender of contenders)
      runs.get(contender.label)!.push(await runOnce(contender, options.measureSeconds));
  }
  return new Map(
    contenders.map((c) => [c.label, { median: medianRun(runs.get(c.label)!), runs: runs.get(c.label)! }]),
  );
}

/** Warm-up, then `runs` measured runs of one plan; returns all of them and the median run. */
export async function measure(
  plan: Omit<LoadPlan, "durationSeconds">,
  options: MeasureOptions,
): Promise<Measurement> {
  return (await measureInterleaved([{ label: "only", plan }], options)).get("only")!;
}
