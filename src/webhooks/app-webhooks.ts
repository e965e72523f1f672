// The app's Developers → Webhooks: the same subscriptions the developer API's subscribe and
// unsubscribe manage, read with their recent deliveries, and a test delivery on demand.
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { isUuid } from "../domain/uuid.ts";
import { notFound } from "../errors.ts";
import { deliverLeadJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { SAMPLE_LEAD_ID } from "../leads/polling.ts";

/** How many of a subscription's latest deliveries the list carries. */
export const RECENT_DELIVERIES = 5;

const IsoDate = Type.String({ format: "date-time" });

export const AppDelivery = Type.Object(
  {
    id: Type.String(),
    lead_id: Type.String(),
    test: Type.Boolean({ description: "A test delivery: the sample lead (`test: true`, all-zero id)." }),
    outcome: Type.String({ description: "attempted, blocked, timeout or error" }),
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    attempt: Type.Integer({
      description: "1 for the first delivery of this lead to this URL, 2 for a retry…",
    }),
    error: Type.Union([Type.String(), Type.Null()]),
    created_at: IsoDate,
  },
  { additionalProperties: false },
);
export type AppDelivery = Static<typeof AppDelivery>;

export const AppSubscription = Type.Object(
  {
    id: Type.String(),
    target_url: Type.String(),
    event: Type.String(),
    signed: Type.Boolean(),
    created_at: IsoDate,
    last_delivery: Type.Union([
      Type.Object(
        { outcome: Type.String(), status_code: Type.Union([Type.Integer(), Type.Null()]), at: IsoDate },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    test_pending: Type.Boolean({ description: "A test delivery is queued and not yet sent." }),
    recent_deliveries: Type.Array(AppDelivery, {
      description: `The latest ${RECENT_DELIVERIES}, newest first.`,
    }),
  },
  { additionalProperties: false },
);
export type AppSubscription = Static<typeof AppSubscription>;

interface DeliveryDbRow {
  id: string;
  subscription_id: string;
  lead_id: string;
  outcome: string;
  status_code: number | null;
  attempt: number | string;
  error: string | null;
  created_at: Date | string;
}

const toDelivery = (row: DeliveryDbRow): AppDelivery => ({
  id: row.id,
  lead_id: row.lead_id,
  test: row.lead_id === SAMPLE_LEAD_ID,
  outcome: row.outcome,
  status_code: row.status_code,
  attempt: Number(row.attempt),
  error: row.error,
  created_at: new Date(row.created_at).toISOString(),
});

/** Each test delivery counts on its own; a lead's retries count as its attempts 2, 3. */
const deliveriesWithAttempt = (orgId: string) =>
  sql`SELECT id, subscription_id, lead_id, outcome, status_code, error, created_at,
             row_number() OVER (
               PARTITION BY subscription_id, CASE WHEN lead_id = ${SAMPLE_LEAD_ID}::uuid THEN id ELSE lead_id END
               ORDER BY created_at, id) AS attempt
      FROM deliveries WHERE org_id = ${orgId}::uuid`;

/** The org's subscriptions, newest first, each with its latest deliveries. */
export async function listAppSubscriptions(db: Queryable, orgId: string): Promise<AppSubscription[]> {
  const subscriptions = await queryRows<{
    id: string;
    target_url: string;
    event: string;
    signed: boolean;
    created_at: Date | string;
    test_pending: boolean;
  }>(
    db,
    sql`SELECT s.id, s.target_url, s.event, (s.signing_secret IS NOT NULL) AS signed, s.created_at,
               EXISTS (SELECT 1 FROM jobs j
                       WHERE j.org_id = s.org_id AND j.kind = ${deliverLeadJob.name}
                         AND j.status IN ('pending', 'running')
                         AND j.payload->>'lead_id' = ${SAMPLE_LEAD_ID}
                         AND j.payload->>'subscription_id' = s.id::text) AS test_pending
        FROM subscriptions s WHERE s.org_id = ${orgId}::uuid ORDER BY s.created_at DESC, s.id`,
  );
  if (subscriptions.length === 0) return [];
  const recent = await queryRows<DeliveryDbRow>(
    db,
    sql`SELECT * FROM (
          SELECT d.*, row_number() OVER (PARTITION BY subscription_id ORDER BY created_at DESC, id DESC) AS recency
          FROM (${deliveriesWithAttempt(orgId)}) d) ranked
        WHERE recency <= ${RECENT_DELIVERIES} ORDER BY created_at DESC, id DESC`,
  );
  return subscriptions.map((row) => {
    const deliveries = recent.filter((delivery) => delivery.subscription_id === row.id).map(toDelivery);
    const last = deliveries[0];
    return {
      id: row.id,
      target_url: row.target_url,
      event: row.event,
      signed: Boolean(row.signed),
      created_at: new Date(row.created_at).toISOString(),
      last_delivery: last
        ? { outcome: last.outcome, status_code: last.status_code, at: last.created_at }
        : null,
      test_pending: Boolean(row.test_pending),
      recent_deliveries: deliveries,
    };
  });
}

/** A subscription's deliveries, newest first (at most 200); undefined when the org has no such one. */
export async function listAppDeliveries(
  db: Queryable,
  orgId: string,
  subscriptionId: string,
): Promise<AppDelivery[] | undefined> {
  if (!(await subscriptionExists(db, orgId, subscriptionId))) return undefined;
  const rows = await queryRows<DeliveryDbRow>(
    db,
    sql`SELECT * FROM (${deliveriesWithAttempt(orgId)}) d
        WHERE subscription_id = ${subscriptionId}::uuid ORDER BY created_at DESC, id DESC LIMIT 200`,
  );
  return rows.map(toDelivery);
}

async function subscriptionExists(db: Queryable, orgId: string, subscriptionId: string): Promise<boolean> {
  if (!isUuid(subscriptionId)) return false;
  const row = await queryOne<{ id: string }>(
    db,
    sql`SELECT id FROM subscriptions WHERE org_id = ${orgId}::uuid AND id = ${subscriptionId}::uuid`,
  );
  return row !== undefined;
}

/**
 * Queues a test delivery: the sample lead, posted by the same job as a real lead (the same URL
 * guard at delivery, the same signature, a row in the delivery log). Returns the delivery's id:
 * the waiting test's, when one is still waiting for this subscription.
 */
export async function queueTestDelivery(
  db: Queryable,
  orgId: string,
  subscriptionId: string,
  now: Date,
): Promise<string> {
  if (!(await subscriptionExists(db, orgId, subscriptionId))) throw notFound("subscription not found");
  // One test at a time per endpoint: a test still waiting is the answer, so pressing Send test
  // again cannot make the service send a third party's server requests at will. Looked for and
  // queued under a lock on the endpoint, so presses sent in parallel queue one test too.
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`webhook-test:${subscriptionId}`}))`);
    const pending = await queryOne<{ id: string }>(
      tx,
      sql`SELECT id FROM jobs
          WHERE org_id = ${orgId}::uuid AND kind = ${deliverLeadJob.name} AND status IN ('pending', 'running')
            AND payload->>'lead_id' = ${SAMPLE_LEAD_ID} AND payload->>'subscription_id' = ${subscriptionId}
          ORDER BY created_at, id LIMIT 1`,
    );
    if (pending) return pending.id;
    return enqueueJob(
      tx,
      deliverLeadJob,
      { org_id: orgId, lead_id: SAMPLE_LEAD_ID, subscription_id: subscriptionId },
      { orgId, now },
    );
  });
}
