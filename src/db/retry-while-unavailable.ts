import { isConnectionError } from "./database.ts";

export interface RetryBudget {
  /** Give up (rethrow the last error) once this much time has passed. */
  budgetMs: number;
  /** First wait; each next one doubles, up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  onRetry?: (error: unknown, attempt: number) => void;
  /** An unavailability that waiting cannot heal here (say, refused credentials at start): thrown at once. */
  giveUpOn?: (error: unknown) => boolean;
  /** Stops retrying (the last error is thrown) once aborted: the job timed out, the worker stops. */
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a write whose loss would cost more than waiting: a short database outage (a failover, a
 * restart) is waited out with backoff; any other error, or an outage longer than the budget,
 * is thrown. The write must be idempotent: a try whose answer was lost may have committed.
 */
export async function retryWhileUnavailable<T>(write: () => Promise<T>, budget: RetryBudget): Promise<T> {
  const { budgetMs, firstDelayMs = 200, maxDelayMs = 5_000, onRetry, giveUpOn, signal } = budget;
  const deadline = Date.now() + budgetMs;
  let delay = firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      // The last wait ends at the deadline, and one more try is made there: a database back in the
      // budget's last seconds is found (stopping when the next full wait passed it missed up to 5 s).
      const left = deadline - Date.now();
      if (!isConnectionError(error) || giveUpOn?.(error) || signal?.aborted || left <= 0) {
        throw error;
      }
      onRetry?.(error, attempt);
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}
