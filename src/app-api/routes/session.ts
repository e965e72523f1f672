import { type Static, Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { AppError } from "../../errors.ts";
import { findPendingInvitation, normalizeEmail } from "../../orgs/invitations.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../auth-settings.ts";
import type { AppApiContext } from "../context.ts";
import { MemberRoleSchema, PersonNameSchema, SessionView } from "../schemas.ts";
import { type AppSession, fetchHeaders, forwardCookies, sessionOf } from "../session-guard.ts";

export const sessionView = (session: AppSession): Static<typeof SessionView> => ({
  user: { id: session.userId, name: session.userName, email: session.email },
  organization: { id: session.orgId, name: session.orgName },
  role: session.role,
});

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });

export function registerSessionRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    "/session",
    {
      schema: {
        operationId: "getSession",
        summary: "The signed-in user, the session's organization and the user's role in it",
        tags: ["Session"],
        response: { 200: SessionView },
      },
    },
    async (request) => sessionView(sessionOf(request)),
  );

  r.get(
    "/invitations/:token",
    {
      config: { appAccess: "public" },
      schema: {
        operationId: "getInvitation",
        summary: "What an invitation link invites to (for the page that accepts it)",
        tags: ["Session"],
        params: TokenParams,
        response: {
          200: Type.Object(
            {
              email: Type.String(),
              organization_name: Type.String(),
              business_name: Type.Union([Type.String(), Type.Null()], {
                description:
                  "The business name set in Settings (the one its cards print), or null: then show organization_name.",
              }),
              role: MemberRoleSchema,
              expires_at: Type.String({ format: "date-time" }),
              account_exists: Type.Boolean({
                description: "The email already has an account: accept with its password.",
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const invitation = await findPendingInvitation(ctx.db, request.params.token, ctx.clock.now());
      return {
        email: invitation.email,
        organization_name: invitation.organization_name,
        business_name: invitation.business_name,
        role: invitation.role,
        expires_at: invitation.expires_at.toISOString(),
        account_exists: (await findUserId(ctx, invitation.email)) !== undefined,
      };
    },
  );

  r.get(
    "/password-resets/:token",
    {
      config: { appAccess: "public" },
      schema: {
        operationId: "checkPasswordReset",
        summary:
          "Whether a password reset link can still be used (for the page that opens it); the link is not used up, and nothing is said about the account",
        tags: ["Session"],
        params: TokenParams,
        response: {
          200: Type.Object(
            {
              valid: Type.Boolean({
                description: "False when the link expired, was already used, was replaced or never existed.",
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      // The lookup Better Auth's reset makes, with its rule: a reset whose token is unknown or past
      // its expiry (Better Auth reads the system clock) is refused.
      const auth = await ctx.auth.$context;
      const verification = await auth.internalAdapter.findVerificationValue(
        `reset-password:${request.params.token}`,
      );
      return { valid: verification !== null && verification.expiresAt >= new Date() };
    },
  );

  r.post(
    "/invitations/:token/accept",
    {
      config: { appAccess: "public" },
      schema: {
        operationId: "acceptInvitation",
        summary:
          "Accepts an invitation: sets the name and password (or, for an existing account, checks its password) and signs in",
        tags: ["Session"],
        params: TokenParams,
        body: Type.Object(
          {
            name: PersonNameSchema,
            password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SessionView },
      },
    },
    async (request, reply) => {
      const invitation = await findPendingInvitation(ctx.db, request.params.token, ctx.clock.now());
      const email = normalizeEmail(invitation.email);
      if ((await findUserId(ctx, email)) === undefined) {
        await createPasswordUser(ctx, {
          email,
          name: request.body.name.trim(),
          password: request.body.password,
        });
      }
      const headers = fetchHeaders(request.headers);
      const signIn = await ctx.auth.api
        .signInEmail({ body: { email, password: request.body.password }, headers, returnHeaders: true })
        .catch(() => {
          throw new AppError(401, "unauthorized", "This email already has an account: use its password.");
        });
      forwardCookies(signIn.headers, reply);
      const sessionCookie = signIn.headers
        .getSetCookie()
        .map((cookie) => cookie.split(";")[0]!)
        .join("; ");
      const withSession = new Headers(headers);
      withSession.set("cookie", sessionCookie);
      await ctx.auth.api.acceptInvitation({ body: { invitationId: invitation.id }, headers: withSession });
      const userId = signIn.response.user.id;
      request.log.info({ orgId: invitation.org_id, userId }, "invitation accepted");
      return {
        user: { id: userId, name: signIn.response.user.name, email },
        organization: { id: invitation.org_id, name: invitation.organization_name },
        role: invitation.role,
      };
    },
  );
}

async function findUserId(ctx: AppApiContext, email: string): Promise<string | undefined> {
  const internal = (await ctx.auth.$context).internalAdapter;
  const found = await internal.findUserByEmail(normalizeEmail(email));
  return found?.user.id;
}

/** A new account with a password credential, hashed by Better Auth (sign-up itself is closed). */
async function createPasswordUser(
  ctx: AppApiContext,
  input: { email: string; name: string; password: string },
) {
  const authContext = await ctx.auth.$context;
  const hash = await authContext.password.hash(input.password);
  // The invitation link reached this address: that verifies it.
  const user = await authContext.internalAdapter.createUser(
    { email: input.email, name: input.name, emailVerified: true },
    { method: "invitation" },
  );
  await authContext.internalAdapter.linkAccount({
    userId: user.id,
    providerId: "credential",
    accountId: user.id,
    password: hash,
  });
}
