import { randomUUID } from "node:crypto";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { organization } from "better-auth/plugins/organization";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import type { Mailer } from "../mail/mailer.ts";
import { passwordResetMessage } from "../mail/messages.ts";
import { AUTH_TABLES } from "./auth-schema.ts";
import { sameOrigins } from "./csrf.ts";

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

export interface AuthDeps {
  db: Queryable;
  config: Config;
  mailer: Mailer;
  logger: Logger;
  /** Signs the session cookies: AUTH_SECRET or the generated one (auth-secret.ts). */
  secret: string;
}

export function createAuth(deps: AuthDeps) {
  const { config, mailer, logger } = deps;
  const base = new URL(config.publicBaseUrl);
  return betterAuth({
    appName: "Porchlight",
    baseURL: config.publicBaseUrl,
    basePath: AUTH_BASE_PATH,
    secret: deps.secret,
    // The same origins the app API's own CSRF check accepts (csrf.ts).
    trustedOrigins: (request) => sameOrigins(config.publicBaseUrl, request?.headers.get("host")),
    telemetry: { enabled: false },
    logger: {
      log: (level, message, ...args) => logger[level]({ args }, `auth: ${message}`),
    },
    database: drizzleAdapter(deps.db, { provider: "pg", schema: AUTH_TABLES }),
    emailAndPassword: {
      enabled: true,
      // Accounts come only from invitations (the operator's or an owner's).
      disableSignUp: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
      resetPasswordTokenExpiresIn: RESET_TOKEN_SECONDS,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, token }) => {
        const resetUrl = `${config.publicBaseUrl}/app/reset-password?token=${encodeURIComponent(token)}`;
        await mailer.send(
          passwordResetMessage({ to: user.email, resetUrl, validMinutes: RESET_TOKEN_SECONDS / 60 }),
        );
      },
    },
    session: { expiresIn: SESSION_IDLE_SECONDS, updateAge: SESSION_REFRESH_SECONDS },
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 100,
      customRules: {
        "/sign-in/email": SIGN_IN_PER_IP,
        "/request-password-reset": RESET_REQUESTS_PER_IP,
        "/reset-password": SIGN_IN_PER_IP,
      },
    },
    advanced: {
      cookiePrefix: "porchlight",
      useSecureCookies: base.protocol === "https:",
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      database: { generateId: () => randomUUID() },
    },
    plugins: [
      organization({
        allowUserToCreateOrganization: false,
        creatorRole: "owner",
        invitationExpiresIn: 7 * 24 * 3600,
      }),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
