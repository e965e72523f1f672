import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { LeadListItem, latestLeads } from "../../leads/app-leads.ts";
import {
  costPerCardCents,
  MonthFigures,
  monthlyFigures,
  Totals,
  totalsOf,
} from "../../reports/app-overview.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

/** The Overview screen's figures: this month, the last 12 months, a series per month, the last 5 leads. */
export function registerOverviewFigureRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;

  r.get(
    "/overview",
    {
      schema: {
        operationId: "getOverview",
        summary: "This month and the last 12 months at a glance, per month, and the last 5 leads (Overview)",
        tags: ["Overview"],
        response: {
          200: Type.Object(
            {
              cost_per_card_cents: Type.Union([Type.Integer(), Type.Null()]),
              this_month: Totals,
              last_12_months: Totals,
              months: Type.Array(MonthFigures, { description: "The last 12 UTC months, oldest first." }),
              latest_leads: Type.Array(LeadListItem),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const [months, centsPerCard, leads] = await Promise.all([
        monthlyFigures(db, orgId, clock.now(), 12),
        costPerCardCents(db, orgId),
        latestLeads(db, orgId, 5),
      ]);
      return {
        cost_per_card_cents: centsPerCard,
        this_month: totalsOf(months.slice(-1)),
        last_12_months: totalsOf(months),
        months,
        latest_leads: leads,
      };
    },
  );
}
