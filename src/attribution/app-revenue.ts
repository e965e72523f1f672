// The contractor app's Revenue screen: attributed conversions and what they cost, by automation
// (and by reactivation mailing) and by month, the conversions themselves, and their CSV download.
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { csvCell } from "../domain/csv-cell.ts";
import { sameHome } from "../domain/same-home.ts";
import { markedInApp } from "../leads/won-job.ts";
import {
  cardsOf,
  type MonthFigures,
  mailCost,
  monthlyFigures,
  spendFigures,
  unpricedCardCents,
} from "../reports/app-overview.ts";
import { figuresBySource, type SourceFigures } from "../reports/monthly-figures.ts";
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
  cost: Money(
    "Each card at the cost per card of the day it went to print; a card without a price of its own (mailed before prices were kept, or while no cost was set) at the cost fixed when the cost per card first changed, else today's; null while there is none.",
  ),
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
    automation_name: Type.String({
      description:
        "The automation's name; for a reactivation mailing (sent from past jobs) the mailing's name, one row per mailing; \"Recorded mailings (no automation)\" for mail the operator recorded.",
    }),
    campaign_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()], {
      description:
        "The reactivation mailing's campaign (two mailings of one name are two rows); null for an automation or recorded mail.",
    }),
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
    customer_name: Type.Union([Type.String(), Type.Null()], {
      description:
        "Who the deal was for: the contact the deal came with (a lead marked won in the app: its name), else, when the credited card went to this very home, the name on that card or of the newest lead that answered it; null when none is known (the screen then names the home by its address).",
    }),
    address: Type.String(),
    amount: Type.Union([Type.Number(), Type.Null()]),
    close_date: Type.Union([Type.String({ format: "date" }), Type.Null()]),
    campaign_id: Type.String({ format: "uuid" }),
    campaign_name: Type.Union([Type.String(), Type.Null()]),
    automation_name: Type.Union([Type.String(), Type.Null()]),
    attribution_type: Type.String(),
    match_confidence: Type.String(),
    reported_by: Type.Union([Type.Literal("crm"), Type.Literal("app"), Type.Literal("app_then_crm")], {
      description:
        "crm: sent by the CRM or another system; app: a lead marked won in the app; app_then_crm: marked won in the app, then reported by the CRM (one job, the CRM's amount).",
    }),
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
  const since = periodStart(now);
  const [sources, unpricedCents, experiments] = await Promise.all([
    figuresBySource(db, orgId, since.slice(0, 10)),
    unpricedCardCents(db, orgId),
    experimentCounts(db, orgId, new Date(since)),
  ]);
  return sources.map((source) => {
    const spend = spendFigures(mailCost(cardsOf(source), unpricedCents), source.revenue);
    return {
      automation_id: source.automationId,
      automation_name: source.automationName ?? nameWithoutAutomation(source.mailing),
      campaign_id: source.mailing?.campaignId ?? null,
      cards_mailed: source.cardsMailed,
      leads: source.leads,
      won_deals: source.wonDeals,
      attributed_revenue: source.revenue,
      ...spend,
      ...unitCosts(spend.cost, source.leads, source.wonDeals),
      experiment: experimentOf(experiments, source.automationId),
    };
  });
}

/** Campaigns without an automation: each reactivation mailing by its own name, else the operator's recorded mail. */
function nameWithoutAutomation(mailing: SourceFigures["mailing"]): string {
  if (mailing === null) return "Recorded mailings (no automation)";
  return mailing.name?.trim() || "Reactivation mailing";
}

function experimentOf(experiments: Map<string, ExperimentCounts>, automationId: string | null) {
  const counts = automationId === null ? undefined : experiments.get(automationId);
  return counts ? experimentFigures(counts) : null;
}

/** What a conversion row knows of the people at its home (`customerNameOf` picks one). */
interface CustomerNames {
  normalized_address: string;
  contact_name: string | null;
  contact_first_name: string | null;
  contact_last_name: string | null;
  /** The credited card's home and the name printed on it (the CRM's customer on the job). */
  card_home: string | null;
  card_name: string | null;
  /** The newest landing-page lead that answered the credited card, as the homeowner wrote it. */
  lead_name: string | null;
}

const nonBlank = (text: string | null) => (text?.trim() ? text.trim() : null);

/**
 * The name Revenue lists a won deal under: the contact the deal came with, else, when the credited
 * card went to this very home, its recipient or the lead that answered it. A card credited by
 * distance or by a named campaign may be a neighbour's, whose names are not this customer's. A
 * CRM's deal name or id ("deal-2001") is no person's name: null, and the screen shows the address.
 */
function customerNameOf(names: CustomerNames): string | null {
  const contact =
    nonBlank(names.contact_name) ??
    nonBlank([names.contact_first_name, names.contact_last_name].map((part) => part?.trim() ?? "").join(" "));
  if (contact) return contact;
  if (names.card_home === null || !sameHome(names.card_home, names.normalized_address)) return null;
  return nonBlank(names.card_name) ?? nonBlank(names.lead_name);
}

const CUSTOMER_NAME_FIELDS: readonly (keyof CustomerNames)[] = [
  "normalized_address",
  "contact_name",
  "contact_first_name",
  "contact_last_name",
  "card_home",
  "card_name",
  "lead_name",
];

/** A conversion row without what customerNameOf read (the answer carries only the name it chose). */
function withoutNames<Row extends CustomerNames>(row: Row): Omit<Row, keyof CustomerNames> {
  const copy: Partial<Row> = { ...row };
  for (const field of CUSTOMER_NAME_FIELDS) delete copy[field];
  return copy as Omit<Row, keyof CustomerNames>;
}

/** Where a page of conversions ends: the next page starts after it (the database's own time text, to the microsecond). */
interface ConversionCursor {
  closedAt: string;
  id: string;
}

/** One page of the org's attributed conversions, newest close first, after `cursor` (index conversions_by_close). */
async function conversionsPage(
  db: Queryable,
  orgId: string,
  limit: number,
  cursor?: ConversionCursor,
): Promise<{ rows: RevenueConversion[]; next: ConversionCursor | undefined }> {
  const closed = sql`COALESCE(v.deal_date, v.created_at)`;
  const after = cursor
    ? sql`AND (${closed}, v.id) < (${cursor.closedAt}::timestamptz, ${cursor.id}::uuid)`
    : sql``;
  const rows = await queryRows<
    Omit<RevenueConversion, "amount" | "close_date" | "customer_name"> &
      CustomerNames & {
        deal_amount: string | number | null;
        deal_date: Date | string | null;
        closed_at: string;
      }
  >(
    db,
    sql`SELECT v.id, v.deal_id, v.deal_name, v.address, v.deal_amount, v.deal_date, v.campaign_id,
               c.name AS campaign_name, a.name AS automation_name, v.attribution_type, v.match_confidence,
               CASE WHEN v.won_lead_id IS NULL THEN 'crm'
                    WHEN ${markedInApp("v")} THEN 'app'
                    ELSE 'app_then_crm' END AS reported_by,
               ${closed}::text AS closed_at,
               v.normalized_address, v.contact_name, v.contact_first_name, v.contact_last_name,
               p.normalized_address AS card_home, p.recipient_name AS card_name, answered.name AS lead_name
        FROM conversions v
        LEFT JOIN campaigns c ON c.org_id = v.org_id AND c.id = v.campaign_id
        LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
        LEFT JOIN mail_pieces p ON p.org_id = v.org_id AND p.id = v.piece_id
        LEFT JOIN LATERAL (
          SELECT btrim(concat_ws(' ', l.first_name, l.last_name)) AS name FROM leads l
          WHERE l.org_id = v.org_id AND l.piece_id = v.piece_id AND l.source = 'landing_page'
            AND btrim(concat_ws(' ', l.first_name, l.last_name)) <> ''
          ORDER BY l.created_at DESC LIMIT 1) answered ON true
        WHERE v.org_id = ${orgId}::uuid ${after}
        ORDER BY ${closed} DESC, v.id DESC LIMIT ${limit}`,
  );
  const last = rows.at(-1);
  return {
    rows: rows.map(({ deal_amount, deal_date, closed_at: _, ...found }) => ({
      ...withoutNames(found),
      customer_name: customerNameOf(found),
      amount: deal_amount === null ? null : Number(deal_amount),
      close_date: deal_date === null ? null : new Date(deal_date).toISOString().slice(0, 10),
    })),
    next: last && rows.length === limit ? { closedAt: last.closed_at, id: last.id } : undefined,
  };
}

/** The org's attributed conversions, newest close first (at most `limit`). */
export async function listConversions(
  db: Queryable,
  orgId: string,
  limit: number,
): Promise<RevenueConversion[]> {
  return (await conversionsPage(db, orgId, limit)).rows;
}

const CSV_HEADER = [
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

function csvLine(row: RevenueConversion): string {
  return `${[
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
    .join(",")}\r\n`;
}

/** Rows per read of the CSV: each page is one indexed read of a few tens of milliseconds at most. */
export const CSV_PAGE_ROWS = 2000;

/**
 * Every attributed conversion of the org as CSV, newest close first, read a page at a time as the
 * download is sent: the first bytes leave after one page, memory stays one page at any size.
 */
export async function* conversionsCsv(db: Queryable, orgId: string, pageRows = CSV_PAGE_ROWS) {
  yield `${CSV_HEADER.join(",")}\r\n`;
  let cursor: ConversionCursor | undefined;
  do {
    const page = await conversionsPage(db, orgId, pageRows, cursor);
    if (page.rows.length > 0) yield page.rows.map(csvLine).join("");
    cursor = page.next;
  } while (cursor);
}
