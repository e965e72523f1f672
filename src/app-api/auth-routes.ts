import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { databaseUnavailable, invalidPayload } from "../errors.ts";
import { enforceRateLimitGivingBack, type RateLimitRule } from "../limits/enforce-rate-limit.ts";
import type { CountedHit, RateLimiter } from "../limits/rate-limiter.ts";
import { normalizeEmail } from "../orgs/invitations.ts";
import type { Auth } from "./auth.ts";
import { runAuthRequest } from "./auth-outage.ts";
import { AUTH_BASE_PATH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./auth-settings.ts";
import { refusalOfPassword } from "./password-choice.ts";
import { fetchHeaders } from "./session-guard.ts";

/**
 * Better Auth endpoints the app uses. The rest (sign-up, organization creation, its own
 * invitation and member management, ...) stay closed: accounts come from invitations and the
 * team is managed through the app API's owner-only routes, so each rule lives in one place.
 */
export const EXPOSED_AUTH_ENDPOINTS = new Set([
  "POST /sign-in/email",
  "POST /sign-out",
  "GET /get-session",
  "POST /request-password-reset",
  "POST /reset-password",
  "GET /list-sessions",
  "POST /revoke-sessions",
  "POST /revoke-other-sessions",
  "GET /organization/list",
  "POST /organization/set-active",
]);

/** Attempts per account (email), on top of Better Auth's per-IP limit: one IP-rotating guesser still hits this. */
export const SIGN_IN_PER_ACCOUNT = { limit: 10, windowSeconds: 900 };
export const RESET_REQUESTS_PER_ACCOUNT = { limit: 3, windowSeconds: 900 };

/**
 * A per-account limit, and the answers of Better Auth that count in it. Any other answer gives its
 * unit back: a request refused before the password was checked (a malformed email, Better Auth's own
 * per-IP limit) or before a link was mailed (a foreign redirectTo) is no attempt, and must not let
 * whoever knows an email spend that account's budget without one. Every reset request that counts
 * was answered 200, so each one mailed the account's owner a working link.
 */
interface AccountLimit {
  rule: RateLimitRule;
  isAttempt(status: number): boolean;
}

const isSuccess = (status: number) => status >= 200 && status < 300;

const SIGN_IN_LIMIT: AccountLimit = {
  rule: { bucket: "app-sign-in", ...SIGN_IN_PER_ACCOUNT },
  // 401: a wrong password; 403: a right one on an account that may not sign in yet.
  isAttempt: (status) => isSuccess(status) || status === 401 || status === 403,
};

const ACCOUNT_LIMITED: Record<string, AccountLimit> = {
  "POST /sign-in/email": SIGN_IN_LIMIT,
  "POST /request-password-reset": {
    rule: { bucket: "app-password-reset", ...RESET_REQUESTS_PER_ACCOUNT },
    isAttempt: isSuccess,
  },
};

const HOP_HEADERS = new Set([
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "set-cookie",
]);

export interface AuthRouteDeps {
  auth: Auth;
  limiter: RateLimiter;
  publicBaseUrl: string;
}

/**
 * Mounts Better Auth's handler under /app/api/v1/auth/* (registered in the app API's scope):
 * the Fastify request becomes a Fetch Request (body re-serialised from the parsed JSON; the client
 * IP from request.ip, which honours TRUST_PROXY) and its Response goes back as it is.
 */
export function registerAuthRoutes(app: FastifyInstance, deps: AuthRouteDeps): void {
  app.route({
    method: ["GET", "POST"],
    url: "/auth/*",
    config: { appAccess: "public", bodyOptional: true },
    schema: { hide: true },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const url = new URL(request.url, deps.publicBaseUrl);
      const endpoint = exposedEndpointOf(request.method, request.url, url);
      if (!endpoint) return reply.callNotFound();
      if (endpoint === "POST /reset-password") await refuseWeakResetPassword(request, url, deps.auth);
      const attempt = await countAccountAttempt(request, endpoint, deps.limiter);
      const { result: response, databaseUnavailable: databaseFailed } = await runAuthRequest(
        () => deps.auth.handler(toFetchRequest(request, url)),
        request.log,
      );
      if (attempt && !attempt.limit.isAttempt(response.status)) await attempt.counted.giveBack();
      if (response.status >= 500 && databaseFailed) throw databaseUnavailable();
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        if (!HOP_HEADERS.has(name)) reply.header(name, value);
      });
      for (const cookie of response.headers.getSetCookie()) reply.header("set-cookie", cookie);
      return reply.send(response.body ? Buffer.from(await response.arrayBuffer()) : null);
    },
  });
}

/**
 * A reset's new password meets the rule for chosen passwords (password-choice.ts) before Better
 * Auth sets it; the link is not used up by a refusal. Checked only for a link that works, whose
 * account gives the context: an unknown link gets Better Auth's own answer.
 */
async function refuseWeakResetPassword(request: FastifyRequest, url: URL, auth: Auth): Promise<void> {
  const body = (request.body ?? {}) as { newPassword?: unknown; token?: unknown };
  const { newPassword } = body;
  // The token Better Auth will use: the body's, else the query's (`?token=`), as its handler reads them.
  const token = body.token || url.searchParams.get("token");
  if (typeof newPassword !== "string" || typeof token !== "string") return;
  // Out of the length rule: Better Auth refuses it without this.
  if (newPassword.length < MIN_PASSWORD_LENGTH || newPassword.length > MAX_PASSWORD_LENGTH) return;
  const { internalAdapter } = await auth.$context;
  const link = await internalAdapter.findVerificationValue(`reset-password:${token}`);
  const user = link ? await internalAdapter.findUserById(link.value) : null;
  if (!user) return;
  const refusal = await refusalOfPassword("newPassword", newPassword, { email: user.email, name: user.name });
  if (refusal) throw refusal;
}

/** Encoded dots, slashes, `?` and backslashes, dot segments and empty segments: never in a path the app calls. */
const CRAFTED_PATH = /%2e|%2f|%3f|%5c|\\|\.\.|\/\//i;

/**
 * The exposed endpoint a request reaches, or undefined (then the generic 404). The decision is made
 * on the path Better Auth itself will route: better-call reads `new URL(request.url).pathname`
 * (which resolves `..`, `%2e%2e` and backslashes) minus the base path, from the very URL handed to
 * it below. Fastify's wildcard is decoded first (`get-session%3F/../x` reads as `get-session`), so
 * it must never decide; a raw path holding anything crafted is refused outright as well.
 */
export function exposedEndpointOf(method: string, rawUrl: string, url: URL): string | undefined {
  const rawPath = rawUrl.split(/[?#]/)[0]!;
  if (CRAFTED_PATH.test(rawPath)) return undefined;
  if (!url.pathname.startsWith(`${AUTH_BASE_PATH}/`)) return undefined;
  const endpoint = `${method} ${url.pathname.slice(AUTH_BASE_PATH.length)}`;
  return EXPOSED_AUTH_ENDPOINTS.has(endpoint) ? endpoint : undefined;
}

/** Counts the request in its account's limit (429 past it); undefined when the endpoint has none. */
async function countAccountAttempt(
  request: FastifyRequest,
  endpoint: string,
  limiter: RateLimiter,
): Promise<{ limit: AccountLimit; counted: CountedHit } | undefined> {
  const limit = ACCOUNT_LIMITED[endpoint];
  const email = (request.body as { email?: unknown } | undefined)?.email;
  if (!limit || typeof email !== "string") return undefined;
  return { limit, counted: await hitAccountLimit(limiter, limit.rule, email) };
}

function hitAccountLimit(limiter: RateLimiter, rule: RateLimitRule, email: string): Promise<CountedHit> {
  return enforceRateLimitGivingBack(
    limiter,
    rule,
    normalizeEmail(email),
    "too many attempts for this account; wait and try again",
  );
}

/**
 * Any route that checks an account's password counts in the sign-in limit of that account
 * (`POST /me/password` checks the current one): otherwise a session would be an unlimited
 * oracle for the password, past the per-account limit on signing in.
 */
export async function limitPasswordCheck(limiter: RateLimiter, email: string): Promise<void> {
  await hitAccountLimit(limiter, SIGN_IN_LIMIT.rule, email);
}

/** The parsed body as JSON text again; a body nested too deep to write back (a stack overflow) is a 422. */
function bodyText(body: unknown): string {
  try {
    return JSON.stringify(body ?? {});
  } catch (error) {
    if (error instanceof RangeError) throw invalidPayload("request body is nested too deeply");
    throw error;
  }
}

function toFetchRequest(request: FastifyRequest, url: URL): Request {
  const headers = fetchHeaders(request);
  headers.delete("content-length");
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const body = hasBody ? bodyText(request.body) : undefined;
  if (body !== undefined) headers.set("content-type", "application/json");
  return new Request(url, { method: request.method, headers, body });
}
