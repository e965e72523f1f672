import { randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The MCP proxy forwards each tool call to its endpoint through the app itself (Fastify inject).
 * The client's request was already counted once by the pre-auth per-IP limit at `/api/mcp`, so
 * the forwarded call carries this mark and is not counted a second time: one tool call is one
 * request of that IP, as a direct call would be.
 */
export const FORWARDED_CALL_HEADER = "x-porchlight-forwarded-call";

/** Minted per process, never sent to a client: an outside request cannot forge the mark. */
const FORWARDED_CALL_TOKEN = randomBytes(32).toString("base64url");

export function forwardedCallMark(): Record<string, string> {
  return { [FORWARDED_CALL_HEADER]: FORWARDED_CALL_TOKEN };
}

export function isForwardedCall(headers: Record<string, string | string[] | undefined>): boolean {
  const value = headers[FORWARDED_CALL_HEADER];
  if (typeof value !== "string" || value.length !== FORWARDED_CALL_TOKEN.length) return false;
  return timingSafeEqual(Buffer.from(value), Buffer.from(FORWARDED_CALL_TOKEN));
}
