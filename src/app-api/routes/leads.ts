import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { MarkWonBody, markLeadWon, takeBackLeadWon } from "../../attribution/lead-won.ts";
import { decodeKeysetCursor } from "../../db/keyset-cursor.ts";
import { notFound } from "../../errors.ts";
import {
  getLead,
  LeadDetail,
  LeadPage,
  LeadSource,
  listLeads,
  markLeadOpened,
} from "../../leads/app-leads.ts";
import { getLeadAlertPreference, setLeadAlertPreference } from "../../leads/lead-alerts.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import { attributionDeps } from "../../services.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const PAGE_SIZE = 50;
const LEAD_WON_MARKS = { bucket: "app-lead-won", limit: 60, windowSeconds: 60 };
const LeadIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const LeadAlerts = Type.Object(
  {
    enabled: Type.Boolean({
      description: "Whether the signed-in member gets an email for every new landing-page lead.",
    }),
  },
  { additionalProperties: false },
);

/** The Leads screen and the signed-in member's lead alert preference. */
export function registerLeadRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;

  r.get(
    "/leads",
    {
      schema: {
        operationId: "listLeads",
        summary: "Landing-page and CRM-synced leads, newest first, a keyset page at a time (Leads)",
        tags: ["Leads"],
        querystring: Type.Object(
          {
            source: Type.Optional(LeadSource),
            unopened: Type.Optional(
              Type.Literal("true", {
                description: "Only new landing-page leads no member has opened yet (Overview).",
              }),
            ),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: LeadPage },
      },
    },
    async (request) =>
      listLeads(
        db,
        sessionOf(request).orgId,
        { source: request.query.source, unopened: request.query.unopened === "true" },
        request.query.cursor ? decodeKeysetCursor(request.query.cursor) : undefined,
        PAGE_SIZE,
      ),
  );

  r.get(
    "/leads/:id",
    {
      schema: {
        operationId: "getLead",
        summary:
          "One lead: its answers and its deliveries (status code, attempts, next retry); opening it marks it no longer new",
        tags: ["Leads"],
        params: LeadIdParams,
        response: { 200: LeadDetail },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const lead = await getLead(db, orgId, request.params.id);
      if (!lead) throw notFound("lead not found");
      await markLeadOpened(db, orgId, lead.id, clock.now());
      return lead;
    },
  );

  r.put(
    "/leads/:id/won",
    {
      schema: {
        operationId: "markLeadWon",
        summary:
          "Marks the lead's job won: Revenue credits the card that reached its home, and the home becomes a customer (no more cards; its follow-ups stop). Again: changes the amount; the day stays",
        tags: ["Leads"],
        params: LeadIdParams,
        body: MarkWonBody,
        response: { 200: LeadDetail },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      // Each mark may ask the geocoder for the home (a paid call): as the API's conversions, 60 a minute.
      await enforceRateLimit(
        ctx.limiter,
        LEAD_WON_MARKS,
        orgId,
        "too many won jobs marked; try again in a minute",
      );
      await markLeadWon(attributionDeps(ctx), orgId, request.params.id, request.body);
      const lead = await getLead(db, orgId, request.params.id);
      if (!lead) throw notFound("lead not found");
      return lead;
    },
  );

  r.delete(
    "/leads/:id/won",
    {
      schema: {
        operationId: "takeBackLeadWon",
        summary:
          "The lead was not won after all (marked by mistake): its won deal leaves Revenue and the home leaves the customers list unless another won deal or another way put it there; cards stopped when it was marked stay stopped. 409 reported_by_crm when the CRM reported the job too. A lead not won is answered as it is",
        tags: ["Leads"],
        params: LeadIdParams,
        response: { 200: LeadDetail },
      },
    },
    async (request) => {
      const { orgId, userId } = sessionOf(request);
      await takeBackLeadWon(attributionDeps(ctx), orgId, request.params.id);
      request.log.info({ orgId, userId, leadId: request.params.id }, "app user took back a won job");
      const lead = await getLead(db, orgId, request.params.id);
      if (!lead) throw notFound("lead not found");
      return lead;
    },
  );

  r.get(
    "/lead-alerts",
    {
      schema: {
        operationId: "getLeadAlerts",
        summary: "The signed-in member's lead alert preference",
        tags: ["Leads"],
        response: { 200: LeadAlerts },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      return { enabled: await getLeadAlertPreference(db, session.orgId, session.userId) };
    },
  );

  r.put(
    "/lead-alerts",
    {
      schema: {
        operationId: "setLeadAlerts",
        summary: "Turns the signed-in member's email alert for every new landing-page lead on or off",
        tags: ["Leads"],
        body: LeadAlerts,
        response: { 200: LeadAlerts },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      await setLeadAlertPreference(db, {
        orgId: session.orgId,
        userId: session.userId,
        enabled: request.body.enabled,
        now: clock.now(),
      });
      return { enabled: request.body.enabled };
    },
  );
}
