// A lead's won job, as the lead keeps it (Leads → a lead → Job won): the close day, the amount and
// when it was first marked. Attribution records the won deal itself (attribution/lead-won.ts).
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { normalizeAddress } from "../domain/address.ts";

const NullableString = () => Type.Union([Type.String(), Type.Null()]);

export const WonJob = Type.Object(
  {
    closed_on: Type.String({ format: "date" }),
    amount: Type.Number(),
    marked_at: Type.String({ format: "date-time" }),
    credited: Type.Union(
      [
        Type.Object(
          {
            piece_id: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
            campaign_name: NullableString(),
            automation_name: NullableString(),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      {
        description:
          "The card Revenue credits with the job; null when no card reached the home in the 180 days up to the close day (the home is still a customer).",
      },
    ),
    crm_deal: Type.Union(
      [Type.Object({ deal_id: NullableString() }, { additionalProperties: false }), Type.Null()],
      {
        description:
          "The CRM reported this job too (a deal credited to the lead's card): its deal took the app's over, so Revenue counts the job once, at the CRM's amount, and the amount is no longer changed here. Null otherwise.",
      },
    ),
  },
  { additionalProperties: false },
);
export type WonJob = Static<typeof WonJob>;

export const HomeWonDeal = Type.Object(
  {
    deal_name: NullableString(),
    amount: Type.Union([Type.Number(), Type.Null()]),
    closed_on: Type.Union([Type.String({ format: "date" }), Type.Null()]),
    on_this_card: Type.Boolean({
      description: "The deal is credited to the card this lead answered (not only at the same home).",
    }),
    reported_by: Type.Union([Type.Literal("crm"), Type.Literal("another_lead")], {
      description:
        "crm: sent by the CRM or another system (POST /api/v1/conversions, HubSpot); another_lead: another lead of the home marked won in the app.",
    }),
  },
  { additionalProperties: false },
);
export type HomeWonDeal = Static<typeof HomeWonDeal>;

/** How many of the home's other won deals a lead's page names. */
const HOME_DEALS_SHOWN = 5;

/**
 * The idempotency key of a lead's won deal: marking it again is a replay. The `app-lead:` prefix is
 * none an API request's key has (`deal:…`, `address:…`), so no CRM deal id can replay it.
 */
export const wonDealKeyOf = (leadId: string) => `app-lead:${leadId}`;

/**
 * A won deal as the app recorded it from a lead (not one a CRM's report of the job took over, which
 * keeps its lead in `won_lead_id` under the CRM's key): SQL on `conversions`, aliased `alias` if given.
 */
export const markedInApp = (alias?: string) =>
  sql`starts_with(${sql.raw(alias ? `${alias}.` : "")}idempotency_key, ${wonDealKeyOf("")})`;

export interface WonLeadRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  full_address: string;
  campaign_id: string | null;
  created_at: Date | string;
  won_on: string | null;
}

/** The lead a member marks won, or undefined when the org has none of that id. */
export async function leadToMarkWon(db: Queryable, orgId: string, leadId: string) {
  return queryOne<WonLeadRow>(
    db,
    sql`SELECT id, first_name, last_name, email, full_address, campaign_id, created_at, won_on::text AS won_on
        FROM leads WHERE org_id = ${orgId}::uuid AND id = ${leadId}::uuid`,
  );
}

/** Sets the lead's close day unless it has one; answers the day it has now. */
export async function claimCloseDay(db: Queryable, orgId: string, leadId: string, closedOn: string) {
  const row = await queryOne<{ won_on: string }>(
    db,
    sql`UPDATE leads SET won_on = COALESCE(won_on, ${closedOn}::date)
        WHERE org_id = ${orgId}::uuid AND id = ${leadId}::uuid RETURNING won_on::text AS won_on`,
  );
  return row?.won_on;
}

/**
 * Gives back a day claimed by a mark that failed before the lead was won (its deal not written): a
 * retry may choose another day. A mark of the same day that got further keeps the lead won.
 */
export async function releaseCloseDay(db: Queryable, orgId: string, leadId: string, closedOn: string) {
  await db.execute(
    sql`UPDATE leads SET won_on = NULL
        WHERE org_id = ${orgId}::uuid AND id = ${leadId}::uuid AND won_at IS NULL AND won_on = ${closedOn}::date`,
  );
}

/** The lead's day (again, should a failed mark have given it back), amount, and when it was first marked won. */
export async function recordWonAmount(
  db: Queryable,
  orgId: string,
  leadId: string,
  won: { closedOn: string; amount: string },
  now: Date,
) {
  await db.execute(
    sql`UPDATE leads SET won_on = COALESCE(won_on, ${won.closedOn}::date), won_amount = ${won.amount}::numeric,
               won_at = COALESCE(won_at, ${now.toISOString()}::timestamptz)
        WHERE org_id = ${orgId}::uuid AND id = ${leadId}::uuid`,
  );
}

/** The lead is not won after all: its day, amount and when it was marked go (a mark may come again). */
export async function clearWonJob(db: Queryable, orgId: string, leadId: string) {
  await db.execute(
    sql`UPDATE leads SET won_on = NULL, won_amount = NULL, won_at = NULL
        WHERE org_id = ${orgId}::uuid AND id = ${leadId}::uuid`,
  );
}

/** A lead's won job as the app shows it: its day and amount, and the card Revenue credits. */
export async function wonJobOf(
  db: Queryable,
  orgId: string,
  lead: { id: string; won_on: string | null; won_amount: string | null; won_at: Date | string | null },
): Promise<WonJob | null> {
  if (!lead.won_on || lead.won_at === null) return null;
  const credit = await queryOne<CreditRow>(
    db,
    sql`SELECT cv.piece_id, cv.deal_amount::text AS deal_amount, c.name AS campaign_name, a.name AS automation_name,
               cv.deal_id, NOT ${markedInApp("cv")} AS reported_by_crm
        FROM conversions cv
        LEFT JOIN campaigns c ON c.org_id = cv.org_id AND c.id = cv.campaign_id
        LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
        WHERE cv.org_id = ${orgId}::uuid AND cv.won_lead_id = ${lead.id}::uuid`,
  );
  return {
    closed_on: lead.won_on,
    // Revenue's amount when a card is credited: of two members changing it at once, the one it sums.
    amount: Number(credit?.deal_amount ?? lead.won_amount),
    marked_at: new Date(lead.won_at).toISOString(),
    credited: credit
      ? {
          piece_id: credit.piece_id,
          campaign_name: credit.campaign_name,
          automation_name: credit.automation_name,
        }
      : null,
    crm_deal: credit?.reported_by_crm ? { deal_id: credit.deal_id } : null,
  };
}

interface CreditRow {
  piece_id: string | null;
  deal_id: string | null;
  reported_by_crm: boolean;
  deal_amount: string | null;
  campaign_name: string | null;
  automation_name: string | null;
}

/**
 * The won deals Revenue already has at the lead's home, or on its card, that are not this lead's (a
 * CRM's, another lead's), newest first: a member about to mark the lead won sees the job may be
 * counted already.
 */
export async function otherWonDealsAtHome(
  db: Queryable,
  orgId: string,
  lead: { id: string; piece_id: string | null; full_address: string },
): Promise<HomeWonDeal[]> {
  const onCard = lead.piece_id ? sql` OR piece_id = ${lead.piece_id}::uuid` : sql``;
  const rows = await queryRows<{
    deal_name: string | null;
    amount: string | null;
    deal_date: Date | string | null;
    on_this_card: boolean;
    from_lead: boolean;
  }>(
    db,
    sql`SELECT deal_name, deal_amount::text AS amount, deal_date,
               (${lead.piece_id}::uuid IS NOT NULL AND piece_id IS NOT DISTINCT FROM ${lead.piece_id}::uuid) AS on_this_card,
               ${markedInApp()} AS from_lead
        FROM conversions
        WHERE org_id = ${orgId}::uuid AND (normalized_address = ${normalizeAddress(lead.full_address)}${onCard})
          AND won_lead_id IS DISTINCT FROM ${lead.id}::uuid
        ORDER BY COALESCE(deal_date, created_at) DESC, id DESC LIMIT ${HOME_DEALS_SHOWN}`,
  );
  return rows.map((row) => ({
    deal_name: row.deal_name,
    amount: row.amount === null ? null : Number(row.amount),
    closed_on: row.deal_date === null ? null : new Date(row.deal_date).toISOString().slice(0, 10),
    on_this_card: row.on_this_card,
    reported_by: row.from_lead ? ("another_lead" as const) : ("crm" as const),
  }));
}
