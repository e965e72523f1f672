import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { listNeighbourJobs } from "../../neighbours/neighbour-jobs.ts";
import { costPerCardCents, spendFigures } from "../../reports/app-overview.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const SOURCE_JOBS_SHOWN = 200;

const SourceJob = Type.Object(
  {
    campaign_id: Type.String({ format: "uuid" }),
    automation_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
    job_street: Type.String({ description: "The job's street, never its house number." }),
    job_city: Type.String(),
    created_at: Type.String({ format: "date-time" }),
    homes: Type.Integer({ description: "Homes chosen for the job's neighbour campaign." }),
    cards_sent: Type.Integer(),
    leads: Type.Integer(),
    won_deals: Type.Integer(),
    revenue: Type.Number(),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: "Why no home was mailed, when none was.",
    }),
  },
  { additionalProperties: false },
);

/** Neighbour mail in the app: what each source job earned, and how the map is drawn. */
export function registerNeighbourRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = ctx;

  r.get(
    "/revenue/by-source-job",
    {
      schema: {
        operationId: "getRevenueBySourceJob",
        summary:
          "Neighbour mail by source job: each job's street, cards sent, leads, won deals and revenue, and the totals against the cards' cost",
        tags: ["Revenue"],
        response: {
          200: Type.Object(
            {
              jobs: Type.Array(SourceJob, { description: `The newest ${SOURCE_JOBS_SHOWN} jobs.` }),
              totals: Type.Object(
                {
                  jobs: Type.Integer(),
                  cards_sent: Type.Integer(),
                  leads: Type.Integer(),
                  won_deals: Type.Integer(),
                  revenue: Type.Number(),
                  cost: Type.Union([Type.Number(), Type.Null()], {
                    description: "Cards sent × cost per card; null without a cost per card in the profile.",
                  }),
                  return_on_spend: Type.Union([Type.Number(), Type.Null()]),
                },
                { additionalProperties: false },
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const cents = await costPerCardCents(db, orgId);
      const { jobs, totals } = await listNeighbourJobs(db, orgId, { limit: SOURCE_JOBS_SHOWN });
      const { jobs: count, cards_sent, leads, won_deals, revenue } = totals;
      return {
        jobs,
        totals: {
          jobs: count,
          cards_sent,
          leads,
          won_deals,
          revenue,
          ...spendFigures(cards_sent, revenue, cents),
        },
      };
    },
  );

  r.get(
    "/map-config",
    {
      schema: {
        operationId: "getMapConfig",
        summary:
          "How the app draws maps: a raster tile URL template (MAP_TILE_URL) and its attribution, or null for the offline drawing",
        tags: ["Automations"],
        response: {
          200: Type.Object(
            {
              tile_url: Type.Union([Type.String(), Type.Null()]),
              attribution: Type.Union([Type.String(), Type.Null()]),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async () => ({
      tile_url: ctx.config.mapTileUrl ?? null,
      attribution: ctx.config.mapTileAttribution ?? null,
    }),
  );
}
