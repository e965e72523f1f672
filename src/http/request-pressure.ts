import type { FastifyInstance } from "fastify";

/**
 * How busy this process's HTTP API is, for the background work that shares its CPU. In the
 * default one-process start (API and workers together, the only start PGlite allows) a backlog
 * of cards kept the job worker at full speed: each card's ~20 statements and bookkeeping took
 * the core the API needed, and requests queued behind them (issue 25). The worker asks `isBusy()`
 * before it claims, and while the API is busy runs fewer jobs at once (jobs/worker.ts).
 */
export interface RequestPressure {
  /** Counts one request that arrived now. */
  noteRequest(): void;
  /** True while requests arrive at `busyAtPerSecond` or more (over the last `windowMs`). */
  isBusy(): boolean;
}

export interface RequestPressureOptions {
  /** The request rate from which the API counts as busy (default 200 a second). */
  busyAtPerSecond?: number;
  /** The span the rate is measured over (default 250 ms). */
  windowMs?: number;
  now?: () => number;
}

/**
 * A rate over a sliding window from two counters: the current window's and the previous one's,
 * weighted by how much of the previous window still lies inside the span. O(1) per request.
 */
export function createRequestPressure(options: RequestPressureOptions = {}): RequestPressure {
  const windowMs = options.windowMs ?? 250;
  const busyAt = ((options.busyAtPerSecond ?? 200) * windowMs) / 1000;
  const now = options.now ?? Date.now;
  let windowStart = now();
  let current = 0;
  let previous = 0;

  const roll = (at: number) => {
    const elapsedWindows = Math.floor((at - windowStart) / windowMs);
    if (elapsedWindows <= 0) return;
    previous = elapsedWindows === 1 ? current : 0;
    current = 0;
    windowStart += elapsedWindows * windowMs;
  };

  return {
    noteRequest() {
      roll(now());
      current += 1;
    },
    isBusy() {
      const at = now();
      roll(at);
      const previousShare = 1 - (at - windowStart) / windowMs;
      return previous * previousShare + current >= busyAt;
    },
  };
}

/** Notes every request the app receives (health checks included: they cost the same CPU). */
export function registerRequestPressure(app: FastifyInstance, pressure: RequestPressure): void {
  app.addHook("onRequest", (_request, _reply, done) => {
    pressure.noteRequest();
    done();
  });
}
