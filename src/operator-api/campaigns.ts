import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { createMailingService } from "../mailings/mailing-service.ts";
import { listCampaigns, markPieceMailed } from "../pieces/campaigns.ts";
import type { Services } from "../services.ts";
import { IdParams, OrgParams } from "./orgs.ts";

const Mailing = Type.Object(
  {
    campaign_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    pieces: Type.Array(
      Type.Object(
        {
          address: Type.String({ minLength: 1, maxLength: 500 }),
          recipient_name: Type.Optional(Type.String({ maxLength: 200 })),
          mailed_at: Type.Optional(Type.String({ format: "date-time" })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 5000 },
    ),
  },
  { additionalProperties: false },
);

export function registerAdminCampaignRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const publicBaseUrl = services.config.publicBaseUrl;
  const mailings = createMailingService({ db: services.db, clock: services.clock, publicBaseUrl });

  r.post(
    "/orgs/:org_id/mailings",
    { schema: { hide: true, params: OrgParams, body: Mailing } },
    async (request, reply) => {
      const result = await mailings.record(request.params.org_id, request.body);
      return reply.code(201).send(result);
    },
  );

  r.get("/orgs/:org_id/campaigns", { schema: { hide: true, params: OrgParams } }, async (request) => {
    return { campaigns: await listCampaigns(services.db, request.params.org_id, publicBaseUrl) };
  });

  r.post(
    "/pieces/:id/mailed",
    {
      config: { bodyOptional: true },
      schema: {
        hide: true,
        params: IdParams,
        body: Type.Object(
          { mailed_at: Type.Optional(Type.String({ format: "date-time" })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const mailedAt = request.body.mailed_at ? new Date(request.body.mailed_at) : undefined;
      const at = { mailedAt, now: services.clock.now() };
      return markPieceMailed(services.db, request.params.id, at, publicBaseUrl);
    },
  );
}
