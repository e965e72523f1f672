// Reads of `monthly_mail_figures`: what an organization mailed and earned per UTC month and
// source, kept on write by the triggers of migrations/0334_monthly_mail_figures.sql, so Overview
// and Revenue cost a few hundred rows at any volume of mail. (Its `cards_queued`, by the month a
// piece was made, is read by nothing since the automation list counts cards sent to print.)
import { type Queryable, queryRows, sql } from "../db/database.ts";

/**
 * The sources that are not an automation's id: a reactivation mailing's own key (migration 0690:
 * `reactivation:<campaign id>`), recorded mail, no campaign.
 */
const REACTIVATION_MAILING_PREFIX = "reactivation:";
const NOT_AN_AUTOMATION = sql`(per.source IN ('recorded', 'none') OR per.source LIKE 'reactivation:%')`;

export interface MailFigures {
  cardsMailed: number;
  /** The cards mailed with the cost per card of their day (migration 0650), and those cents. */
  cardsPriced: number;
  costCents: number;
  leads: number;
  wonDeals: number;
  revenue: number;
}

type FigureRow = {
  cards_mailed: string | number;
  cards_priced: string | number;
  cost_cents: string | number;
  leads: string | number;
  won_deals: string | number;
  revenue: string | number;
};

const SUMS = sql`sum(cards_mailed) AS cards_mailed, sum(cards_priced) AS cards_priced,
                 sum(cost_cents) AS cost_cents, sum(leads) AS leads, sum(won_deals) AS won_deals,
                 sum(revenue) AS revenue`;

const figuresOf = (row: FigureRow): MailFigures => ({
  cardsMailed: Number(row.cards_mailed),
  cardsPriced: Number(row.cards_priced),
  costCents: Number(row.cost_cents),
  leads: Number(row.leads),
  wonDeals: Number(row.won_deals),
  revenue: Number(row.revenue),
});

/** Every source's figures by month (YYYY-MM-01) for the months from `fromMonth` up to, not including, `toMonth`. */
export async function figuresByMonth(
  db: Queryable,
  orgId: string,
  fromMonth: string,
  toMonth: string,
): Promise<Map<string, MailFigures>> {
  const rows = await queryRows<FigureRow & { month: string }>(
    db,
    sql`SELECT to_char(month, 'YYYY-MM-DD') AS month, ${SUMS} FROM monthly_mail_figures
        WHERE org_id = ${orgId}::uuid AND month >= ${fromMonth}::date AND month < ${toMonth}::date
        GROUP BY month`,
  );
  return new Map(rows.map((row) => [row.month, figuresOf(row)]));
}

export interface SourceFigures extends MailFigures {
  /** The automation's id, else null (a reactivation mailing or recorded mail). */
  automationId: string | null;
  automationName: string | null;
  /** A reactivation mailing (a campaign without an automation, sent from past jobs): its campaign, else null. */
  mailing: { campaignId: string; name: string | null } | null;
}

/**
 * The figures of each campaign source (each automation, each reactivation mailing, recorded mail)
 * since `fromMonth`, with the automation's or the mailing's name; a source shows when it mailed,
 * earned or held a home out. Leads and deals without a campaign are left out. Among sources that
 * earned the same, automations come first by name, then mailings in the order they were sent.
 */
export async function figuresBySource(
  db: Queryable,
  orgId: string,
  fromMonth: string,
): Promise<SourceFigures[]> {
  const org = sql`${orgId}::uuid`;
  const rows = await queryRows<
    FigureRow & { source: string; automation_name: string | null; mailing_name: string | null }
  >(
    db,
    sql`WITH per AS (
          SELECT source, ${SUMS}, sum(cards_held_out) AS cards_held_out FROM monthly_mail_figures
          WHERE org_id = ${org} AND month >= ${fromMonth}::date AND source <> 'none'
          GROUP BY source)
        SELECT per.source, a.name AS automation_name, c.name AS mailing_name, per.cards_mailed, per.cards_priced,
               per.cost_cents, per.leads, per.won_deals, per.revenue
        FROM per
        LEFT JOIN automations a ON a.org_id = ${org}
          AND a.id = CASE WHEN ${NOT_AN_AUTOMATION} THEN NULL ELSE per.source::uuid END
        LEFT JOIN campaigns c ON c.org_id = ${org}
          AND c.id = CASE WHEN per.source LIKE 'reactivation:%' THEN substr(per.source, 14)::uuid END
        WHERE per.cards_mailed <> 0 OR per.leads <> 0 OR per.won_deals <> 0 OR per.revenue <> 0 OR per.cards_held_out <> 0
        ORDER BY per.revenue DESC, a.name NULLS LAST, c.created_at NULLS LAST, per.source`,
  );
  return rows.map((row) => {
    const mailingId = row.source.startsWith(REACTIVATION_MAILING_PREFIX)
      ? row.source.slice(REACTIVATION_MAILING_PREFIX.length)
      : null;
    return {
      automationId: mailingId === null && row.source !== "recorded" ? row.source : null,
      automationName: row.automation_name,
      mailing: mailingId === null ? null : { campaignId: mailingId, name: row.mailing_name },
      ...figuresOf(row),
    };
  });
}
