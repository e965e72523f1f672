import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { TrackingLeadRequest, TrackingLeadResponse } from "../attribution/schemas.ts";
import { readTrackingLead, recordTrackingLead } from "../attribution/tracking-lead.ts";
import { authOf } from "../http/guards.ts";
import { attributionDeps, type Services } from "../services.ts";
import {
  ATTRIBUTION_BODY_LIMIT,
  ATTRIBUTION_ERROR_STYLE,
  attributionErrorResponses,
  attributionRateLimit,
} from "./attribution-errors.ts";
import { attributionSchemaErrors } from "./wrong-type-messages.ts";

export function registerTrackingLeadRoute(app: FastifyInstance, services: Services): void {
  const deps = attributionDeps(services);
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/tracking/lead",
    {
      bodyLimit: ATTRIBUTION_BODY_LIMIT,
      config: {
        scope: "webhooks:inbound",
        errorStyle: ATTRIBUTION_ERROR_STYLE,
        orgRateLimit: attributionRateLimit("tracking"),
      },
      schemaErrorFormatter: attributionSchemaErrors(TrackingLeadRequest),
      schema: {
        operationId: "syncLead",
        summary: "Sync a lead captured elsewhere as an indirect lead of the mailed campaign",
        body: TrackingLeadRequest,
        response: { 200: TrackingLeadResponse, ...attributionErrorResponses },
      },
    },
    async (request) => recordTrackingLead(deps, authOf(request).orgId, readTrackingLead(request.body)),
  );
}
