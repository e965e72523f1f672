import { randomUUID } from "node:crypto";
import { desc, eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { webhookLog } from "../db/schema.ts";

export type WebhookLogLevel = "info" | "warn" | "error";

export interface WebhookLogEntryInput {
  /** What wrote the entry: `events`, `trigger`, `attribution`… */
  source: string;
  level: WebhookLogLevel;
  message: string;
  automationId?: string;
  eventType?: string;
  dedupId?: string;
}

export interface WebhookLogEntry {
  id: string;
  at: string;
  source: string;
  automation_id?: string;
  event_type?: string;
  dedup_id?: string;
  level: WebhookLogLevel;
  message: string;
}

export interface WebhookLogDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
}

/**
 * Appends to the org's webhook log (what the app shows the customer about their integration).
 * Never throws: a log that cannot be written must not turn an accepted event into an error,
 * so the failure goes to the process log instead.
 */
export async function appendWebhookLog(
  deps: WebhookLogDeps,
  orgId: string,
  entry: WebhookLogEntryInput,
): Promise<void> {
  try {
    await deps.db.insert(webhookLog).values({
      orgId,
      id: randomUUID(),
      at: deps.clock.now(),
      source: entry.source,
      automationId: entry.automationId ?? null,
      eventType: entry.eventType ?? null,
      dedupId: entry.dedupId ?? null,
      level: entry.level,
      message: entry.message,
    });
  } catch (error) {
    deps.logger.error({ err: error, orgId, entry }, "webhook log entry could not be written");
  }
}

/** The org's webhook log, newest first. */
export async function listWebhookLog(
  db: Queryable,
  orgId: string,
  limit: number,
): Promise<WebhookLogEntry[]> {
  const rows = await db
    .select()
    .from(webhookLog)
    .where(eq(webhookLog.orgId, orgId))
    .orderBy(desc(webhookLog.at), desc(webhookLog.id))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    at: row.at.toISOString(),
    source: row.source,
    ...(row.automationId ? { automation_id: row.automationId } : {}),
    ...(row.eventType ? { event_type: row.eventType } : {}),
    ...(row.dedupId ? { dedup_id: row.dedupId } : {}),
    level: row.level,
    message: row.message,
  }));
}
