import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { LimitParam } from "../http/schemas.ts";
import { LeadFieldInput, listLeadFields, upsertLeadField } from "../leads/lead-fields.ts";
import type { Services } from "../services.ts";
import { listDeliveries } from "../webhooks/deliveries.ts";
import { createSubscriptionService } from "../webhooks/subscriptions.ts";
import { OrgParams } from "./orgs.ts";

const OperatorSubscriptionInput = Type.Object(
  {
    target_url: Type.String({ maxLength: 2048 }),
    // false: a legacy subscription without secret, as created before signing existed.
    signed: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const DeliveriesQuery = Type.Object({ limit: LimitParam(500) });

/** Operator API of the leads domain: lead-form fields, legacy subscriptions, the delivery log. */
export function registerAdminLeadRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const subscriptionService = createSubscriptionService({
    db: services.db,
    clock: services.clock,
    guard: services.webhookTargetGuard,
  });

  r.post(
    "/orgs/:org_id/lead-fields",
    { schema: { hide: true, params: OrgParams, body: LeadFieldInput } },
    async (request, reply) => {
      const { field, created } = await upsertLeadField(services.db, request.params.org_id, request.body);
      return reply.code(created ? 201 : 200).send(field);
    },
  );

  r.get("/orgs/:org_id/lead-fields", { schema: { hide: true, params: OrgParams } }, async (request) => {
    return { fields: await listLeadFields(services.db, request.params.org_id) };
  });

  r.post(
    "/orgs/:org_id/subscriptions",
    { schema: { hide: true, params: OrgParams, body: OperatorSubscriptionInput } },
    async (request, reply) => {
      const before = await subscriptionService.list(request.params.org_id);
      const subscription = await subscriptionService.createForOperator(
        request.params.org_id,
        { target_url: request.body.target_url, signed: request.body.signed ?? true },
        request.log,
      );
      const created = !before.some((existing) => existing.id === subscription.id);
      return reply.code(created ? 201 : 200).send(subscription);
    },
  );

  r.get("/orgs/:org_id/subscriptions", { schema: { hide: true, params: OrgParams } }, async (request) => {
    return { subscriptions: await subscriptionService.list(request.params.org_id) };
  });

  r.get(
    "/orgs/:org_id/deliveries",
    { schema: { hide: true, params: OrgParams, querystring: DeliveriesQuery } },
    async (request) => {
      const limit = Number(request.query.limit ?? 100);
      return { deliveries: await listDeliveries(services.db, request.params.org_id, limit) };
    },
  );
}
