// The contractor app's Leads screen: landing-page and CRM-synced leads, newest first, with the
// state of their delivery to each webhook subscription. Reads only; every query is one org's.
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { cursorTime, type KeysetCursor, keysetPage } from "../db/keyset-cursor.ts";
import type { LeadCustomField } from "../db/schema.ts";
import { isUuid } from "../domain/uuid.ts";
import { deliverLeadJob } from "../jobs/kinds.ts";
import { HomeWonDeal, otherWonDealsAtHome, WonJob, wonJobOf } from "./won-job.ts";

// The shapes the app API answers with (GET /leads, GET /leads/:id, Overview's latest leads): the
// routes' response schemas, and through Static<> the types this module returns.

const NullableString = (options = {}) => Type.Union([Type.String(options), Type.Null()]);

export const LeadSource = Type.Union([Type.Literal("landing_page"), Type.Literal("crm_sync")]);
export type LeadSource = Static<typeof LeadSource>;

export const LeadDelivery = Type.Object(
  {
    subscription_id: Type.String({ format: "uuid" }),
    target: Type.String({ description: "The subscription's origin (its path may hold a secret)." }),
    state: Type.Union([Type.Literal("delivered"), Type.Literal("failed"), Type.Literal("pending")], {
      description:
        "delivered: the receiver answered 2xx; failed: another status, or no answer (blocked, timeout, error); pending: waiting for its first try or a retry.",
    }),
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    error: NullableString(),
    attempts: Type.Integer(),
    last_attempt_at: NullableString({ format: "date-time" }),
    next_retry_at: NullableString({ format: "date-time" }),
  },
  { additionalProperties: false },
);
export type LeadDelivery = Static<typeof LeadDelivery>;

const leadFields = {
  id: Type.String({ format: "uuid" }),
  source: LeadSource,
  name: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  address: Type.String(),
  piece_id: NullableString({ format: "uuid" }),
  campaign_id: NullableString({ format: "uuid" }),
  campaign_name: NullableString(),
  automation_id: NullableString({ format: "uuid" }),
  automation_name: NullableString(),
  attribution_type: NullableString({ description: "direct (answered a card's landing page) or indirect." }),
  received_at: Type.String({ format: "date-time" }),
  deliveries: Type.Array(LeadDelivery),
  won_on: NullableString({
    format: "date",
    description: "The day the job was won, when a member marked it won.",
  }),
};

const CardWon = Type.Boolean({
  description:
    "A won deal is credited to the card this lead answered (reported by the CRM, or marked won here): Leads shows Won whoever reported it.",
});

export const LeadListItem = Type.Object(
  {
    ...leadFields,
    unopened: Type.Boolean({
      description:
        "New: a landing-page lead no member has opened in the app yet (Overview counts them); opening the lead (GET /leads/{id}) makes it false.",
    }),
    card_won: CardWon,
  },
  { additionalProperties: false },
);
export type LeadListItem = Static<typeof LeadListItem>;

export const LeadPage = Type.Object(
  { leads: Type.Array(LeadListItem), next_cursor: NullableString() },
  { additionalProperties: false },
);
export type LeadPage = Static<typeof LeadPage>;

export const LeadDetail = Type.Object(
  {
    ...leadFields,
    message: Type.String(),
    crm_record_id: NullableString(),
    card_won: CardWon,
    home_won_deals: Type.Array(HomeWonDeal, {
      description:
        "Won deals Revenue already has at the lead's home or on its card from something else than this lead (the CRM, another lead), newest first, at most 5: the job may be counted already.",
    }),
    won: Type.Union([WonJob, Type.Null()], {
      description: "The job won from this lead (Mark as won); null until then.",
    }),
    answers: Type.Array(
      Type.Object(
        { field_id: Type.String(), label: Type.String(), value: Type.Array(Type.String()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type LeadDetail = Static<typeof LeadDetail>;

interface LeadRow {
  id: string;
  source: LeadSource;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  full_address: string;
  piece_id: string | null;
  campaign_id: string | null;
  campaign_name: string | null;
  automation_id: string | null;
  automation_name: string | null;
  attribution_type: string | null;
  created_at: Date | string;
  cursor_at: string;
  message: string;
  custom_fields: LeadCustomField[] | string;
  crm_record_id: string | null;
  unopened: boolean;
  won_on: string | null;
  won_amount: string | null;
  won_at: Date | string | null;
  /** Read by the list only. */
  card_won?: boolean;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The subscription's origin only: a target's path may hold a secret (as the delivery logs do). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** New: a landing-page lead no member opened yet (Overview lists them, Leads marks them). */
const UNOPENED = sql`(l.source = 'landing_page' AND l.opened_at IS NULL)`;

const LEAD_COLUMNS = sql`l.id, l.source, l.first_name, l.last_name, l.email, l.phone, l.full_address, l.piece_id,
  l.campaign_id, c.name AS campaign_name, c.automation_id, a.name AS automation_name, l.attribution_type,
  l.created_at, ${cursorTime(sql`l.created_at`)} AS cursor_at, l.message, l.custom_fields, l.crm_record_id,
  ${UNOPENED} AS unopened, l.won_on::text AS won_on, l.won_amount::text AS won_amount, l.won_at`;

const LEAD_JOINS = sql`FROM leads l
  LEFT JOIN campaigns c ON c.org_id = l.org_id AND c.id = l.campaign_id
  LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id`;

/**
 * Each lead's delivery to each subscription: the sent request's record (deliveries) and the job
 * still waiting to send it. A sent request is never repeated, so attempts counts the records.
 */
async function deliveriesOf(
  db: Queryable,
  orgId: string,
  leadIds: string[],
): Promise<Map<string, LeadDelivery[]>> {
  const byLead = new Map<string, LeadDelivery[]>(leadIds.map((id) => [id, []]));
  if (leadIds.length === 0) return byLead;
  const ids = sql.join(
    leadIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const sent = await queryRows<{
    lead_id: string;
    subscription_id: string;
    target_url: string;
    outcome: string;
    status_code: number | null;
    error: string | null;
    attempts: number | string;
    created_at: Date | string;
  }>(
    db,
    sql`SELECT DISTINCT ON (lead_id, subscription_id) lead_id, subscription_id, target_url, outcome, status_code, error,
               count(*) OVER (PARTITION BY lead_id, subscription_id) AS attempts, created_at
        FROM deliveries WHERE org_id = ${orgId}::uuid AND lead_id IN (${ids})
        ORDER BY lead_id, subscription_id, created_at DESC, id`,
  );
  const waiting = await queryRows<{
    lead_id: string;
    subscription_id: string;
    target_url: string | null;
    run_at: Date | string;
  }>(
    db,
    sql`SELECT j.payload->>'lead_id' AS lead_id, j.payload->>'subscription_id' AS subscription_id,
               s.target_url, j.run_at
        FROM jobs j LEFT JOIN subscriptions s ON s.org_id = j.org_id AND s.id::text = j.payload->>'subscription_id'
        WHERE j.org_id = ${orgId}::uuid AND j.kind = ${deliverLeadJob.name} AND j.status IN ('pending', 'running')
          AND (j.payload->>'lead_id')::uuid IN (${ids})`,
  );
  const pending = new Set(waiting.map((job) => `${job.lead_id}|${job.subscription_id}`));
  for (const row of sent) {
    if (pending.has(`${row.lead_id}|${row.subscription_id}`)) continue;
    const ok =
      row.outcome === "attempted" &&
      row.status_code !== null &&
      row.status_code >= 200 &&
      row.status_code < 300;
    byLead.get(row.lead_id)?.push({
      subscription_id: row.subscription_id,
      target: originOf(row.target_url),
      state: ok ? "delivered" : "failed",
      status_code: row.status_code,
      error: row.error,
      attempts: Number(row.attempts),
      last_attempt_at: iso(row.created_at),
      next_retry_at: null,
    });
  }
  for (const job of waiting) {
    const previous = sent.find(
      (row) => row.lead_id === job.lead_id && row.subscription_id === job.subscription_id,
    );
    byLead.get(job.lead_id)?.push({
      subscription_id: job.subscription_id,
      target: originOf(job.target_url ?? previous?.target_url ?? ""),
      state: "pending",
      status_code: previous?.status_code ?? null,
      error: previous?.error ?? null,
      attempts: previous ? Number(previous.attempts) : 0,
      last_attempt_at: iso(previous?.created_at ?? null),
      next_retry_at: iso(job.run_at),
    });
  }
  for (const list of byLead.values()) list.sort((a, b) => a.target.localeCompare(b.target));
  return byLead;
}

/** The fields a lead's list row and its page share. */
function leadSummary(row: LeadRow, deliveries: LeadDelivery[]): Omit<LeadListItem, "unopened" | "card_won"> {
  return {
    id: row.id,
    source: row.source,
    name: `${row.first_name} ${row.last_name}`.trim(),
    email: row.email,
    phone: row.phone,
    address: row.full_address,
    piece_id: row.piece_id,
    campaign_id: row.campaign_id,
    campaign_name: row.campaign_name,
    automation_id: row.automation_id,
    automation_name: row.automation_name,
    attribution_type: row.attribution_type,
    received_at: iso(row.created_at)!,
    deliveries,
    won_on: row.won_at === null ? null : row.won_on,
  };
}

const listItem = (row: LeadRow, deliveries: LeadDelivery[]): LeadListItem => ({
  ...leadSummary(row, deliveries),
  unopened: row.unopened,
  card_won: row.card_won === true,
});

/** A won deal credited to the lead's card (conversions_by_piece: one probe a listed lead). */
const CARD_WON = sql`(l.piece_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM conversions v WHERE v.org_id = l.org_id AND v.piece_id = l.piece_id)) AS card_won`;

export async function listLeads(
  db: Queryable,
  orgId: string,
  filters: { source?: LeadSource; unopened?: boolean },
  cursor: KeysetCursor | undefined,
  limit: number,
): Promise<LeadPage> {
  const conditions = [sql`l.org_id = ${orgId}::uuid`];
  if (filters.source) conditions.push(sql`l.source = ${filters.source}`);
  if (filters.unopened) conditions.push(UNOPENED);
  if (cursor) {
    conditions.push(sql`(l.created_at, l.id) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`);
  }
  const rows = await queryRows<LeadRow>(
    db,
    sql`SELECT ${LEAD_COLUMNS}, ${CARD_WON} ${LEAD_JOINS} WHERE ${sql.join(conditions, sql` AND `)}
        ORDER BY l.created_at DESC, l.id DESC LIMIT ${limit + 1}`,
  );
  const { page, nextCursor } = keysetPage(rows, limit);
  const deliveries = await deliveriesOf(
    db,
    orgId,
    page.map((row) => row.id),
  );
  return { leads: page.map((row) => listItem(row, deliveries.get(row.id) ?? [])), next_cursor: nextCursor };
}

/** The most recent leads (Overview's "last 5"). */
export async function latestLeads(db: Queryable, orgId: string, count: number): Promise<LeadListItem[]> {
  return (await listLeads(db, orgId, {}, undefined, count)).leads;
}

/** A member opened the lead in the app: it is no longer new. */
export async function markLeadOpened(db: Queryable, orgId: string, leadId: string, now: Date): Promise<void> {
  await db.execute(
    sql`UPDATE leads SET opened_at = ${now.toISOString()}::timestamptz
        WHERE org_id = ${orgId}::uuid AND id = ${leadId}::uuid AND opened_at IS NULL`,
  );
}

export async function getLead(db: Queryable, orgId: string, leadId: string): Promise<LeadDetail | undefined> {
  if (!isUuid(leadId)) return undefined;
  const row = await queryOne<LeadRow>(
    db,
    sql`SELECT ${LEAD_COLUMNS}, ${CARD_WON} ${LEAD_JOINS} WHERE l.org_id = ${orgId}::uuid AND l.id = ${leadId}::uuid`,
  );
  if (!row) return undefined;
  const [deliveries, won, homeWonDeals] = await Promise.all([
    deliveriesOf(db, orgId, [row.id]),
    wonJobOf(db, orgId, row),
    otherWonDealsAtHome(db, orgId, row),
  ]);
  const fields = (
    typeof row.custom_fields === "string" ? JSON.parse(row.custom_fields) : row.custom_fields
  ) as LeadCustomField[] | null;
  return {
    ...leadSummary(row, deliveries.get(row.id) ?? []),
    message: row.message,
    crm_record_id: row.crm_record_id,
    card_won: row.card_won === true,
    won,
    home_won_deals: homeWonDeals,
    answers: (fields ?? []).map((field) => ({
      field_id: field.field_id,
      label: field.field_label,
      value: field.value,
    })),
  };
}
