/**
 * A maintenance pass on a timer (the embedded database's vacuum, the pruning of finished jobs):
 * never two passes at once, timers that never hold the process open, a stop that waits for the
 * pass in progress. The pass logs its own failures: a failed pass is simply tried again next time.
 */
export interface PeriodicTask {
  /** One pass now (a pass already running is awaited instead of doubled). */
  runOnce(): Promise<void>;
  /** Stops the timers and waits for a pass in progress. */
  stop(): Promise<void>;
}

/** Runs `pass` every `intervalMs`, and once `firstPassAfterMs` after start when that is given. */
export function startPeriodicTask(
  pass: () => Promise<void>,
  options: { intervalMs: number; firstPassAfterMs?: number },
): PeriodicTask {
  let running: Promise<void> | undefined;
  const runOnce = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const first =
    options.firstPassAfterMs === undefined
      ? undefined
      : setTimeout(() => void runOnce(), options.firstPassAfterMs);
  const timer = setInterval(() => void runOnce(), options.intervalMs);
  first?.unref();
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
