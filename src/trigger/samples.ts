import { randomUUID } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { eventSamples } from "../db/schema.ts";
import type { CleanEnvelope } from "./envelope.ts";

/** One live event kept for the binding picker, as the sample buffer writes it. */
export interface EventSampleRow {
  orgId: string;
  id: string;
  eventType: string;
  /** Encoded only when written, and only if still among its type's newest 25 by then. */
  envelope: Readonly<Record<string, unknown>>;
  receivedAt: Date;
  /** Its record named no address, so a bound automation made no card (`no_address`). */
  withoutAddress?: boolean;
}

/** How many recent live events the app's binding picker sees per event type. */
export const SAMPLES_PER_EVENT_TYPE = 25;

/**
 * The sample row of a live event (the envelope without `dry_run`). The trigger store buffers it
 * (trigger/sample-buffer.ts) and writes it into the type's ring of the newest 25.
 */
export function newEventSample(orgId: string, envelope: CleanEnvelope, receivedAt: Date): EventSampleRow {
  // Field by field rather than a rest copy without `dry_run` (always false here): this runs for
  // every live event. The record is shared, not copied: the trigger core only reads it (the piece
  // takes a copy of its properties), and the sample is encoded when the buffer writes it.
  const stored: Omit<CleanEnvelope, "dry_run"> = {
    event_type: envelope.event_type,
    object_type: envelope.object_type,
    dedup_id: envelope.dedup_id,
    occurred_at: envelope.occurred_at,
    record: envelope.record,
  };
  return { orgId, id: randomUUID(), eventType: envelope.event_type, envelope: stored, receivedAt };
}

export interface EventTypeSamples {
  event_type: string;
  last_seen_at: string;
  samples: unknown[];
}

/** Every event type the org has sent, most recently seen first, each with its samples newest first. */
export async function listEventSamples(db: Queryable, orgId: string): Promise<EventTypeSamples[]> {
  const rows = await db
    .select()
    .from(eventSamples)
    .where(eq(eventSamples.orgId, orgId))
    .orderBy(desc(eventSamples.receivedAt), desc(eventSamples.id));
  const byType = new Map<string, EventTypeSamples>();
  for (const row of rows) {
    let group = byType.get(row.eventType);
    if (!group) {
      group = { event_type: row.eventType, last_seen_at: row.receivedAt.toISOString(), samples: [] };
      byType.set(row.eventType, group);
    }
    if (group.samples.length < SAMPLES_PER_EVENT_TYPE) group.samples.push(row.envelope);
  }
  return [...byType.values()];
}
