import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { readTrackingLead, recordTrackingLead } from "../attribution/tracking-lead.ts";
import { authOf } from "../http/guards.ts";
import type { Services } from "../services.ts";
import {
  ATTRIBUTION_BODY_LIMIT,
  ATTRIBUTION_ERROR_STYLE,
  addressPartFields,
  attributionDeps,
  attributionErrorResponses,
  attributionRateLimit,
  attributionSchemaErrors,
  CrmDate,
  Nullable,
  RecordId,
  OptionalText as Text,
  Unmatched,
} from "./attribution-shared.ts";

const trackingLeadFields = {
  address: Text(500, "Required to match; without it the answer is 400 No address found in payload."),
  ...addressPartFields,
  first_name: Text(200, "Also firstname (HubSpot)."),
  firstname: Text(200, "Alias of first_name (HubSpot)."),
  last_name: Text(200, "Also lastname (HubSpot)."),
  lastname: Text(200, "Alias of last_name (HubSpot)."),
  email: Text(320, "Idempotency key when crm_record_id is absent (case-insensitive)."),
  phone: Text(
    64,
    "Idempotency key when crm_record_id and email are absent (digits compared); also mobilephone.",
  ),
  mobilephone: Text(64, "Alias of phone (HubSpot)."),
  crm_record_id: RecordId("First idempotency key; also hs_object_id. HubSpot sends ids as numbers."),
  hs_object_id: RecordId("Alias of crm_record_id (HubSpot)."),
  created_at: CrmDate(
    "ISO-8601, or Unix epoch milliseconds or seconds; the reference date of the 180-day window (default: now).",
  ),
  service_lead_id: Text(64, "Loop guard: the id of one of the org's own leads stops the sync."),
};

/**
 * Every field is optional (null counts as absent), flat or under `properties` as CRM webhooks send
 * them (a flat field wins); unknown CRM fields are accepted and ignored.
 */
export const TrackingLeadRequest = Type.Object(
  {
    ...trackingLeadFields,
    properties: Nullable(
      Type.Object(trackingLeadFields, { additionalProperties: true }),
      "The same fields nested, as CRM webhooks send them; a flat field wins.",
    ),
  },
  {
    $id: "TrackingLeadRequest",
    additionalProperties: true,
    examples: [
      {
        address: "742 Evergreen Terrace, Springfield, IL 62704",
        first_name: "Marge",
        last_name: "Simpson",
        email: "marge@example.com",
        crm_record_id: "contact-77",
        created_at: "2026-11-21T09:30:00Z",
      },
    ],
  },
);

export const TrackingLeadMatched = Type.Object(
  {
    matched: Type.Literal(true),
    duplicate: Type.Boolean({
      description: "True on a replay of the same key, or when collapsed onto a landing-page lead.",
    }),
    lead_id: Type.String(),
    campaign_id: Type.String(),
    attribution_type: Type.Union([Type.Literal("indirect"), Type.Literal("direct")], {
      description: "indirect for a synced lead; direct when collapsed onto an existing landing-page lead.",
    }),
  },
  { $id: "TrackingLeadMatched" },
);

export const LoopGuarded = Type.Object(
  { matched: Type.Literal(false), reason: Type.Literal("loop_guard") },
  { $id: "LoopGuarded" },
);

export const TrackingLeadResponse = Type.Union([TrackingLeadMatched, LoopGuarded, Unmatched], {
  $id: "TrackingLeadResult",
});

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
