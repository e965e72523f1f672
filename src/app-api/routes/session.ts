import { type Static, Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import {
  findPendingInvitation,
  invitationTokenHash,
  normalizeEmail,
  type PendingInvitation,
} from "../../orgs/invitations.ts";
import { ACCEPTS_PER_INVITATION, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../auth-settings.ts";
import type { AppApiContext } from "../context.ts";
import { appError } from "../errors.ts";
import { refusalOfPassword } from "../password-choice.ts";
import { MemberRoleSchema, PersonNameSchema, SessionView } from "../schemas.ts";
import {
  type AppSession,
  fetchHeaders,
  forwardCookies,
  resolveSignedInUser,
  sessionOf,
} from "../session-guard.ts";

export const sessionView = (session: AppSession): Static<typeof SessionView> => ({
  user: { id: session.userId, name: session.userName, email: session.email },
  organization: { id: session.orgId, name: session.orgName },
  role: session.role,
});

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
type TokenRequest = FastifyRequest<{ Params: Static<typeof TokenParams> }>;

/**
 * Said to whoever holds the link (the invitee's mailbox, or the operator who passed it on) when
 * the email already has an account: it joins signed in, never by a password given here.
 */
const signInToJoin = (status: 401 | 403 | 409, email: string, signedInAs?: string) =>
  appError(
    status,
    "sign_in_to_join",
    signedInAs
      ? `This invitation is for ${email}, and you are signed in as ${signedInAs}: sign in as ${email} to join.`
      : `${email} already has an account: sign in with it, then join.`,
  );

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
    async (request) => {
      // The app reads the session first on every load: a render thread gets ready while its screen loads.
      ctx.renderer.warm();
      return sessionView(sessionOf(request));
    },
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
              signed_in_as: Type.Union([Type.String(), Type.Null()], {
                description:
                  "The email this browser is signed in as, or null. When it is the invitation's email, the page offers joinInvitation; nothing here says whether the invited email has an account.",
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request, reply) => {
      const invitation = await findPendingInvitation(ctx.db, request.params.token, ctx.clock.now());
      const signedIn = await resolveSignedInUser(ctx, request, reply);
      return {
        email: invitation.email,
        organization_name: invitation.organization_name,
        business_name: invitation.business_name,
        role: invitation.role,
        expires_at: invitation.expires_at.toISOString(),
        signed_in_as: signedIn?.email ?? null,
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

  /** Attempts per invitation, from any IP (the per-IP limit of public routes applies first). */
  const limitPerInvitation = async (request: TokenRequest) => {
    await enforceRateLimit(
      ctx.limiter,
      { bucket: "app-invitation", ...ACCEPTS_PER_INVITATION },
      invitationTokenHash(request.params.token),
      "too many attempts for this invitation; wait and try again",
    );
  };

  r.post(
    "/invitations/:token/accept",
    {
      config: { appAccess: "public" },
      onRequest: limitPerInvitation,
      schema: {
        operationId: "acceptInvitation",
        summary:
          "Accepts an invitation for an email without an account: creates the account with this name and password and signs in. An email that has an account joins with joinInvitation instead (409 sign_in_to_join; no password is ever checked here)",
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
      if ((await findUserId(ctx, email)) !== undefined) throw signInToJoin(409, email);
      const refusal = await refusalOfPassword("password", request.body.password, {
        email,
        name: request.body.name,
      });
      if (refusal) throw refusal;
      await createPasswordUser(ctx, {
        email,
        name: request.body.name.trim(),
        password: request.body.password,
      }).catch(async (error: unknown) => {
        // The same link accepted twice at once: the other request made the account first (one
        // account an email). It has an account now, as the check above would have said.
        if ((await findUserId(ctx, email)) !== undefined) throw signInToJoin(409, email);
        throw error;
      });
      const headers = fetchHeaders(request);
      // The account was created a moment ago with this password: signing in cannot be a guess.
      const signIn = await ctx.auth.api.signInEmail({
        body: { email, password: request.body.password },
        headers,
        returnHeaders: true,
      });
      forwardCookies(signIn.headers, reply);
      const sessionCookie = signIn.headers
        .getSetCookie()
        .map((cookie) => cookie.split(";")[0]!)
        .join("; ");
      const withSession = new Headers(headers);
      withSession.set("cookie", sessionCookie);
      const { user } = signIn.response;
      return joined(ctx, request, invitation, withSession, { id: user.id, name: user.name, email });
    },
  );

  r.post(
    "/invitations/:token/join",
    {
      config: { appAccess: "public", bodyOptional: true },
      onRequest: limitPerInvitation,
      schema: {
        operationId: "joinInvitation",
        summary:
          "Joins the invitation's organization as the signed-in account, which must be the invited email's (401 or 403 sign_in_to_join otherwise)",
        tags: ["Session"],
        params: TokenParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: SessionView },
      },
    },
    async (request, reply) => {
      const invitation = await findPendingInvitation(ctx.db, request.params.token, ctx.clock.now());
      const email = normalizeEmail(invitation.email);
      const signedIn = await resolveSignedInUser(ctx, request, reply);
      if (!signedIn) throw signInToJoin(401, email);
      if (normalizeEmail(signedIn.email) !== email) throw signInToJoin(403, email, signedIn.email);
      const user = { id: signedIn.userId, name: signedIn.userName, email };
      return joined(ctx, request, invitation, fetchHeaders(request), user);
    },
  );
}

/** Better Auth's accept: the membership, the invitation used up, the session moved to the organization. */
async function joined(
  ctx: AppApiContext,
  request: FastifyRequest,
  invitation: PendingInvitation,
  sessionHeaders: Headers,
  user: { id: string; name: string; email: string },
): Promise<Static<typeof SessionView>> {
  await ctx.auth.api.acceptInvitation({ body: { invitationId: invitation.id }, headers: sessionHeaders });
  request.log.info({ orgId: invitation.org_id, userId: user.id }, "invitation accepted");
  return {
    user,
    organization: { id: invitation.org_id, name: invitation.organization_name },
    role: invitation.role,
  };
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
