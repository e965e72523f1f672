import { type Static, Type } from "@fastify/type-provider-typebox";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { compiledSchema } from "../domain/compiled-schema.ts";
import { invalidJson, unreadableBody } from "../errors.ts";
import { hubspotEventJob } from "../jobs/kinds.ts";
import { enqueueJobRows, newJobRow } from "../jobs/queue.ts";
import { orgsOfPortals, recordEventReceived } from "./connections.ts";
import { HubSpotWebhookEvent } from "./hubspot-shapes.ts";

/** HubSpot sends at most 100 events per request; a longer array is not HubSpot's. */
export const MAX_EVENTS_PER_REQUEST = 100;

/** The subscriptions Porchlight acts on; HubSpot's other events are acknowledged and dropped. */
export const HANDLED_SUBSCRIPTIONS = [
  "contact.creation",
  "contact.propertyChange",
  "deal.creation",
  "deal.propertyChange",
] as const;

export const HubSpotWebhookReceipt = Type.Object(
  {
    received: Type.Integer({ description: "New events queued for processing." }),
    duplicates: Type.Integer({ description: "Events already received (HubSpot retried them)." }),
    ignored: Type.Integer({
      description: "Events of a portal no organization connected, or of a subscription not acted on.",
    }),
  },
  { additionalProperties: false },
);
export type HubSpotWebhookReceipt = Static<typeof HubSpotWebhookReceipt>;

/**
 * The signed body as HubSpot's events. The body must be a JSON array of at most 100 objects; an
 * element that is not a CRM object event (HubSpot adds kinds) is counted ignored, not refused, so a
 * new kind never makes HubSpot retry a whole batch.
 */
export function parseWebhookBody(rawBody: Buffer): { events: HubSpotWebhookEvent[]; malformed: number } {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw invalidJson("the body is not valid JSON");
  }
  if (!Array.isArray(body)) throw unreadableBody("HubSpot sends a JSON array of events");
  if (body.length > MAX_EVENTS_PER_REQUEST) {
    throw unreadableBody(`at most ${MAX_EVENTS_PER_REQUEST} events per request`);
  }
  const isEvent = compiledSchema(HubSpotWebhookEvent);
  const events = body.filter((element): element is HubSpotWebhookEvent => isEvent.Check(element));
  return { events, malformed: body.length - events.length };
}

/** A deal's property change matters only for its stage; other changes are not even stored. */
const isHandled = (event: HubSpotWebhookEvent) =>
  (HANDLED_SUBSCRIPTIONS as readonly string[]).includes(event.subscriptionType) &&
  (event.subscriptionType !== "deal.propertyChange" || event.propertyName === "dealstage");

/** The events of one request grouped by portal (decimal text, as hubspot_connections keeps it). */
function byPortal(events: HubSpotWebhookEvent[]): Map<string, HubSpotWebhookEvent[]> {
  const groups = new Map<string, HubSpotWebhookEvent[]>();
  for (const event of events) {
    const portal = String(event.portalId);
    groups.set(portal, [...(groups.get(portal) ?? []), event]);
  }
  return groups;
}

const eventRow = (orgId: string, event: HubSpotWebhookEvent, receivedAt: Date) => ({
  org_id: orgId,
  event_id: String(event.eventId),
  subscription_type: event.subscriptionType,
  object_id: String(event.objectId),
  property_name: event.propertyName ?? null,
  property_value: event.propertyValue ?? null,
  occurred_at: new Date(event.occurredAt).toISOString(),
  received_at: receivedAt.toISOString(),
});

/**
 * One organization's events: each new eventId stored with its job, in one transaction (a replayed
 * eventId inserts nothing and queues nothing), and the connection's last event time.
 */
async function storeOrgEvents(
  db: Queryable,
  orgId: string,
  events: HubSpotWebhookEvent[],
  now: Date,
): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = JSON.stringify(events.map((event) => eventRow(orgId, event, now)));
    const inserted = await queryRows<{ event_id: string }>(
      tx,
      sql`INSERT INTO hubspot_events (org_id, event_id, subscription_type, object_id, property_name,
                                      property_value, occurred_at, received_at)
          SELECT e.org_id, e.event_id, e.subscription_type, e.object_id, e.property_name,
                 e.property_value, e.occurred_at, e.received_at
          FROM json_to_recordset(${rows}::json) AS e(org_id uuid, event_id text, subscription_type text,
               object_id text, property_name text, property_value text, occurred_at timestamptz,
               received_at timestamptz)
          ON CONFLICT (org_id, event_id) DO NOTHING
          RETURNING event_id`,
    );
    if (inserted.length > 0) {
      await enqueueJobRows(
        tx,
        inserted.map(({ event_id }) =>
          newJobRow(hubspotEventJob, { org_id: orgId, event_id }, { orgId, now }),
        ),
      );
    }
    await recordEventReceived(tx, orgId, now);
    return inserted.length;
  });
}

/**
 * Routes a verified batch by portalId. Events of a portal nobody connected are acknowledged and
 * ignored (logged once per request): answering an error would only make HubSpot retry them.
 */
export async function receiveHubSpotEvents(
  deps: { db: Queryable; clock: Clock; logger: Pick<Logger, "warn"> },
  events: HubSpotWebhookEvent[],
): Promise<HubSpotWebhookReceipt> {
  const now = deps.clock.now();
  const handled = events.filter(isHandled);
  const groups = byPortal(handled);
  const orgs = await orgsOfPortals(deps.db, [...groups.keys()]);
  const receipt = { received: 0, duplicates: 0, ignored: events.length - handled.length };
  for (const [portalId, portalEvents] of groups) {
    const orgId = orgs.get(portalId);
    if (!orgId) {
      deps.logger.warn(
        { portalId, events: portalEvents.length },
        "HubSpot events for a portal no organization connected: acknowledged and ignored",
      );
      receipt.ignored += portalEvents.length;
      continue;
    }
    // One eventId twice in one request counts once.
    const unique = [...new Map(portalEvents.map((event) => [String(event.eventId), event])).values()];
    const stored = await storeOrgEvents(deps.db, orgId, unique, now);
    receipt.received += stored;
    receipt.duplicates += portalEvents.length - stored;
  }
  return receipt;
}
