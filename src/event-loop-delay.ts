import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Logger } from "pino";

/**
 * With EVENT_LOOP_REPORT_MS set, one log line per interval with the event loop's delay (p50, p99,
 * max in ms, from perf_hooks' histogram): how long a request that arrived in that interval could
 * have waited for the loop. The bench reads these lines while the renderer is busy.
 */
const RESOLUTION_MS = 10;

export function startEventLoopDelayReport(options: { logger: Logger; intervalMs: number }): () => void {
  // Asked for explicitly, so printed whatever LOG_LEVEL says (a bench runs at warn).
  const logger = options.logger.child({}, { level: "info" });
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  // The histogram records the time between its timer's ticks; the delay is what exceeds the tick.
  const ms = (nanoseconds: number) =>
    Math.max(0, Math.round(nanoseconds / 10_000 - RESOLUTION_MS * 100) / 100);
  const timer = setInterval(() => {
    logger.info(
      {
        eventLoopDelayMs: {
          p50: ms(histogram.percentile(50)),
          p99: ms(histogram.percentile(99)),
          max: ms(histogram.max),
        },
      },
      "event loop delay",
    );
    histogram.reset();
  }, options.intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    histogram.disable();
  };
}
