import type { FastifyInstance, FastifyRequest } from "fastify";
import { bearerToken } from "../domain/api-key-format.ts";
import type { AuthContext, KeyAuthenticator, KeyLookup } from "../domain/auth-context.ts";
import { authUnavailable, forbidden, ipRateLimited, rateLimited, unauthorized } from "../errors.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import { soleAuthorization } from "./authorization-header.ts";
import { clientNetwork } from "./client-network.ts";
import { isForwardedCall } from "./forwarded-call.ts";
import type { OrgRateLimit } from "./route-config.ts";

export interface GuardDeps {
  limiter: RateLimiter;
  keyStore: KeyAuthenticator;
  ipRateLimitPerMinute: number;
}

/** Paths counted by the pre-auth per-IP limit. */
export function isIpLimitedPath(path: string): boolean {
  return path.startsWith("/api/v1/") || path === "/api/mcp" || path.startsWith("/l/");
}

/**
 * The path the router served, not the raw request target: `/%61pi/v1/me` and the absolute form
 * `http://host/api/v1/me` reach the route `/api/v1/me` too, and must be counted like it. An
 * unmatched request is judged by its decoded path.
 */
export function routedPath(routeUrl: string | undefined, requestUrl: string): string {
  if (routeUrl) return routeUrl;
  // Never throws: Node accepts absolute-form targets `new URL` refuses (`http://a:99999/…`).
  const path = requestUrl.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "").split(/[?#]/)[0]!;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Broken percent-encoding: judge the path as sent.
  }
  return decoded.replace(/\/{2,}/g, "/");
}

/**
 * The guards every public request passes, in order, before its body is read:
 * per-IP limit (before any key is looked up in the database), key, scope, per-org limit.
 */
export function registerGuards(app: FastifyInstance, deps: GuardDeps): void {
  app.decorateRequest("auth", null);

  app.addHook("onRequest", async (request) => {
    // A tool call the MCP proxy forwards was already counted at /api/mcp (see forwarded-call.ts).
    // routeOptions builds a fresh object on every read: read it once.
    const config = request.routeOptions.config;
    const ipLimited =
      isIpLimitedPath(routedPath(config?.url, request.url)) && !isForwardedCall(request.headers);
    const scope = config?.scope;
    const orgLimit = config?.orgRateLimit;
    if (ipLimited && scope && orgLimit && (await guardCachedKey(request, deps, scope, orgLimit))) return;
    if (ipLimited) await limitByIp(request, deps);
    if (!scope) return;
    await authenticate(request, deps);
    const auth = authOf(request);
    if (auth.scopes && !auth.scopes.includes(scope)) throw forbidden();
    if (orgLimit) {
      const decision = await deps.limiter.hit(
        orgLimit.bucket,
        auth.orgId,
        orgLimit.limit,
        orgLimit.windowSeconds,
      );
      if (!decision.allowed) throw orgRateLimited(orgLimit);
    }
  });
}

/**
 * The guards of a known key in one trip to the counter store: when the key's answer is cached
 * (settled: no database read is made or awaited before the per-IP count), valid and scoped for the
 * route, its per-IP and per-org counts are made together, in that order (a request refused per IP
 * is not counted against its org), and decide what the sequence above would. False when the key is
 * not such a key: the caller takes the sequence.
 */
async function guardCachedKey(
  request: FastifyRequest,
  deps: GuardDeps,
  scope: string,
  limit: OrgRateLimit,
): Promise<boolean> {
  const token = bearerToken(soleAuthorization(request.raw));
  const lookup = token ? deps.keyStore.cachedLookup(token) : undefined;
  if (lookup?.status !== "valid") return false;
  const { auth } = lookup;
  if (auth.scopes && !auth.scopes.includes(scope)) return false;
  const [byIp, byOrg] = await deps.limiter.hitInOrder([ipHit(request, deps), { ...limit, id: auth.orgId }]);
  if (!byIp!.allowed) throw ipRateLimited(byIp!.secondsToWindowEnd);
  // Where the sequence would have authenticated: the key was used.
  deps.keyStore.recordUse(auth);
  request.auth = auth;
  if (!byOrg!.allowed) throw orgRateLimited(limit);
  return true;
}

const orgRateLimited = (limit: OrgRateLimit) =>
  rateLimited(limit.windowSeconds, `over ${limit.limit} requests per ${limit.windowSeconds} s`);

const ipHit = (request: FastifyRequest, deps: GuardDeps) => ({
  bucket: "ip",
  id: clientNetwork(request.ip),
  limit: deps.ipRateLimitPerMinute,
  windowSeconds: 60,
});

async function limitByIp(request: FastifyRequest, deps: GuardDeps) {
  const [decision] = await deps.limiter.hitInOrder([ipHit(request, deps)]);
  if (!decision!.allowed) throw ipRateLimited(decision!.secondsToWindowEnd);
}

/**
 * The caller's key, set by the guard of every route that names a `scope`. A route that forgot its
 * scope answers 401 here rather than failing with a TypeError (a 500) on `request.auth.orgId`.
 */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthorized();
  return request.auth;
}

/**
 * Said only of a key whose checksum does not match: that is computed from the key alone, so it
 * tells nothing about which keys exist (any other refused key gets the bare 401).
 */
export const MISTYPED_KEY_DETAIL =
  "the key's checksum does not match: it looks mistyped; copy it again from where it was issued";

/**
 * Said of a key sent without the Bearer scheme (`Authorization: ak_…`, `Authorization: Bearer: ak_…`,
 * another scheme's word such as `Token ak_…` or `Api-Key: ak_…`, `X-API-Key: ak_…`), the commonest
 * slips in a flow's header settings. The scheme is no secret: it tells nothing about keys. `Basic`
 * stays unanswered: its credentials are a user and password, not a key sent the wrong way.
 */
export const KEY_WITHOUT_SCHEME_DETAIL = "send the key as the header `Authorization: Bearer ak_…`";

const sentKeyWithoutScheme = (request: FastifyRequest, header: string | undefined) =>
  /^\s*((?!basic\b)[a-z][a-z-]*:?\s+|[a-z][a-z-]*:)?ak_/i.test(header ?? "") ||
  request.headers["x-api-key"] !== undefined;

async function authenticate(request: FastifyRequest, deps: GuardDeps) {
  const header = soleAuthorization(request.raw);
  const token = bearerToken(header);
  if (!token)
    throw sentKeyWithoutScheme(request, header) ? unauthorized(KEY_WITHOUT_SCHEME_DETAIL) : unauthorized();
  let lookup: KeyLookup;
  try {
    lookup = await deps.keyStore.authenticate(token);
  } catch (error) {
    throw authUnavailable(error);
  }
  if (lookup.status === "mistyped") throw unauthorized(MISTYPED_KEY_DETAIL);
  if (lookup.status !== "valid") throw unauthorized();
  request.auth = lookup.auth;
}
