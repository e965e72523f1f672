/**
 * The retry policy of the spec's retry guidance: retry 429, 500, 502, 503, 409 `import_in_progress`
 * and the legacy trigger's kill-switch 400; never retry any other 400, nor 401, 403, 404, 413 or 422.
 * Retries are safe because every write of the API is idempotent (dedup_id, Idempotency-Key,
 * deal_id, crm_record_id).
 */

export interface RetryOptions {
  /** Attempts in all, the first one included (default 5; 1 disables retries). */
  maxAttempts?: number;
  /**
   * The longest the client waits before one retry (default 300 000 ms: the kill switch's
   * `Retry-After: 300`, the longest transient wait the API asks for). A `Retry-After` longer than
   * this is not shortened: the response is returned to the caller instead (for example the import's
   * daily limit, whose `Retry-After` is the seconds to 00:00 UTC).
   */
  maxDelayMs?: number;
  /** Waits between attempts; tests pass a fake. Default: setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the jitter; tests pass a fixed one. Default: Math.random. */
  random?: () => number;
}

export type FetchLike = (request: Request) => Promise<Response>;

/** The kill switch's answer on the legacy trigger: a 400 that is transient (spec: Errors, Other). */
export const TRIGGER_KILL_SWITCH_ERROR = "Automations are globally disabled";

const ALWAYS_RETRYABLE = new Set([429, 500, 502, 503]);
/** Backoff base for retryable answers without Retry-After (500, 502, network errors). */
const BASE_DELAY_MS = 500;
/** The jitter added to a Retry-After: up to 20 % of it, at most one second. */
const MAX_RETRY_AFTER_JITTER_MS = 1000;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The `error` code of a JSON error body, read from a clone so the caller can still read it. */
async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.clone().json();
    if (body && typeof body === "object" && "error" in body && typeof body.error === "string") {
      return body.error;
    }
  } catch {
    // Not JSON: not one of the retryable 400/409 bodies.
  }
  return undefined;
}

/** Whether the spec's retry guidance says this answer left the request unapplied and retryable. */
export async function isRetryableResponse(response: Response): Promise<boolean> {
  if (ALWAYS_RETRYABLE.has(response.status)) return true;
  if (response.status === 409) return (await errorCodeOf(response)) === "import_in_progress";
  if (response.status === 400) return (await errorCodeOf(response)) === TRIGGER_KILL_SWITCH_ERROR;
  return false;
}

/** `Retry-After` in milliseconds: delta-seconds (what the API sends) or an HTTP date. */
export function retryAfterMs(response: Response, nowMs = Date.now()): number | undefined {
  const value = response.headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export interface ResolvedRetryOptions {
  maxAttempts: number;
  maxDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  return {
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? 5)),
    maxDelayMs: Math.max(0, options.maxDelayMs ?? 300_000),
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
  };
}

/**
 * How long to wait before retry number `retry` (1 for the first retry), or undefined when the
 * server asks for a longer wait than the cap allows. With Retry-After the wait is at least that
 * (never earlier than the server asked) plus jitter, so many clients limited in the same window do
 * not all come back on the same second; without it, exponential backoff with equal jitter.
 */
export function retryDelayMs(
  retry: number,
  retryAfter: number | undefined,
  options: Pick<ResolvedRetryOptions, "maxDelayMs" | "random">,
): number | undefined {
  const { maxDelayMs, random } = options;
  if (retryAfter !== undefined) {
    if (retryAfter > maxDelayMs) return undefined;
    const jitter = random() * Math.min(MAX_RETRY_AFTER_JITTER_MS, retryAfter * 0.2);
    return Math.min(maxDelayMs, retryAfter + jitter);
  }
  const exponential = Math.min(maxDelayMs, BASE_DELAY_MS * 2 ** (retry - 1));
  return exponential / 2 + random() * (exponential / 2);
}

/** fetch rejects with a TypeError when the network fails; anything else is not ours to retry. */
const isNetworkFailure = (error: unknown) => error instanceof TypeError;

/**
 * Wraps a fetch so retryable answers (and network failures, which leave the outcome unknown but
 * are safe to replay on an idempotent API) are retried per the policy. The last answer, retryable
 * or not, is returned as is; the last network error is thrown.
 */
export function createRetryingFetch(baseFetch: FetchLike, options: RetryOptions = {}): FetchLike {
  const policy = resolveRetryOptions(options);
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const isLast = attempt >= policy.maxAttempts;
      let response: Response;
      try {
        // A request body can be read once: every attempt sends its own copy.
        response = await baseFetch(isLast ? request : request.clone());
      } catch (error) {
        if (isLast || !isNetworkFailure(error)) throw error;
        await policy.sleep(retryDelayMs(attempt, undefined, policy)!);
        continue;
      }
      if (isLast || !(await isRetryableResponse(response))) return response;
      const delay = retryDelayMs(attempt, retryAfterMs(response), policy);
      if (delay === undefined) return response;
      await response.body?.cancel();
      await policy.sleep(delay);
    }
  };
}
