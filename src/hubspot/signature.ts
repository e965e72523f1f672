import { createHmac, timingSafeEqual } from "node:crypto";

/** HubSpot: reject a request whose X-HubSpot-Request-Timestamp is older than 5 minutes. */
export const HUBSPOT_SIGNATURE_MAX_AGE_MS = 5 * 60 * 1000;

/** The URL-encoded characters HubSpot's v3 instructions decode in the request URI before signing. */
const DECODED_IN_URI: Record<string, string> = {
  "%3A": ":",
  "%2F": "/",
  "%3F": "?",
  "%40": "@",
  "%21": "!",
  "%24": "$",
  "%27": "'",
  "%28": "(",
  "%29": ")",
  "%2A": "*",
  "%2C": ",",
  "%3B": ";",
};

const signedUri = (uri: string) =>
  uri.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (match) => DECODED_IN_URI[match.toUpperCase()]!);

export interface SignedRequest {
  method: string;
  /** The full URI HubSpot called: scheme, host, path and query. */
  uri: string;
  rawBody: Buffer;
  /** X-HubSpot-Request-Timestamp as sent: Unix milliseconds. */
  timestamp: string;
}

/** X-HubSpot-Signature-v3: base64 HMAC-SHA256, keyed with the app's client secret, of method + URI + body + timestamp. */
export function signHubSpotRequest(clientSecret: string, request: SignedRequest): string {
  return createHmac("sha256", clientSecret)
    .update(request.method.toUpperCase())
    .update(signedUri(request.uri))
    .update(request.rawBody)
    .update(request.timestamp)
    .digest("base64");
}

export type SignatureCheck = "valid" | "missing" | "stale" | "mismatch";

/**
 * Checks a webhook request the way HubSpot documents signature v3: a timestamp more than 5 minutes
 * old (or as far ahead: a clock that wrong is not HubSpot's) is refused before any hashing, and
 * the signatures are compared in constant time.
 */
export function checkHubSpotSignature(
  clientSecret: string,
  request: Omit<SignedRequest, "timestamp"> & {
    timestamp: string | undefined;
    signature: string | undefined;
  },
  now: Date,
): SignatureCheck {
  const { signature, timestamp } = request;
  if (!signature || !timestamp || !/^\d{1,16}$/.test(timestamp)) return "missing";
  if (Math.abs(now.getTime() - Number(timestamp)) > HUBSPOT_SIGNATURE_MAX_AGE_MS) return "stale";
  const expected = Buffer.from(signHubSpotRequest(clientSecret, { ...request, timestamp }), "utf8");
  const given = Buffer.from(signature, "utf8");
  if (given.length !== expected.length) return "mismatch";
  return timingSafeEqual(given, expected) ? "valid" : "mismatch";
}
