// Reads the contractor's app needs beside the developer API's: each scoped to one organization.
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { TEST_CARD_RECORD_PREFIX } from "../domain/test-card-record.ts";
import { monthOf, ORG_SCOPE } from "../mail-safety/spend-caps.ts";
import { WAITING } from "../pieces/piece-updates.ts";

/** An automation's cards as its list row counts them. */
export interface AutomationCards {
  /** Handed to print since the 1st (UTC): what Overview's mail safety counts, follow-ups once they went. */
  sentToPrintThisMonth: number;
  /** Waiting before print now (on hold, awaiting approval, paused by a cap); not follow-ups scheduled for later. */
  waiting: number;
}

/**
 * Each automation's cards sent to print this month and waiting now. The month's count is the cap
 * counters' (one row per automation and month); the waiting count reads only waiting pieces
 * (the partial index mail_pieces_waiting), so neither grows with the mail ever sent.
 */
export async function automationCards(
  db: Queryable,
  orgId: string,
  now: Date,
): Promise<Map<string, AutomationCards>> {
  const [sent, waiting] = await Promise.all([
    queryRows<{ automation_id: string; cards: number }>(
      db,
      sql`SELECT automation_id, cards FROM mail_cap_usage
          WHERE org_id = ${orgId}::uuid AND month = ${monthOf(now)}::date AND automation_id <> ${ORG_SCOPE}::uuid`,
    ),
    queryRows<{ automation_id: string; cards: number }>(
      db,
      sql`SELECT c.automation_id, count(*)::int AS cards
          FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
          WHERE p.org_id = ${orgId}::uuid AND p.status IN ${WAITING} AND c.automation_id IS NOT NULL
          GROUP BY c.automation_id`,
    ),
  ]);
  const counts = new Map<string, AutomationCards>();
  const of = (id: string) => {
    const found = counts.get(id) ?? { sentToPrintThisMonth: 0, waiting: 0 };
    counts.set(id, found);
    return found;
  };
  for (const row of sent) of(row.automation_id).sentToPrintThisMonth = Number(row.cards);
  for (const row of waiting) of(row.automation_id).waiting = Number(row.cards);
  return counts;
}

export interface EventTypeSummary {
  event_type: string;
  object_type: string | null;
  last_seen_at: string;
  count: number;
  bound: boolean;
  /** When none is enabled: an automation that listens to the type but is turned off (the first by name). */
  turned_off_automation: { id: string; name: string } | null;
  /** Every kept sample of the type is a test card's, sent from the app: no CRM sent one. */
  only_test_cards: boolean;
  /** Events whose record named no address, so a bound automation made no card; and the newest's time. */
  without_address: number;
  last_without_address_at: string | null;
}

/**
 * The event types the org's CRM sent (from the kept samples), newest first, each marked bound
 * when an enabled automation listens to it: an unbound type mails nothing (often a typo).
 */
export async function listEventTypes(db: Queryable, orgId: string): Promise<EventTypeSummary[]> {
  const rows = await queryRows<{
    event_type: string;
    object_type: string | null;
    last_seen_at: Date | string;
    count: number | string;
    bound: boolean;
    only_test_cards: boolean;
    without_address: number | string;
    last_without_address_at: Date | string | null;
  }>(
    db,
    sql`SELECT s.event_type,
               (array_agg(s.envelope->>'object_type' ORDER BY s.received_at DESC))[1] AS object_type,
               max(s.received_at) AS last_seen_at, GREATEST(max(c.received), count(*)) AS count,
               COALESCE(max(c.received_without_address), 0) AS without_address,
               max(c.last_without_address_at) AS last_without_address_at,
               bool_and(s.envelope->>'dedup_id' LIKE ${`${TEST_CARD_RECORD_PREFIX}%`}) AS only_test_cards,
               EXISTS (SELECT 1 FROM automations a WHERE a.org_id = s.org_id AND a.enabled
                       AND a.trigger_binding = 'custom.' || s.event_type) AS bound
        FROM event_samples s
        LEFT JOIN event_sample_cursors c ON c.org_id = s.org_id AND c.event_type = s.event_type
        WHERE s.org_id = ${orgId}::uuid
        GROUP BY s.org_id, s.event_type ORDER BY max(s.received_at) DESC, s.event_type`,
  );
  const unbound = rows.filter((row) => !row.bound).map((row) => `custom.${row.event_type}`);
  const turnedOff = new Map<string, { id: string; name: string }>();
  if (unbound.length > 0) {
    const off = await queryRows<{ binding: string; id: string; name: string }>(
      db,
      sql`SELECT DISTINCT ON (trigger_binding) trigger_binding AS binding, id, name FROM automations
          WHERE org_id = ${orgId}::uuid AND NOT enabled AND trigger_binding = ANY(${sql.param(unbound)}::text[])
          ORDER BY trigger_binding, name, id`,
    );
    for (const row of off) turnedOff.set(row.binding, { id: row.id, name: row.name });
  }
  return rows.map((row) => ({
    event_type: row.event_type,
    object_type: row.object_type,
    last_seen_at: new Date(row.last_seen_at).toISOString(),
    count: Number(row.count),
    bound: Boolean(row.bound),
    only_test_cards: Boolean(row.only_test_cards),
    turned_off_automation: row.bound ? null : (turnedOff.get(`custom.${row.event_type}`) ?? null),
    without_address: Number(row.without_address),
    last_without_address_at:
      row.last_without_address_at === null ? null : new Date(row.last_without_address_at).toISOString(),
  }));
}

export interface EventSampleView {
  id: string;
  event_type: string;
  object_type: string | null;
  received_at: string;
  record: Record<string, unknown>;
  property_keys: string[];
  without_address: boolean;
}

interface SampleRow {
  id: string;
  event_type: string;
  received_at: Date | string;
  envelope: Record<string, unknown> | string;
  without_address: boolean;
}

function sampleView(row: SampleRow): EventSampleView {
  const envelope = (typeof row.envelope === "string" ? JSON.parse(row.envelope) : row.envelope) as Record<
    string,
    unknown
  >;
  const properties = ((envelope.record as { properties?: unknown } | undefined)?.properties ?? {}) as Record<
    string,
    unknown
  >;
  return {
    id: row.id,
    event_type: row.event_type,
    object_type: typeof envelope.object_type === "string" ? envelope.object_type : null,
    received_at: new Date(row.received_at).toISOString(),
    record: envelope,
    property_keys: Object.keys(properties).sort(),
    without_address: row.without_address,
  };
}

export async function listSamples(
  db: Queryable,
  orgId: string,
  eventType?: string,
): Promise<EventSampleView[]> {
  const rows = await queryRows<SampleRow>(
    db,
    sql`SELECT id, event_type, received_at, envelope, without_address FROM event_samples
        WHERE org_id = ${orgId}::uuid ${eventType === undefined ? sql`` : sql`AND event_type = ${eventType}`}
        ORDER BY received_at DESC, id LIMIT 100`,
  );
  return rows.map(sampleView);
}

export async function findSample(
  db: Queryable,
  orgId: string,
  sampleId: string,
): Promise<EventSampleView | undefined> {
  const row = await queryOne<SampleRow>(
    db,
    sql`SELECT id, event_type, received_at, envelope, without_address FROM event_samples
        WHERE org_id = ${orgId}::uuid AND id::text = ${sampleId}`,
  );
  return row ? sampleView(row) : undefined;
}

export interface KeyView {
  id: string;
  name: string;
  scopes: string[] | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  /** The key a first start made for its demo organization (printed in the server's console). */
  demo: boolean;
}

/** The org's live keys (revoked ones are gone for the contractor); never a hash. */
export async function listOrgKeys(db: Queryable, orgId: string): Promise<KeyView[]> {
  const rows = await queryRows<{
    id: string;
    name: string;
    scopes: string[] | null;
    created_at: Date | string;
    expires_at: Date | string | null;
    last_used_at: Date | string | null;
    demo: boolean;
  }>(
    db,
    sql`SELECT id, name, scopes, created_at, expires_at, last_used_at, demo FROM api_keys
        WHERE org_id = ${orgId}::uuid AND revoked_at IS NULL ORDER BY created_at DESC, id`,
  );
  const iso = (value: Date | string | null) => (value ? new Date(value).toISOString() : null);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    demo: row.demo,
  }));
}
