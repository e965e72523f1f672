import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { notFound } from "../../errors.ts";
import { beginHubSpotConnect, hubspotNotConfigured } from "../../hubspot/connect.ts";
import { deleteConnection, readConnection, setWonStages } from "../../hubspot/connections.ts";
import { HubSpotStatus, hubspotStatus, WonStagesBody } from "../../hubspot/schemas.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

/**
 * Settings → Connections: an owner connects the organization's HubSpot portal (OAuth; HubSpot
 * sends the owner back to /connectors/hubspot/callback), names the deal stages that mean won, and
 * disconnects. Members see none of it (403).
 */
export function registerConnectorRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock, config } = ctx;
  const owner = { appAccess: "owner" as const };
  const status = async (orgId: string) =>
    hubspotStatus(config.hubspot !== undefined, await readConnection(db, orgId));

  r.get(
    "/connectors/hubspot",
    {
      config: owner,
      schema: {
        operationId: "getHubSpotConnection",
        summary:
          "Whether HubSpot is offered and connected: the portal, since when, its last event (owners only)",
        tags: ["Connections"],
        response: { 200: HubSpotStatus },
      },
    },
    async (request) => status(sessionOf(request).orgId),
  );

  r.post(
    "/connectors/hubspot/connect",
    {
      config: owner,
      schema: {
        operationId: "connectHubSpot",
        summary: "Starts connecting HubSpot: the page where the owner grants access (owners only)",
        description:
          "The URL carries an OAuth `state` bound to this session, usable once within 10 minutes. HubSpot sends the owner back to /connectors/hubspot/callback, which stores the connection and returns to Settings → Connections. 409 `hubspot_not_configured` when the operator has set up no HubSpot app.",
        tags: ["Connections"],
        response: {
          200: Type.Object({ authorize_url: Type.String() }, { additionalProperties: false }),
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const connector = ctx.hubspotConnector;
      if (!connector) throw hubspotNotConfigured();
      const authorizeUrl = await beginHubSpotConnect(connector, {
        orgId: session.orgId,
        sessionId: session.sessionId,
        userId: session.userId,
      });
      request.log.info(
        { orgId: session.orgId, userId: session.userId },
        "app user started a HubSpot connect",
      );
      return { authorize_url: authorizeUrl };
    },
  );

  r.put(
    "/connectors/hubspot/won-stages",
    {
      config: owner,
      schema: {
        operationId: "setHubSpotWonStages",
        summary: "The deal stages whose deals are recorded as won (owners only)",
        tags: ["Connections"],
        body: WonStagesBody,
        response: { 200: HubSpotStatus },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      if (!(await setWonStages(db, orgId, request.body.won_stages, clock.now()))) {
        throw notFound("HubSpot is not connected");
      }
      return status(orgId);
    },
  );

  r.delete(
    "/connectors/hubspot",
    {
      config: owner,
      schema: {
        operationId: "disconnectHubSpot",
        summary:
          "Disconnects HubSpot: its tokens are deleted and its events ignored from now on (owners only)",
        tags: ["Connections"],
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = sessionOf(request);
      if (!(await deleteConnection(db, orgId))) throw notFound("HubSpot is not connected");
      request.log.info({ orgId, userId }, "app user disconnected HubSpot");
      return reply.code(204).send(null);
    },
  );
}
