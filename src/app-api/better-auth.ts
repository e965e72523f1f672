import { randomUUID } from "node:crypto";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { organization } from "better-auth/plugins/organization";
import type { Logger } from "pino";
import { passwordResetMessage } from "../mail/messages.ts";
import { loadMemberDisplayName } from "../orgs/display-name.ts";
import { authRequestLog, noteAuthError } from "./auth-outage.ts";
import { AUTH_TABLES } from "./auth-schema.ts";
import {
  AUTH_BASE_PATH,
  type AuthDeps,
  CLIENT_IP_HEADER,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  RESET_REQUESTS_PER_IP,
  RESET_TOKEN_SECONDS,
  SESSION_IDLE_SECONDS,
  SESSION_REFRESH_SECONDS,
  SIGN_IN_PER_IP,
} from "./auth-settings.ts";
import { sameOrigins } from "./csrf.ts";
import { endResetLinks } from "./password-reset-links.ts";

/**
 * Better Auth's log lines in the service's log. Only an error is kept, through the logger's own
 * serializer (which cuts a failed query's params: they hold session tokens); any other argument
 * may carry a token or a cookie and is dropped. Each error is also noted for the request's answer
 * (auth-outage.ts). A line logged while answering a request goes through its logger (its reqId).
 */
export function betterAuthLogger(logger: Pick<Logger, "debug" | "info" | "warn" | "error">) {
  return {
    log: (level: "debug" | "info" | "warn" | "error" | "success", message: string, ...args: unknown[]) => {
      const err = args.find((arg) => arg instanceof Error);
      if (err !== undefined) noteAuthError(err);
      const log = authRequestLog() ?? logger;
      log[level === "success" ? "info" : level](err === undefined ? {} : { err }, `auth: ${message}`);
    },
  };
}

/** Better Auth configured for the app; loaded on first use through auth.ts's createAuth. */
export function createBetterAuth(deps: AuthDeps) {
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
    logger: betterAuthLogger(logger),
    database: drizzleAdapter(deps.db, { provider: "pg", schema: AUTH_TABLES }),
    emailAndPassword: {
      enabled: true,
      // Accounts come only from invitations (the operator's or an owner's).
      disableSignUp: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
      resetPasswordTokenExpiresIn: RESET_TOKEN_SECONDS,
      revokeSessionsOnPasswordReset: true,
      // The used link is gone already; any other open link of the account ends with it.
      onPasswordReset: async ({ user }) => endResetLinks(deps.db, user.id),
      // The mail goes out after the answer, never before it: a relay's round trip (or its
      // timeout) only for emails that have an account made the answer's timing say which do.
      // A failure is logged; the answer is the same as for an unknown email either way.
      sendResetPassword: async ({ user, token }) => {
        const resetUrl = `${config.publicBaseUrl}/app/reset-password?token=${encodeURIComponent(token)}`;
        const send = async () =>
          mailer.send(
            passwordResetMessage({
              to: user.email,
              resetUrl,
              validMinutes: RESET_TOKEN_SECONDS / 60,
              organizationName: await loadMemberDisplayName(deps.db, user.id),
            }),
          );
        void send().catch((error: unknown) =>
          logger.error({ err: error, userId: user.id }, "password reset mail not sent"),
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
