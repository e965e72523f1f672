import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { listConversions } from "../attribution/conversions.ts";
import { listLeads } from "../attribution/tracking-lead.ts";
import { listCustomers } from "../customers/customers.ts";
import { LimitParam } from "../http/schemas.ts";
import type { Services } from "../services.ts";
import { registerAdminNeighbourJobRoutes } from "./neighbour-jobs.ts";
import { OrgParams } from "./orgs.ts";

const ListQuery = Type.Object({ limit: LimitParam(1000) }, { additionalProperties: false });

const limitOf = (raw: string | undefined) => Number(raw ?? 100);

/** The operator's view of attribution: conversions, customers and leads (all sources), newest first; neighbour jobs. */
export function registerAdminAttributionRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const schema = { hide: true, params: OrgParams, querystring: ListQuery };

  r.get("/orgs/:org_id/conversions", { schema }, async (request) => {
    return {
      conversions: await listConversions(services.db, request.params.org_id, limitOf(request.query.limit)),
    };
  });

  r.get("/orgs/:org_id/customers", { schema }, async (request) => {
    return {
      customers: await listCustomers(services.db, request.params.org_id, limitOf(request.query.limit)),
    };
  });

  r.get("/orgs/:org_id/leads", { schema }, async (request) => {
    return { leads: await listLeads(services.db, request.params.org_id, limitOf(request.query.limit)) };
  });

  registerAdminNeighbourJobRoutes(app, services);
}
