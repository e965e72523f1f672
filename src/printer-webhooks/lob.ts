import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { ErrorBody } from "../http/schemas.ts";
import { applyLobEvent } from "../pieces/lob-tracking.ts";
import type { Services } from "../services.ts";

export const LobEventReceipt = Type.Object({
  received: Type.Literal(true),
  event_type: Type.String(),
  piece_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
  status: Type.Union([Type.String(), Type.Null()]),
});

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * POST /webhooks/lob: Lob's tracking events (mailed, in transit, delivered, returned). The body
 * is kept as raw bytes, since the signature covers exactly what Lob sent.
 */
export async function registerLobWebhookRoute(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      "/webhooks/lob",
      {
        bodyLimit: 1_048_576,
        schema: {
          hide: true,
          operationId: "lobTrackingWebhook",
          summary: "Lob postcard tracking events, verified with LOB_WEBHOOK_SECRET",
          response: { 200: LobEventReceipt, 400: ErrorBody, 401: ErrorBody, 503: ErrorBody },
        },
      },
      async (request) =>
        applyLobEvent(
          services,
          Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          {
            signature: header(request.headers["lob-signature"]),
            timestamp: header(request.headers["lob-signature-timestamp"]),
          },
          services.config.lobWebhookSecret,
        ),
    );
  });
}
