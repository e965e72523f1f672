import { createHmac, randomBytes } from "node:crypto";

export const TIMESTAMP_HEADER = "x-service-timestamp";
export const SIGNATURE_HEADER = "x-service-signature";

/** A new signing secret: 32 random bytes, prefixed so it is recognisable in a secret scanner. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/**
 * The signature headers of one delivery: HMAC-SHA256 keyed with the secret over
 * "<timestamp>.<raw body>", where the body is exactly the bytes sent.
 */
export function signatureHeaders(secret: string, body: Buffer, unixSeconds: number): Record<string, string> {
  const timestamp = String(unixSeconds);
  const mac = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: `sha256=${mac}` };
}
