import { Readable } from "node:stream";
import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import {
  AutomationRevenue,
  conversionsCsv,
  listConversions,
  MonthRevenue,
  RevenueConversion,
  revenueByAutomation,
  revenueByMonth,
} from "../../attribution/app-revenue.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const CONVERSIONS_SHOWN = 500;

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
              by_month: Type.Array(MonthRevenue),
              by_automation: Type.Array(AutomationRevenue),
              conversions: Type.Array(RevenueConversion, {
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
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", 'attachment; filename="conversions.csv"')
        .send(Readable.from(conversionsCsv(db, sessionOf(request).orgId)));
    },
  );
}
