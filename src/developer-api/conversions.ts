import type { Static, TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { readConversionFields, recordConversion } from "../attribution/conversions.ts";
import type { Payload } from "../attribution/payload-fields.ts";
import { ConversionRequest, ConversionResponse } from "../attribution/schemas.ts";
import { authOf } from "../http/guards.ts";
import { attributionDeps, type Services } from "../services.ts";
import {
  ATTRIBUTION_BODY_LIMIT,
  ATTRIBUTION_ERROR_STYLE,
  attributionErrorResponses,
  attributionRateLimit,
} from "./attribution-errors.ts";
import { attributionSchemaErrors } from "./wrong-type-messages.ts";

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
        description:
          "Idempotent on `deal_id`, else on the address and the close day. A deal at a home whose lead the contractor already marked won in the app (same home, closing within 30 days, amount within 1.25x either way, or either without an amount) is that job: it takes the app's won deal over (its `deal_id`, amount and fields; the close day when sent) instead of adding a second, and `conversion_id` is that deal's. Replays with the same `deal_id` find it.",
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
