import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { latestLeads } from "../../leads/app-leads.ts";
import { costPerCardCents, monthlyFigures, totalsOf } from "../../reports/app-overview.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";
import { LeadListItem } from "./leads.ts";

const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const figures = {
  cards_mailed: Type.Integer(),
  landing_visits: Type.Integer({ description: "Views of the org's open landing pages." }),
  leads: Type.Integer({ description: "Landing-page and CRM-synced leads received." }),
  won_deals: Type.Integer({ description: "Attributed conversions, by close date." }),
  attributed_revenue: Type.Number({ description: "Sum of attributed deal amounts." }),
  cost: NullableNumber("Cards mailed × the profile's cost per card; null without a cost per card."),
  return_on_spend: NullableNumber("Attributed revenue ÷ cost; null without a cost."),
};

const Totals = Type.Object(figures, { additionalProperties: false });
const Month = Type.Object(
  { month: Type.String({ description: "YYYY-MM (UTC)." }), ...figures },
  { additionalProperties: false },
);

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
              months: Type.Array(Month, { description: "The last 12 UTC months, oldest first." }),
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
        this_month: totalsOf(months.slice(-1), centsPerCard),
        last_12_months: totalsOf(months, centsPerCard),
        months,
        latest_leads: leads,
      };
    },
  );
}
