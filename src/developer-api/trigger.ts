import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Payload } from "../attribution/payload-fields.ts";
import { Nullable } from "../domain/crm-fields.ts";
import { errorResponse } from "../http/error-responses.ts";
import { AUTOMATIONS_DISABLED_SENTENCE } from "../http/error-style.ts";
import { authOf } from "../http/guards.ts";
import { attributionDeps, type Services } from "../services.ts";
import { fireDirectTrigger, TriggerResult } from "../trigger/direct-trigger.ts";
import {
  ATTRIBUTION_BODY_LIMIT,
  ATTRIBUTION_ERROR_STYLE,
  attributionErrorResponses,
  attributionRateLimit,
} from "./attribution-errors.ts";
import { attributionSchemaErrors } from "./wrong-type-messages.ts";

/** The trigger's kill switch answers 400 with this sentence (spec: Errors, Other). */
export const TRIGGER_ERROR_STYLE = {
  ...ATTRIBUTION_ERROR_STYLE,
  automations_disabled: AUTOMATIONS_DISABLED_SENTENCE,
};

/** CRM mappings send text, numbers, or null for an empty field (read as absent). */
const Scalar = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Null()], { description }));

/**
 * The deal id is the idempotency key, kept in a unique index: 255 characters at most, as for
 * conversions and events' dedup_id (2000 four-byte characters overflowed the index and the
 * trigger answered 202 with nothing queued).
 */
const DealId = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Number(), Type.Null()], { description }));

const triggerFields = {
  address: Scalar(
    "Full address, or the street line completed by city/state/zip. Aliases: deal_address, install_address.",
  ),
  deal_address: Scalar("Alias of address."),
  install_address: Scalar("Alias of address."),
  street: Scalar("Street line (also street_address, address_line_1) when no address is sent."),
  city: Scalar("City."),
  state: Scalar("State."),
  zip: Scalar("ZIP (also postal_code, zip_code, zipcode)."),
  deal_id: DealId(
    "Idempotency key (also hs_object_id, objectId, dealId), at most 255 characters: a repeat returns idempotent: true. Without one, what the body says (its address and fields) is the key for its UTC day: the very same body again that day (a retry) returns idempotent: true.",
  ),
  hs_object_id: DealId("Alias of deal_id (HubSpot)."),
  objectId: DealId("Alias of deal_id (HubSpot webhooks)."),
  dealId: DealId("Alias of deal_id (HubSpot legacy)."),
  first_name: Scalar("Also firstname, contact_first_name."),
  last_name: Scalar("Also lastname, contact_last_name."),
  name: Scalar("Recipient name (also contact_name, client_name, full_name); default: first and last name."),
  email: Scalar("Also contact_email, client_email."),
  phone: Scalar("Also contact_phone, client_phone, mobilephone."),
  deal_amount: Scalar(
    'Also amount; a number or a numeric string such as "1,234.50" or "$1,234" (deal_won revenue).',
  ),
  deal_date: Scalar(
    "Also closedate, close_date; ISO-8601, or Unix epoch milliseconds or seconds as HubSpot sends them (deal_won attribution window).",
  ),
  deal_stage: Scalar("Also dealstage, stage, status; filters read it as `status`."),
  deal_name: Scalar("Also dealname."),
};

/**
 * Highly tolerant of CRM mappings: each field may be flat or under `properties`, under any alias
 * listed; unknown fields are accepted (automation filters can read them).
 */
export const TriggerRequest = Type.Object(
  {
    ...triggerFields,
    properties: Nullable(Type.Object(triggerFields, { additionalProperties: true })),
  },
  {
    $id: "TriggerRequest",
    additionalProperties: true,
    examples: [
      {
        address: "742 Evergreen Terrace, Springfield, IL 62704",
        name: "Homer Simpson",
        email: "homer@example.com",
        deal_id: "deal-2001",
        deal_amount: "12,500.00",
        deal_stage: "closedwon",
      },
    ],
  },
);

/** `id` is optional in the schema: a missing or empty id is the same 404 as an unknown one. */
export const TriggerQuery = Type.Object(
  {
    id: Type.Optional(
      Type.String({ description: "The automation to fire; missing, unknown or foreign: 404." }),
    ),
  },
  { additionalProperties: true },
);

export function registerTriggerRoute(app: FastifyInstance, services: Services): void {
  const deps = {
    ...attributionDeps(services),
    killSwitch: services.killSwitch,
    triggerStore: services.triggerStore,
  };
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/webhooks/trigger",
    {
      bodyLimit: ATTRIBUTION_BODY_LIMIT,
      config: {
        scope: "webhooks:inbound",
        errorStyle: TRIGGER_ERROR_STYLE,
        orgRateLimit: attributionRateLimit("trigger"),
      },
      attachValidation: true,
      schemaErrorFormatter: attributionSchemaErrors(TriggerRequest),
      schema: {
        operationId: "triggerAutomation",
        summary: "Fire one automation (legacy; new integrations use POST /api/v1/events)",
        querystring: TriggerQuery,
        body: TriggerRequest,
        response: {
          202: TriggerResult,
          ...attributionErrorResponses,
          400: errorResponse(
            `\`${AUTOMATIONS_DISABLED_SENTENCE}\`: platform kill switch, transient (retry after Retry-After: 300); \`No address found in payload\`: no address in any accepted field.`,
            [AUTOMATIONS_DISABLED_SENTENCE, "No address found in payload"],
          ),
          404: errorResponse(
            "No automation of this organization has this id (a missing and a foreign id alike).",
            ["not_found"],
          ),
        },
      },
    },
    async (request, reply) => {
      // A body the schema refuses is its 422; an id the query schema refuses (sent twice) names
      // no automation, so it takes the path of a missing id: the kill switch, then the same 404.
      const refused = request.validationError;
      if (refused && refused.validationContext !== "querystring") throw refused;
      const id = refused ? "" : (request.query.id ?? "");
      const result = await fireDirectTrigger(deps, authOf(request).orgId, id, request.body as Payload);
      return reply.code(202).send(result);
    },
  );
}
