import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/schemas.ts";
import { checkHubSpotSignature } from "../hubspot/signature.ts";
import { HubSpotWebhookReceipt, parseWebhookBody, receiveHubSpotEvents } from "../hubspot/webhook-receipt.ts";
import type { Services } from "../services.ts";

/** 100 events of HubSpot's size fit in a tenth of this; the signature is computed over at most this. */
export const HUBSPOT_WEBHOOK_BODY_LIMIT = 262_144;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const badSignature = (reason: string) =>
  new AppError(401, "unauthorized", `X-HubSpot-Signature-v3 did not verify (${reason})`);

/**
 * POST /connectors/hubspot/webhooks: HubSpot's batched CRM events. The raw body is kept as bytes
 * (the signature covers exactly what HubSpot sent), verified, stored with one job per new event
 * and answered at once: the records are read from HubSpot by the worker, not in this request.
 */
export async function registerHubSpotWebhookRoute(app: FastifyInstance, services: Services): Promise<void> {
  const { config, clock, db } = services;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      "/connectors/hubspot/webhooks",
      {
        bodyLimit: HUBSPOT_WEBHOOK_BODY_LIMIT,
        schema: {
          hide: true,
          operationId: "hubspotWebhook",
          summary: "HubSpot's CRM events, verified with X-HubSpot-Signature-v3",
          response: {
            200: HubSpotWebhookReceipt,
            400: ErrorBody,
            401: ErrorBody,
            413: ErrorBody,
            503: ErrorBody,
          },
        },
      },
      async (request) => {
        if (!config.hubspot) {
          throw new AppError(503, "connector_not_configured", "HubSpot is not set up on this server");
        }
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const check = checkHubSpotSignature(
          config.hubspot.clientSecret,
          {
            method: request.method,
            uri: `${config.publicBaseUrl}${request.url}`,
            rawBody,
            timestamp: header(request.headers["x-hubspot-request-timestamp"]),
            signature: header(request.headers["x-hubspot-signature-v3"]),
          },
          clock.now(),
        );
        if (check !== "valid") {
          request.log.warn({ check }, "HubSpot webhook refused");
          throw badSignature(check);
        }
        const { events, malformed } = parseWebhookBody(rawBody);
        const receipt = await receiveHubSpotEvents({ db, clock, logger: request.log }, events);
        return { ...receipt, ignored: receipt.ignored + malformed };
      },
    );
  });
}
