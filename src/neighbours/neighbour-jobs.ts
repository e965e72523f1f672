/**
 * What each job's neighbour mail earned ("by source job"): per neighbour campaign, the job's
 * street and city, the cards sent, and the leads and won deals attributed to the campaign by the
 * ordinary attribution rules (a lead or deal at a neighbour's address matches that neighbour's
 * piece), with totals for all the org's neighbour automations against what the cards cost.
 */
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryRows, sql } from "../db/database.ts";

const Count = Type.Integer({ minimum: 0 });

/** One source job's neighbour campaign (the operator API and the app's Revenue by source job). */
export const NeighbourJob = Type.Object(
  {
    campaign_id: Type.String({ format: "uuid" }),
    automation_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
    job_street: Type.String({ description: "The job's street, never its house number." }),
    job_city: Type.String(),
    created_at: Type.String({ format: "date-time" }),
    homes: Type.Integer({ minimum: 0, description: "Homes chosen for the job's neighbour campaign." }),
    cards_sent: Count,
    leads: Count,
    won_deals: Count,
    revenue: Type.Number(),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: "Why no home was mailed, when none was.",
    }),
  },
  { additionalProperties: false },
);
export type NeighbourJob = Static<typeof NeighbourJob>;

/** What the listed jobs add up to; `cost_cents` is cards_sent × the cost per card given, or null without one. */
export const NeighbourJobTotals = Type.Object(
  {
    jobs: Count,
    cards_sent: Count,
    leads: Count,
    won_deals: Count,
    revenue: Type.Number(),
    cost_cents: Type.Union([Type.Integer(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type NeighbourJobTotals = Static<typeof NeighbourJobTotals>;

interface Row {
  campaign_id: string;
  automation_id: string | null;
  job_street: string;
  job_city: string;
  created_at: Date | string;
  homes_mailed: number;
  reason: string | null;
  cards_sent: number | string;
  leads: number | string;
  won_deals: number | string;
  revenue: number | string;
}

const PER_CAMPAIGN = sql`
  SELECT n.campaign_id, n.automation_id, n.job_street, n.job_city, n.created_at, n.homes_mailed, n.reason,
         mailed.cards_sent, mailed.cards_priced, mailed.priced_cents,
         (SELECT count(*) FROM leads l WHERE l.org_id = n.org_id AND l.campaign_id = n.campaign_id) AS leads,
         (SELECT count(*) FROM conversions c WHERE c.org_id = n.org_id AND c.campaign_id = n.campaign_id) AS won_deals,
         (SELECT COALESCE(sum(c.deal_amount), 0) FROM conversions c
           WHERE c.org_id = n.org_id AND c.campaign_id = n.campaign_id) AS revenue
  FROM neighbour_campaigns n
  CROSS JOIN LATERAL (
    SELECT count(*) AS cards_sent, count(p.cost_cents) AS cards_priced, COALESCE(sum(p.cost_cents), 0) AS priced_cents
    FROM mail_pieces p
    WHERE p.org_id = n.org_id AND p.campaign_id = n.campaign_id AND p.mailed_at IS NOT NULL) mailed`;

const toJob = (row: Row): NeighbourJob => ({
  campaign_id: row.campaign_id,
  automation_id: row.automation_id,
  job_street: row.job_street,
  job_city: row.job_city,
  created_at: new Date(row.created_at).toISOString(),
  homes: row.homes_mailed,
  cards_sent: Number(row.cards_sent),
  leads: Number(row.leads),
  won_deals: Number(row.won_deals),
  revenue: Number(row.revenue),
  reason: row.reason,
});

/** The org's neighbour jobs, newest first (at most `limit`), and the totals over all of them. */
export async function listNeighbourJobs(
  db: Queryable,
  orgId: string,
  options: { limit: number; costPerCardCents?: number },
): Promise<{
  jobs: NeighbourJob[];
  totals: NeighbourJobTotals;
  /** The cards sent with the cost per card of their day (migration 0650), and those cents. */
  priced: { cards: number; cents: number };
}> {
  const rows = await queryRows<Row>(
    db,
    sql`${PER_CAMPAIGN} WHERE n.org_id = ${orgId} ORDER BY n.created_at DESC, n.campaign_id LIMIT ${options.limit}`,
  );
  const [totals] = await queryRows<{
    jobs: string | number;
    cards_sent: string | number;
    leads: string | number;
    won_deals: string | number;
    revenue: string | number;
    cards_priced: string | number;
    priced_cents: string | number;
  }>(
    db,
    sql`SELECT count(*) AS jobs, COALESCE(sum(cards_sent), 0) AS cards_sent, COALESCE(sum(leads), 0) AS leads,
               COALESCE(sum(cards_priced), 0) AS cards_priced, COALESCE(sum(priced_cents), 0) AS priced_cents,
               COALESCE(sum(won_deals), 0) AS won_deals, COALESCE(sum(revenue), 0) AS revenue
        FROM (${PER_CAMPAIGN} WHERE n.org_id = ${orgId}) per_job`,
  );
  const cardsSent = Number(totals?.cards_sent ?? 0);
  return {
    jobs: rows.map(toJob),
    totals: {
      jobs: Number(totals?.jobs ?? 0),
      cards_sent: cardsSent,
      leads: Number(totals?.leads ?? 0),
      won_deals: Number(totals?.won_deals ?? 0),
      revenue: Number(totals?.revenue ?? 0),
      cost_cents: options.costPerCardCents === undefined ? null : cardsSent * options.costPerCardCents,
    },
    priced: { cards: Number(totals?.cards_priced ?? 0), cents: Number(totals?.priced_cents ?? 0) },
  };
}
