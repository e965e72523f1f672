import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { createMailer } from "../../mail/mailer.ts";
import { inviteMember } from "../../orgs/invitations.ts";
import type { Services } from "../../services.ts";
import { OrgParams } from "./orgs.ts";

/** The operator invites an organization's first owner (or anyone) into the contractor's app. */
export function registerAdminInvitationRoutes(app: FastifyInstance, services: Services): void {
  const { config, clock, logger, db } = services;
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
    clock,
    counter: services.metrics.emails,
  });
  app.addHook("onClose", () => mailer.close());
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    "/orgs/:org_id/invitations",
    {
      schema: {
        hide: true,
        params: OrgParams,
        body: Type.Object(
          {
            email: Type.String({ format: "email", maxLength: 254 }),
            role: Type.Union([Type.Literal("owner"), Type.Literal("member")]),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const invitation = await inviteMember(
        { db, clock, mailer, publicBaseUrl: config.publicBaseUrl },
        { orgId: request.params.org_id, email: request.body.email, role: request.body.role, inviterId: null },
      );
      request.log.info(
        { orgId: request.params.org_id, invitationId: invitation.invitation_id },
        "operator invited a member",
      );
      return reply.code(201).send(invitation);
    },
  );
}
