import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { ReferenceAddressCoverage, referenceAddressCoverage } from "../../neighbours/coverage.ts";
import { listNeighbourJobs, NeighbourJob, NeighbourJobTotals } from "../../neighbours/neighbour-jobs.ts";
import { mailCost, spendFigures, unpricedCardCents } from "../../reports/app-overview.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const SOURCE_JOBS_SHOWN = 200;

/** The app's totals speak money, not cents: cost and return on spend from the profile's cost per card. */
const SourceJobTotals = Type.Object(
  {
    ...Type.Omit(NeighbourJobTotals, ["cost_cents"]).properties,
    cost: Type.Union([Type.Number(), Type.Null()], {
      description: "Cards sent × cost per card; null without a cost per card in the profile.",
    }),
    return_on_spend: Type.Union([Type.Number(), Type.Null()]),
  },
  { additionalProperties: false },
);

/** Neighbour mail in the app: what each source job earned, where addresses are loaded, and how the map is drawn. */
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
              jobs: Type.Array(NeighbourJob, { description: `The newest ${SOURCE_JOBS_SHOWN} jobs.` }),
              totals: SourceJobTotals,
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const cents = await unpricedCardCents(db, orgId);
      const { jobs, totals, priced } = await listNeighbourJobs(db, orgId, { limit: SOURCE_JOBS_SHOWN });
      const { jobs: count, cards_sent, leads, won_deals, revenue } = totals;
      return {
        jobs,
        totals: {
          jobs: count,
          cards_sent,
          leads,
          won_deals,
          revenue,
          ...spendFigures(
            mailCost({ mailed: cards_sent, priced: priced.cards, pricedCents: priced.cents }, cents),
            revenue,
          ),
        },
      };
    },
  );

  r.get(
    "/reference-addresses/coverage",
    {
      schema: {
        operationId: "getReferenceAddressCoverage",
        summary:
          "Which ZIPs have neighbour addresses loaded (deployment-wide, loaded by the operator), with the homes in each",
        tags: ["Automations"],
        response: { 200: ReferenceAddressCoverage },
      },
    },
    async () => referenceAddressCoverage(db),
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
