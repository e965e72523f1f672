import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-service-signature";
export const TIMESTAMP_HEADER = "x-service-timestamp";
/** The spec's signature timestamp tolerance (Limits). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A Fetch `Headers`, or a plain object as Node's http, Express or Fastify hand them over. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined | null>;

export interface VerifyWebhookInput {
  /** The subscription's signing secret (`whsec_…`), as returned once by subscribe or rotate. */
  secret: string;
  headers: WebhookHeaders;
  /** The exact bytes received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  toleranceSeconds?: number;
  /** The current time, a Date or milliseconds since the epoch (like Date.now()); default: the system clock. */
  now?: Date | number;
}

export type VerifyFailure =
  | "missing_secret"
  | "missing_timestamp"
  | "invalid_timestamp"
  | "timestamp_out_of_tolerance"
  | "missing_signature"
  | "invalid_signature_format"
  | "signature_mismatch"
  | "invalid_body"
  | "malformed_input";

export type VerifyWebhookResult = { ok: true } | { ok: false; reason: VerifyFailure };

const SIGNATURE_FORMAT = /^sha256=([0-9a-fA-F]{64})$/;

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === "function") {
    const value = (headers as { get(name: string): string | null }).get(name);
    return typeof value === "string" ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    // A header sent twice is ambiguous: refuse it rather than pick one.
    if (Array.isArray(value))
      return value.length === 1 && typeof value[0] === "string" ? value[0] : undefined;
    return typeof value === "string" ? value : undefined;
  }
  return undefined;
}

function nowInSeconds(now: Date | number | undefined): number {
  if (now === undefined) return Date.now() / 1000;
  if (typeof now === "number") return now / 1000;
  return now instanceof Date ? now.getTime() / 1000 : Number.NaN;
}

function checkTimestamp(
  timestamp: string | undefined,
  now: Date | number | undefined,
  toleranceSeconds: number,
): VerifyFailure | undefined {
  if (timestamp === undefined) return "missing_timestamp";
  if (!/^\d{1,15}$/.test(timestamp)) return "invalid_timestamp";
  const drift = Math.abs(nowInSeconds(now) - Number(timestamp));
  // Written so that a NaN (an invalid `now` or tolerance) rejects rather than passes.
  return drift <= toleranceSeconds ? undefined : "timestamp_out_of_tolerance";
}

function bodyBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === "string") return Buffer.from(rawBody, "utf8");
  if (rawBody instanceof Uint8Array) return rawBody;
  return undefined;
}

function verify(input: VerifyWebhookInput): VerifyWebhookResult {
  const { secret, headers, rawBody, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now } = input;
  if (typeof secret !== "string" || secret.length === 0) return { ok: false, reason: "missing_secret" };
  if (!headers || typeof headers !== "object") return { ok: false, reason: "missing_timestamp" };
  const timestamp = headerValue(headers, TIMESTAMP_HEADER);
  const timestampProblem = checkTimestamp(timestamp, now, toleranceSeconds);
  if (timestampProblem) return { ok: false, reason: timestampProblem };
  const signature = headerValue(headers, SIGNATURE_HEADER);
  if (signature === undefined) return { ok: false, reason: "missing_signature" };
  const given = SIGNATURE_FORMAT.exec(signature.trim());
  if (!given) return { ok: false, reason: "invalid_signature_format" };
  const body = bodyBytes(rawBody);
  if (!body) return { ok: false, reason: "invalid_body" };
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
  const received = Buffer.from(given[1]!, "hex");
  return timingSafeEqual(received, expected) ? { ok: true } : { ok: false, reason: "signature_mismatch" };
}

/**
 * Verifies a `lead.created` delivery by the spec's rules: HMAC-SHA256 keyed with the signing
 * secret over `<timestamp>.<raw body>` using the exact bytes received, `X-Service-Signature:
 * sha256=<hex>` compared in constant time, `X-Service-Timestamp` digits only and at most
 * `toleranceSeconds` (300) away from now. Header names are matched case-insensitively. Never
 * throws: malformed input is `{ok: false, reason}`.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
  try {
    return verify(input);
  } catch {
    // Defensive: a hostile headers object (a throwing getter, a proxy) must not crash the receiver.
    return { ok: false, reason: "malformed_input" };
  }
}
