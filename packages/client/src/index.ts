import createClient, { type Client } from "openapi-fetch";
import { createRetryingFetch, type FetchLike, type RetryOptions } from "./retry.ts";
import type { components, operations, paths } from "./schema.d.ts";

export {
  createRetryingFetch,
  type FetchLike,
  isRetryableResponse,
  type RetryOptions,
  retryAfterMs,
  retryDelayMs,
  TRIGGER_KILL_SWITCH_ERROR,
} from "./retry.ts";
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  type VerifyFailure,
  type VerifyWebhookInput,
  type VerifyWebhookResult,
  verifyWebhook,
  type WebhookHeaders,
} from "./webhooks.ts";
export type { components, operations, paths };

export interface PorchlightClientOptions {
  /** Where the service runs, e.g. `https://porchlight.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** The organization's API key (`ak_…`). */
  apiKey: string;
  /** The fetch to send requests with; default: the global fetch. */
  fetch?: FetchLike;
  /** The retry policy; `{maxAttempts: 1}` disables retries. */
  retry?: RetryOptions;
}

export type PorchlightClient = Client<paths>;

/**
 * A typed client of the developer API (types generated from openapi.json): every call returns
 * `{data}` on success or `{error}` with the endpoint's documented error body, plus `response`.
 * Retryable answers are retried per the spec's retry guidance before the call resolves.
 */
export function createPorchlightClient(options: PorchlightClientOptions): PorchlightClient {
  const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: createRetryingFetch(baseFetch, options.retry),
  });
}
