import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { sql } from "../../db/database.ts";
import { AppError, refusedFields } from "../../errors.ts";
import { limitPasswordCheck } from "../auth-routes.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../auth-settings.ts";
import type { AppApiContext } from "../context.ts";
import { refusalOfPassword } from "../password-choice.ts";
import { endResetLinks } from "../password-reset-links.ts";
import { PersonNameSchema, SessionView } from "../schemas.ts";
import { fetchHeaders, forwardCookies, sessionOf } from "../session-guard.ts";
import { sessionView } from "./session.ts";

/** Said on the form's Current password field (details.fields), where the mistake is. */
const WRONG_CURRENT_PASSWORD = "The current password is not right.";

export function registerMeRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.patch(
    "/me",
    {
      schema: {
        operationId: "updateMe",
        summary: "Changes the signed-in user's name",
        tags: ["Session"],
        body: Type.Object({ name: PersonNameSchema }, { additionalProperties: false }),
        response: { 200: SessionView },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const name = request.body.name.trim();
      if (!name) throw new AppError(422, "invalid_payload", "name: must not be blank");
      await ctx.db.execute(
        sql`UPDATE users SET name = ${name}, updated_at = ${ctx.clock.now().toISOString()}::timestamptz WHERE id = ${session.userId}`,
      );
      return sessionView({ ...session, userName: name });
    },
  );

  r.post(
    "/me/password",
    {
      schema: {
        operationId: "changePassword",
        summary:
          "Changes the password (the current one is required) and signs out every other session; each attempt counts in the account's sign-in limit (429 rate_limited past it)",
        tags: ["Session"],
        body: Type.Object(
          {
            current_password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
            new_password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
          },
          { additionalProperties: false },
        ),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      // Judged before the current password is: a refusal checks no password, so it is no attempt.
      const refusal = await refusalOfPassword("new_password", request.body.new_password, {
        email: session.email,
        name: session.userName,
      });
      if (refusal) throw refusal;
      await limitPasswordCheck(ctx.limiter, session.email);
      const result = await ctx.auth.api
        .changePassword({
          body: {
            currentPassword: request.body.current_password,
            newPassword: request.body.new_password,
            revokeOtherSessions: true,
          },
          headers: fetchHeaders(request),
          returnHeaders: true,
        })
        .catch((error: unknown) => {
          const status = (error as { statusCode?: number }).statusCode;
          if (status === 400 || status === 401)
            throw refusedFields(422, "invalid_payload", WRONG_CURRENT_PASSWORD, {
              current_password: WRONG_CURRENT_PASSWORD,
            });
          throw error;
        });
      forwardCookies(result.headers, reply);
      // A reset link asked for before the change must not undo it. The password has changed and the
      // other sessions have ended by now: a failure here is logged, never a sign-out with a 500.
      await endResetLinks(ctx.db, sessionOf(request).userId).catch((error: unknown) =>
        request.log.error({ err: error }, "open reset links not ended after a password change"),
      );
      return reply.code(204).send(null);
    },
  );
}
