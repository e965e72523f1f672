import { type Static, Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { readConversionFields, recordConversion } from "../attribution/conversions.ts";
import type { Payload } from "../attribution/payload-fields.ts";
import { authOf } from "../http/guards.ts";
import type { Services } from "../services.ts";
import {
  AliasText,
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
      description: "direct: the matched piece has a landing-page lead; indirect: it does not.",
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

export function registerConversionRoutes(app: FastifyInstance, services: Services): void {
  const deps = attributionDeps(services);
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/conversions",
    {
      bodyLimit: ATTRIBUTION_BODY_LIMIT,
      config: {
        scope: "webhooks:inbound",
        errorStyle: ATTRIBUTION_ERROR_STYLE,
        orgRateLimit: attributionRateLimit("conversions"),
      },
      schemaErrorFormatter: attributionSchemaErrors(ConversionRequest),
      schema: {
        operationId: "reportConversion",
        summary: "Report a won deal (attributed to the mailed campaign, last touch, 180 days)",
        body: ConversionRequest,
        response: { 200: ConversionResponse, ...attributionErrorResponses },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof ConversionRequest> as Payload;
      return recordConversion(deps, authOf(request).orgId, readConversionFields(body));
    },
  );
}
