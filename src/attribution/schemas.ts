import { Type } from "@fastify/type-provider-typebox";
import {
  AliasText,
  addressPartFields,
  CrmDate,
  Nullable,
  RecordId,
  OptionalText as Text,
} from "../domain/crm-fields.ts";

// Request and response schemas of POST /api/v1/conversions and /api/v1/tracking/lead: the routes,
// the MCP tools and the OpenAPI document use these.

/** The unmatched answer of conversions and tracking leads. */
export const Unmatched = Type.Object({ matched: Type.Literal(false) }, { $id: "Unmatched" });

const Amount = (description: string) =>
  Type.Optional(
    Type.Union([Type.Number(), Type.String({ maxLength: 64, title: "numeric string" }), Type.Null()], {
      description,
    }),
  );

const conversionFields = {
  address: Text(500, "Service address (required here or under an alias)."),
  deal_address: Text(500, "Alias of address."),
  install_address: Text(500, "Alias of address."),
  ...addressPartFields,
  deal_id: RecordId("Drives idempotency."),
  hs_object_id: RecordId("Alias of deal_id (HubSpot)."),
  objectId: RecordId("Alias of deal_id (HubSpot webhooks)."),
  dealId: RecordId("Alias of deal_id (HubSpot legacy)."),
  deal_amount: Amount(
    'A number or a numeric string such as "12500.00", "1,234.50" or "$1,234" (read as 1234.50 and 1234); a blank string or null counts as absent.',
  ),
  amount: Amount("Alias of deal_amount (HubSpot)."),
  deal_date: CrmDate(
    "Close date, ISO-8601 date or date-time, or Unix epoch milliseconds (12-13 digits) or seconds (9-10) as HubSpot sends them (default: now); a date means that whole UTC day.",
  ),
  closedate: CrmDate("Alias of deal_date (HubSpot); also close_date."),
  campaign_id: Text(64, "Exact, address-independent attribution to this campaign of the org."),
  deal_stage: Text(2000, "Also dealstage, stage, status."),
  dealstage: AliasText("Alias of deal_stage (HubSpot)."),
  deal_name: Text(2000, "Also dealname."),
  dealname: AliasText("Alias of deal_name (HubSpot)."),
  contact_first_name: Text(2000),
  contact_last_name: Text(2000),
  contact_name: Text(2000),
  contact_email: Text(2000),
};

/**
 * Tolerant of CRM mappings: the documented fields may be flat or under `properties`, and any
 * other field is accepted and ignored.
 */
export const ConversionRequest = Type.Object(
  {
    ...conversionFields,
    properties: Nullable(
      Type.Object(conversionFields, { additionalProperties: true }),
      "The same fields nested, as CRM webhooks send them; a flat field wins.",
    ),
  },
  {
    $id: "ConversionRequest",
    additionalProperties: true,
    examples: [
      {
        address: "742 Evergreen Terrace, Springfield, IL 62704",
        deal_id: "deal-2001",
        deal_amount: 12500,
        deal_date: "2026-11-20",
        deal_stage: "closedwon",
        contact_email: "homer@example.com",
      },
    ],
  },
);

export const ConversionMatched = Type.Object(
  {
    matched: Type.Literal(true),
    attribution_type: Type.Union([Type.Literal("direct"), Type.Literal("indirect")], {
      description:
        "direct: the matched piece is at the deal's address and has a landing-page lead; indirect: otherwise (no landing-page lead, or a campaign_id match that fell back to the campaign's latest piece at another address).",
    }),
    campaign_id: Type.String(),
    match_method: Type.Union([Type.Literal("campaign_id"), Type.Literal("geo"), Type.Literal("address")], {
      description:
        "campaign_id: the campaign named in the request; geo: both points (rooftop or street precision) within the radius (default 30 m); address: the same normalized address, or the same home written without its city or its ZIP.",
    }),
    match_confidence: Type.Union([Type.Literal("exact"), Type.Literal("high"), Type.Literal("medium")], {
      description:
        "exact: campaign_id; high: geo with both points rooftop, or an equal normalized address; medium: geo with a street-precision point, or the same home written with more or less of its locality (a missing city or ZIP).",
    }),
    conversion_id: Type.String(),
  },
  { $id: "ConversionMatched" },
);

export const ConversionResponse = Type.Union([ConversionMatched, Unmatched], { $id: "ConversionResult" });

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
