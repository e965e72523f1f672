import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import ipaddr from "ipaddr.js";
import { bearerToken } from "../domain/api-key-format.ts";
import { ipRateLimited, unauthorized } from "../errors.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import { soleAuthorization } from "./authorization-header.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Wrong operator tokens tolerated per client IP (IPv6: per /64) and minute; past them every admin
 * request from there, right token or not, answers 429 until the minute ends (no guessing at
 * request rate).
 */
export const ADMIN_AUTH_FAILURES_PER_MINUTE = 20;
const FAILURES_BUCKET = "admin-auth-failures";

/** An IPv6 client is counted by its /64, which one host may rotate through; an IPv4 one by its address. */
function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === "ipv4") return address.toString();
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(":")}::/64`;
}

/**
 * The operator API's guard: the ADMIN_TOKEN bearer, compared in constant time, with wrong tokens
 * counted per client network (see ADMIN_AUTH_FAILURES_PER_MINUTE). Registered in the admin scope.
 */
export function registerAdminGuard(
  app: FastifyInstance,
  deps: { adminToken: string | undefined; limiter: RateLimiter },
): void {
  const expected = deps.adminToken ? digest(deps.adminToken) : undefined;
  const limiter = deps.limiter;
  app.addHook("onRequest", async (request) => {
    // The token is compared and the failure counted before any await: requests pipelined in one
    // packet run their hooks in turn, and each must see the failures counted before it.
    const token = bearerToken(soleAuthorization(request.raw));
    const client = clientNetwork(request.ip);
    if (!expected || !token || !timingSafeEqual(digest(token), expected)) {
      const failures = await limiter.hit(FAILURES_BUCKET, client, ADMIN_AUTH_FAILURES_PER_MINUTE, 60);
      if (!failures.allowed) throw ipRateLimited(failures.secondsToWindowEnd);
      throw unauthorized();
    }
    const failures = await limiter.peek(FAILURES_BUCKET, client, 60);
    if (failures.count >= ADMIN_AUTH_FAILURES_PER_MINUTE) throw ipRateLimited(failures.secondsToWindowEnd);
  });
}
