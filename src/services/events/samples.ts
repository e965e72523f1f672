import { randomUUID } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import type { Clock } from "../../clock.ts";
import { type Queryable, sql } from "../../db/database.ts";
import { eventSamples } from "../../db/schema.ts";
import type { CleanEnvelope } from "./envelope.ts";

/** How many recent live events the app's binding picker sees per event type. */
export const SAMPLES_PER_EVENT_TYPE = 25;

/** Keeps the envelope and trims the (org, event_type) sample back to the newest 25. */
export async function recordEventSample(
  deps: { db: Queryable; clock: Clock },
  orgId: string,
  envelope: CleanEnvelope,
): Promise<void> {
  const { dry_run: _alwaysFalseHere, ...stored } = envelope;
  // One statement: the insert and the trim commit together. The DELETE sees the table as it was
  // before the insert, so keeping the newest 24 old rows leaves 25 with the new one. Concurrent
  // trims may briefly leave a few fewer; the sample is "about 25" by design.
  await deps.db.execute(
    sql`WITH inserted AS (
          INSERT INTO event_samples (org_id, id, event_type, envelope, received_at)
          VALUES (${orgId}, ${randomUUID()}, ${envelope.event_type}, ${JSON.stringify(stored)}::jsonb,
                  ${deps.clock.now().toISOString()}::timestamptz)
          RETURNING id)
        DELETE FROM event_samples
        WHERE org_id = ${orgId} AND event_type = ${envelope.event_type}
          AND id NOT IN (
            SELECT id FROM event_samples
            WHERE org_id = ${orgId} AND event_type = ${envelope.event_type}
            ORDER BY received_at DESC, id DESC
            LIMIT ${SAMPLES_PER_EVENT_TYPE - 1})`,
  );
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
