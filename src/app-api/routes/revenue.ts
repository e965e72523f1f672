import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import {
  conversionsCsv,
  listConversions,
  revenueByAutomation,
  revenueByMonth,
} from "../../attribution/app-revenue.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const CONVERSIONS_SHOWN = 500;
const CONVERSIONS_EXPORTED = 50_000;

const Money = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });
const spend = {
  cards_mailed: Type.Integer(),
  leads: Type.Integer(),
  won_deals: Type.Integer({ description: "Attributed conversions." }),
  attributed_revenue: Type.Number(),
  cost: Money("Cards × cost per card; null without a cost per card in the profile."),
  return_on_spend: Money("Revenue ÷ cost."),
  cost_per_lead: Money("Cost ÷ leads; null without a cost or leads."),
  cost_per_won_deal: Money("Cost ÷ won deals; null without a cost or deals."),
};

const Conversion = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    deal_id: Type.Union([Type.String(), Type.Null()]),
    deal_name: Type.Union([Type.String(), Type.Null()]),
    address: Type.String(),
    amount: Type.Union([Type.Number(), Type.Null()]),
    close_date: Type.Union([Type.String({ format: "date" }), Type.Null()]),
    campaign_id: Type.String({ format: "uuid" }),
    campaign_name: Type.Union([Type.String(), Type.Null()]),
    automation_name: Type.Union([Type.String(), Type.Null()]),
    attribution_type: Type.String(),
    match_confidence: Type.String(),
  },
  { additionalProperties: false },
);

/** The Revenue screen: what the cards earned, by automation and by month, over the last 12 months. */
export function registerRevenueRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;

  r.get(
    "/revenue",
    {
      schema: {
        operationId: "getRevenue",
        summary:
          "Attributed revenue and conversions by automation and by month (last 12 months), and the conversions",
        tags: ["Revenue"],
        response: {
          200: Type.Object(
            {
              by_month: Type.Array(
                Type.Object(
                  { month: Type.String(), landing_visits: Type.Integer(), ...spend },
                  { additionalProperties: false },
                ),
              ),
              by_automation: Type.Array(
                Type.Object(
                  {
                    automation_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
                    automation_name: Type.String(),
                    ...spend,
                  },
                  { additionalProperties: false },
                ),
              ),
              conversions: Type.Array(Conversion, {
                description: `The newest ${CONVERSIONS_SHOWN}; the CSV has them all.`,
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const now = clock.now();
      const [byMonth, byAutomation, conversions] = await Promise.all([
        revenueByMonth(db, orgId, now),
        revenueByAutomation(db, orgId, now),
        listConversions(db, orgId, CONVERSIONS_SHOWN),
      ]);
      return { by_month: byMonth, by_automation: byAutomation, conversions };
    },
  );

  r.get(
    "/revenue/conversions.csv",
    {
      schema: {
        hide: true,
        summary: "The attributed conversions as CSV (formula-safe cells)",
      },
    },
    async (request, reply) => {
      const rows = await listConversions(db, sessionOf(request).orgId, CONVERSIONS_EXPORTED);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", 'attachment; filename="conversions.csv"')
        .send(conversionsCsv(rows));
    },
  );
}
