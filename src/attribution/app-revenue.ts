// The contractor app's Revenue screen: attributed conversions and what they cost, by automation
// and by month, the conversions themselves, and their CSV download.
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { csvCell } from "../domain/csv-cell.ts";
import {
  costPerCardCents,
  type MonthFigures,
  monthlyFigures,
  spendFigures,
} from "../reports/app-overview.ts";
import { Experiment, type ExperimentCounts, experimentCounts, experimentFigures } from "./experiment.ts";

/** Cost per lead and per won deal (null without a cost, or without leads / deals to divide by). */
export function unitCosts(cost: number | null, leads: number, wonDeals: number) {
  const per = (count: number) =>
    cost === null || count === 0 ? null : Math.round((cost / count) * 100) / 100;
  return { cost_per_lead: per(leads), cost_per_won_deal: per(wonDeals) };
}

// The shapes the app API answers with (GET /revenue): the route's response schemas, and through
// Static<> the types this module returns.

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

export const MonthRevenue = Type.Object(
  { month: Type.String(), landing_visits: Type.Integer(), ...spend },
  { additionalProperties: false },
);
export type MonthRevenue = Static<typeof MonthRevenue>;

export const AutomationRevenue = Type.Object(
  {
    automation_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
    automation_name: Type.String(),
    ...spend,
    experiment: Type.Union([Experiment, Type.Null()], {
      description: "The automation's holdout experiment; null without a holdout.",
    }),
  },
  { additionalProperties: false },
);
export type AutomationRevenue = Static<typeof AutomationRevenue>;

export const RevenueConversion = Type.Object(
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
export type RevenueConversion = Static<typeof RevenueConversion>;

/** Since the first day of the oldest of the last 12 months: the Revenue screen's period. */
const periodStart = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString();

export async function revenueByMonth(db: Queryable, orgId: string, now: Date): Promise<MonthRevenue[]> {
  const months = await monthlyFigures(db, orgId, now, 12);
  return months.map((month: MonthFigures) => ({
    ...month,
    ...unitCosts(month.cost, month.leads, month.won_deals),
  }));
}

export async function revenueByAutomation(
  db: Queryable,
  orgId: string,
  now: Date,
): Promise<AutomationRevenue[]> {
  const since = sql`${periodStart(now)}::timestamptz`;
  const org = sql`${orgId}::uuid`;
  const rows = await queryRows<{
    automation_id: string | null;
    reactivation: boolean;
    automation_name: string | null;
    cards: string | number;
    leads: string | number;
    deals: string | number;
    revenue: string | number | null;
  }>(
    db,
    sql`WITH per AS (
          SELECT c.automation_id, (c.automation_id IS NULL AND c.origin = 'reactivation') AS reactivation, count(*) AS cards, 0 AS leads, 0 AS deals, 0 AS revenue
            FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
            WHERE p.org_id = ${org} AND p.mailed_at >= ${since} GROUP BY c.automation_id, reactivation
          UNION ALL
          SELECT c.automation_id, (c.automation_id IS NULL AND c.origin = 'reactivation') AS reactivation, 0, count(*), 0, 0
            FROM leads l JOIN campaigns c ON c.org_id = l.org_id AND c.id = l.campaign_id
            WHERE l.org_id = ${org} AND l.created_at >= ${since} GROUP BY c.automation_id, reactivation
          UNION ALL
          SELECT c.automation_id, (c.automation_id IS NULL AND c.origin = 'reactivation') AS reactivation, 0, 0, count(*), COALESCE(sum(v.deal_amount), 0)
            FROM conversions v JOIN campaigns c ON c.org_id = v.org_id AND c.id = v.campaign_id
            WHERE v.org_id = ${org} AND COALESCE(v.deal_date, v.created_at) >= ${since} GROUP BY c.automation_id, reactivation
          UNION ALL
          -- An automation that so far only held homes out still shows, with its experiment.
          SELECT c.automation_id, false, 0, 0, 0, 0
            FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
            WHERE p.org_id = ${org} AND p.status = 'held_out' AND p.status_updated_at >= ${since} GROUP BY c.automation_id)
        SELECT per.automation_id, per.reactivation, a.name AS automation_name, sum(cards) AS cards, sum(leads) AS leads,
               sum(deals) AS deals, sum(revenue) AS revenue
        FROM per LEFT JOIN automations a ON a.org_id = ${org} AND a.id = per.automation_id
        GROUP BY per.automation_id, per.reactivation, a.name ORDER BY sum(revenue) DESC, a.name NULLS LAST`,
  );
  const [centsPerCard, experiments] = await Promise.all([
    costPerCardCents(db, orgId),
    experimentCounts(db, orgId, new Date(periodStart(now))),
  ]);
  return rows.map((row) => {
    const cards = Number(row.cards);
    const revenue = Number(row.revenue ?? 0);
    const spend = spendFigures(cards, revenue, centsPerCard);
    return {
      automation_id: row.automation_id,
      // Campaigns without an automation: the app's reactivation mailings, else the operator's recorded mail.
      automation_name:
        row.automation_name ??
        (row.reactivation ? "Reactivation mailings" : "Recorded mailings (no automation)"),
      cards_mailed: cards,
      leads: Number(row.leads),
      won_deals: Number(row.deals),
      attributed_revenue: revenue,
      ...spend,
      ...unitCosts(spend.cost, Number(row.leads), Number(row.deals)),
      experiment: experimentOf(experiments, row.automation_id),
    };
  });
}

function experimentOf(experiments: Map<string, ExperimentCounts>, automationId: string | null) {
  const counts = automationId === null ? undefined : experiments.get(automationId);
  return counts ? experimentFigures(counts) : null;
}

/** The org's attributed conversions, newest close first (at most `limit`). */
export async function listConversions(
  db: Queryable,
  orgId: string,
  limit: number,
): Promise<RevenueConversion[]> {
  const rows = await queryRows<
    Omit<RevenueConversion, "amount" | "close_date"> & {
      deal_amount: string | number | null;
      deal_date: Date | string | null;
    }
  >(
    db,
    sql`SELECT v.id, v.deal_id, v.deal_name, v.address, v.deal_amount, v.deal_date, v.campaign_id,
               c.name AS campaign_name, a.name AS automation_name, v.attribution_type, v.match_confidence
        FROM conversions v
        LEFT JOIN campaigns c ON c.org_id = v.org_id AND c.id = v.campaign_id
        LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
        WHERE v.org_id = ${orgId}::uuid
        ORDER BY COALESCE(v.deal_date, v.created_at) DESC, v.id DESC LIMIT ${limit}`,
  );
  return rows.map(({ deal_amount, deal_date, ...row }) => ({
    ...row,
    amount: deal_amount === null ? null : Number(deal_amount),
    close_date: deal_date === null ? null : new Date(deal_date).toISOString().slice(0, 10),
  }));
}

export function conversionsCsv(rows: RevenueConversion[]): string {
  const header = [
    "deal_id",
    "deal_name",
    "address",
    "amount",
    "close_date",
    "campaign",
    "automation",
    "attribution_type",
    "confidence",
  ];
  const lines = rows.map((row) =>
    [
      row.deal_id,
      row.deal_name,
      row.address,
      row.amount,
      row.close_date,
      row.campaign_name,
      row.automation_name,
      row.attribution_type,
      row.match_confidence,
    ]
      .map(csvCell)
      .join(","),
  );
  return `${[header.join(","), ...lines].join("\r\n")}\r\n`;
}
