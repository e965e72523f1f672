import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { LimitParam } from "../http/schemas.ts";
import { listNeighbourJobs, NeighbourJob, NeighbourJobTotals } from "../neighbours/neighbour-jobs.ts";
import type { Services } from "../services.ts";
import { OrgParams } from "./orgs.ts";

const NeighbourJobsQuery = Type.Object(
  {
    limit: LimitParam(1000),
    cost_per_card_cents: Type.Optional(
      Type.String({ pattern: "^[0-9]{1,6}$", description: "What one card costs, for the totals' cost" }),
    ),
  },
  { additionalProperties: false },
);

const NeighbourJobs = Type.Object({ jobs: Type.Array(NeighbourJob), totals: NeighbourJobTotals });

/** Revenue by source job: what each job's neighbour mail earned (src/neighbours/neighbour-jobs.ts). */
export function registerAdminNeighbourJobRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    "/orgs/:org_id/neighbour-jobs",
    {
      schema: {
        hide: true,
        operationId: "adminListNeighbourJobs",
        summary: "Neighbour campaigns by source job: cards, leads, won deals and revenue, with totals",
        params: OrgParams,
        querystring: NeighbourJobsQuery,
        response: { 200: NeighbourJobs },
      },
    },
    async (request) => {
      const cost = request.query.cost_per_card_cents;
      return listNeighbourJobs(services.db, request.params.org_id, {
        limit: Number(request.query.limit ?? 100),
        ...(cost !== undefined ? { costPerCardCents: Number(cost) } : {}),
      });
    },
  );
}
