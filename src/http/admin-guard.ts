import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import { bearerToken } from "../domain/api-key-format.ts";
import { ipRateLimited, unauthorized } from "../errors.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import { soleAuthorization } from "./authorization-header.ts";
import { clientNetwork } from "./client-network.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Wrong operator tokens tolerated per client (see countedClient) and minute; past them every
 * admin request from that client, right token or not, answers 429 until the minute ends (no
 * guessing at request rate, and no answer that tells a right guess from a wrong one).
 */
export const ADMIN_AUTH_FAILURES_PER_MINUTE = 20;
/**
 * Wrong tokens from all clients together per 10 minutes. Past them (many addresses guessing), a
 * client that has failed this minute is refused at once, so each address gets one guess a minute;
 * a client that has not failed is still let in with the right token: a flood from elsewhere never
 * locks the operator out.
 */
export const ADMIN_AUTH_FAILURES_PER_10_MINUTES_IN_ALL = 200;
const FAILURES_BUCKET = "admin-auth-failures";
const ALL_FAILURES_BUCKET = "admin-auth-failures-all";
const ALL_FAILURES_WINDOW_SECONDS = 600;

/**
 * Who a failure is counted against: an address the client cannot choose, so that no one can
 * count failures against the operator's address. With TRUST_PROXY naming the proxies' addresses,
 * X-Forwarded-For is read only through them: request.ip is the address the nearest trusted proxy
 * saw. With `true` or a hop count any client may write the header (a client reaching the port
 * directly with a hop count too), so the socket's peer is counted, and a forwarded request apart
 * from a direct one: through a proxy on the same host, an attacker is not the operator's own
 * direct call from 127.0.0.1.
 */
function countedClient(request: FastifyRequest, trustProxy: Config["trustProxy"]): string {
  if (typeof trustProxy === "string") return clientNetwork(request.ip);
  const peer = clientNetwork(request.socket.remoteAddress ?? "unknown");
  if (trustProxy === false || request.headers["x-forwarded-for"] === undefined) return peer;
  return `${peer} forwarded`;
}

/**
 * The operator API's guard: the ADMIN_TOKEN bearer, compared in constant time, with wrong tokens
 * counted per client (see ADMIN_AUTH_FAILURES_PER_MINUTE) and in all (see
 * ADMIN_AUTH_FAILURES_PER_10_MINUTES_IN_ALL). Registered in the admin scope.
 */
export function registerAdminGuard(
  app: FastifyInstance,
  deps: { adminToken: string | undefined; limiter: RateLimiter; trustProxy: Config["trustProxy"] },
): void {
  const expected = deps.adminToken ? digest(deps.adminToken) : undefined;
  const limiter = deps.limiter;
  app.addHook("onRequest", async (request) => {
    // The token is compared and the failure counted before any await: requests pipelined in one
    // packet run their hooks in turn, and each must see the failures counted before it.
    const token = bearerToken(soleAuthorization(request.raw));
    const client = countedClient(request, deps.trustProxy);
    if (!expected || !token || !timingSafeEqual(digest(token), expected)) {
      const [failures, allFailures] = await Promise.all([
        limiter.hit(FAILURES_BUCKET, client, ADMIN_AUTH_FAILURES_PER_MINUTE, 60),
        limiter.hit(
          ALL_FAILURES_BUCKET,
          "all",
          ADMIN_AUTH_FAILURES_PER_10_MINUTES_IN_ALL,
          ALL_FAILURES_WINDOW_SECONDS,
        ),
      ]);
      // A client's first failure of the minute is still its own answer during a flood.
      if (!failures.allowed || (!allFailures.allowed && failures.count > 1)) {
        throw ipRateLimited(failures.secondsToWindowEnd);
      }
      throw unauthorized();
    }
    const [failures, allFailures] = await Promise.all([
      limiter.peek(FAILURES_BUCKET, client, 60),
      limiter.peek(ALL_FAILURES_BUCKET, "all", ALL_FAILURES_WINDOW_SECONDS),
    ]);
    const flooded = allFailures.count >= ADMIN_AUTH_FAILURES_PER_10_MINUTES_IN_ALL;
    if (failures.count >= ADMIN_AUTH_FAILURES_PER_MINUTE || (flooded && failures.count > 0)) {
      throw ipRateLimited(failures.secondsToWindowEnd);
    }
  });
}
