import { readConversionFields, recordConversion } from "../attribution/conversions.ts";
import type { AttributionDeps } from "../attribution/deps.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { AppError } from "../errors.ts";
import type { EventService } from "../trigger/event-service.ts";
import { type HubSpotAccessDeps, withAccessToken } from "./access-tokens.ts";
import { readConnection } from "./connections.ts";
import { HUBSPOT_UNAVAILABLE } from "./hubspot-api.ts";
import type { HubSpotCrmObject } from "./hubspot-shapes.ts";
import {
  associatedIds,
  COMPANY_PROPERTIES,
  CONTACT_PROPERTIES,
  contactEventProperties,
  conversionPayload,
  DEAL_PROPERTIES,
  type DealParty,
  dealEventProperties,
  type HubSpotEventType,
  hasStreet,
} from "./records.ts";

/** Received events are kept this long (HubSpot retries a request for about a day). */
const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

export interface HubSpotEventDeps extends HubSpotAccessDeps {
  /** The developer API's event ingestion (trigger/event-service.ts). */
  events: EventService;
  attribution: AttributionDeps;
}

interface StoredEvent {
  orgId: string;
  eventId: string;
  subscriptionType: string;
  objectId: string;
  propertyName: string | null;
  propertyValue: string | null;
  occurredAt: Date;
}

async function readPendingEvent(
  db: Queryable,
  orgId: string,
  eventId: string,
): Promise<StoredEvent | undefined> {
  const row = await queryOne<{
    subscription_type: string;
    object_id: string;
    property_name: string | null;
    property_value: string | null;
    occurred_at: Date | string;
  }>(
    db,
    sql`SELECT subscription_type, object_id, property_name, property_value, occurred_at FROM hubspot_events
        WHERE org_id = ${orgId}::uuid AND event_id = ${eventId} AND processed_at IS NULL`,
  );
  if (!row) return undefined;
  return {
    orgId,
    eventId,
    subscriptionType: row.subscription_type,
    objectId: row.object_id,
    propertyName: row.property_name,
    propertyValue: row.property_value,
    occurredAt: new Date(row.occurred_at),
  };
}

async function finishEvent(db: Queryable, event: StoredEvent, outcome: string, now: Date): Promise<void> {
  await db.execute(
    sql`UPDATE hubspot_events SET processed_at = ${now.toISOString()}::timestamptz, outcome = ${outcome.slice(0, 500)}
        WHERE org_id = ${event.orgId}::uuid AND event_id = ${event.eventId}`,
  );
  await db.execute(
    sql`DELETE FROM hubspot_events WHERE org_id = ${event.orgId}::uuid
        AND received_at < ${new Date(now.getTime() - EVENT_RETENTION_MS).toISOString()}::timestamptz`,
  );
}

/**
 * Whether a failure is final for this event: HubSpot said no (the record is gone, a scope is
 * missing), the org is no longer connected, or our own rules refused the record. Those become the
 * event's outcome; anything else (HubSpot or the database unreachable, the kill switch) is thrown,
 * so the job is tried again later.
 */
function finalOutcome(error: unknown): string {
  if (error instanceof AppError && error.code !== HUBSPOT_UNAVAILABLE && error.status < 503) {
    return `not processed: ${error.code}${error.detail ? ` (${error.detail})` : ""}`;
  }
  throw error;
}

const readContact = (deps: HubSpotEventDeps, orgId: string, id: string) =>
  withAccessToken(deps, orgId, (token) =>
    deps.api.readObject(token, "contacts", id, { properties: CONTACT_PROPERTIES }),
  );

/**
 * Whose home the deal is about: the first of its first three contacts with a street, else the
 * first of its first two companies with one, else its first contact (for the name alone).
 */
async function partyOf(
  deps: HubSpotEventDeps,
  orgId: string,
  deal: HubSpotCrmObject,
): Promise<DealParty | undefined> {
  let fallback: DealParty | undefined;
  for (const id of associatedIds(deal, "contacts", 3)) {
    const contact = await readContact(deps, orgId, id);
    if (hasStreet(contact)) return { kind: "contact", record: contact };
    fallback ??= { kind: "contact", record: contact };
  }
  for (const id of associatedIds(deal, "companies", 2)) {
    const company = await withAccessToken(deps, orgId, (token) =>
      deps.api.readObject(token, "companies", id, { properties: COMPANY_PROPERTIES }),
    );
    if (hasStreet(company)) return { kind: "company", record: company };
  }
  return fallback;
}

async function readDeal(deps: HubSpotEventDeps, event: StoredEvent) {
  const deal = await withAccessToken(deps, event.orgId, (token) =>
    deps.api.readObject(token, "deals", event.objectId, {
      properties: DEAL_PROPERTIES,
      associations: ["contacts", "companies"],
    }),
  );
  return { deal, party: await partyOf(deps, event.orgId, deal) };
}

/** The record through POST /api/v1/events' own path: bound automations, filters, dedup, samples. */
async function ingest(
  deps: HubSpotEventDeps,
  event: StoredEvent,
  eventType: HubSpotEventType,
  objectType: "contact" | "deal",
  dedupId: string,
  properties: Record<string, string>,
): Promise<string> {
  const result = await deps.events.ingest(event.orgId, {
    event_type: eventType,
    object_type: objectType,
    dedup_id: dedupId,
    occurred_at: event.occurredAt.toISOString(),
    record: { id: event.objectId, properties },
  });
  const reasons = result.outcomes.map((outcome) => outcome.reason);
  return `${eventType}: ${reasons.length > 0 ? reasons.join(", ") : "no automation bound"}`;
}

/** A won deal through POST /api/v1/conversions' own reading and attribution. */
async function convert(deps: HubSpotEventDeps, orgId: string, deal: HubSpotCrmObject, party?: DealParty) {
  try {
    const fields = readConversionFields(conversionPayload(deal, party));
    const result = await recordConversion(deps.attribution, orgId, fields);
    return result.matched
      ? `conversion attributed to campaign ${result.campaign_id}`
      : "conversion: no mailed card matched";
  } catch (error) {
    return `conversion ${finalOutcome(error)}`;
  }
}

async function contactEvent(deps: HubSpotEventDeps, event: StoredEvent, eventType: HubSpotEventType) {
  const contact = await readContact(deps, event.orgId, event.objectId);
  // One save in HubSpot sends an event per changed property, all at the same instant: one record.
  const dedupId =
    eventType === "hubspot.contact_created"
      ? `hubspot:contact:${event.objectId}:created`
      : `hubspot:contact:${event.objectId}:changed:${event.occurredAt.getTime()}`;
  return ingest(deps, event, eventType, "contact", dedupId, contactEventProperties(contact));
}

async function dealCreated(deps: HubSpotEventDeps, event: StoredEvent) {
  const { deal, party } = await readDeal(deps, event);
  const dedupId = `hubspot:deal:${event.objectId}:created`;
  return ingest(deps, event, "hubspot.deal_created", "deal", dedupId, dealEventProperties(deal, party));
}

/** The stage the event names (the deal may have moved on since); a won one is also a conversion. */
async function dealStageChanged(deps: HubSpotEventDeps, event: StoredEvent) {
  const stage = event.propertyValue ?? "";
  const { deal, party } = await readDeal(deps, event);
  const properties = {
    ...dealEventProperties(deal, party),
    ...(stage ? { status: stage.slice(0, 2000) } : {}),
  };
  const dedupId = `hubspot:deal:${event.objectId}:stage:${stage.slice(0, 100)}`;
  const outcomes = [await ingest(deps, event, "hubspot.deal_stage_changed", "deal", dedupId, properties)];
  const connection = await readConnection(deps.db, event.orgId);
  if (connection?.wonStages.includes(stage)) outcomes.push(await convert(deps, event.orgId, deal, party));
  return outcomes.join("; ");
}

function outcomeOf(deps: HubSpotEventDeps, event: StoredEvent): Promise<string> | string {
  switch (event.subscriptionType) {
    case "contact.creation":
      return contactEvent(deps, event, "hubspot.contact_created");
    case "contact.propertyChange":
      return contactEvent(deps, event, "hubspot.contact_changed");
    case "deal.creation":
      return dealCreated(deps, event);
    case "deal.propertyChange":
      return dealStageChanged(deps, event);
    default:
      return `ignored: ${event.subscriptionType}`;
  }
}

/** One received event, processed once: its outcome is written back and the job is done. */
export async function processHubSpotEvent(
  deps: HubSpotEventDeps,
  orgId: string,
  eventId: string,
): Promise<void> {
  const event = await readPendingEvent(deps.db, orgId, eventId);
  if (!event) return;
  let outcome: string;
  try {
    outcome = await outcomeOf(deps, event);
  } catch (error) {
    outcome = finalOutcome(error);
  }
  deps.logger.info({ orgId, eventId, outcome }, "HubSpot event processed");
  await finishEvent(deps.db, event, outcome, deps.clock.now());
}
