// The app's sign-in settings and what Better Auth is built from, apart from the lazily loaded
// instance (auth.ts) so that better-auth.ts and the routes read them without an import cycle.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import type { Mailer } from "../mail/mailer.ts";

/** The app API's prefix; Better Auth answers under AUTH_BASE_PATH. */
export const APP_API_PREFIX = "/app/api/v1";
export const AUTH_BASE_PATH = `${APP_API_PREFIX}/auth`;

/** Set by the Fastify bridge from request.ip (which honours TRUST_PROXY); a client's own value is dropped. */
export const CLIENT_IP_HEADER = "x-porchlight-client-ip";

/** A session unused this long ends (idle expiry); each use at least SESSION_REFRESH_SECONDS after the last refresh extends it. */
export const SESSION_IDLE_SECONDS = 7 * 24 * 3600;
export const SESSION_REFRESH_SECONDS = 24 * 3600;
/** However active, a session ends this long after sign-in (absolute expiry; checked by the session guard). */
export const SESSION_ABSOLUTE_SECONDS = 30 * 24 * 3600;
export const RESET_TOKEN_SECONDS = 3600;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 128;

/** Per IP (Better Auth's limiter, counted in the database so every instance shares it). */
export const SIGN_IN_PER_IP = { window: 60, max: 10 };
export const RESET_REQUESTS_PER_IP = { window: 300, max: 5 };

/**
 * Accept or join attempts per invitation, from any IP. Its token is 256 random bits, so this is
 * no guard against guessing it; it bounds what one leaked link can be hammered with.
 */
export const ACCEPTS_PER_INVITATION = { limit: 10, windowSeconds: 900 };

/**
 * The app API's unauthenticated routes (the auth proxy, the invitation and password-reset links,
 * the OpenAPI document) share one per-IP counter of IP_RATE_LIMIT_PER_MINUTE a minute, counted
 * apart from the developer API's.
 */
export const PUBLIC_ROUTES_IP_BUCKET = "app-public-ip";

export interface AuthDeps {
  db: Queryable;
  config: Config;
  mailer: Mailer;
  logger: Logger;
  /** Signs the session cookies: AUTH_SECRET or the generated one (auth-secret.ts). */
  secret: string;
}
