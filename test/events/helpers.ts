import { randomUUID } from "node:crypto";
import { queryOne, sql } from "../../src/db/database.ts";
import { admin, call } from "../helpers/api.ts";
import type { TestContext } from "../helpers/harness.ts";

export const ADDRESS = { street: "12 Oak Lane", city: "Austin", state: "TX", zip: "78701" };

/** A valid envelope; `overrides` replace top-level fields, `properties` the record's properties. */
export function envelope(
  overrides: Record<string, unknown> = {},
  properties: Record<string, unknown> = { ...ADDRESS, client_name: "Jane Doe" },
): Record<string, unknown> {
  return {
    event_type: "job.completed",
    object_type: "job",
    dedup_id: `dedup-${randomUUID()}`,
    record: { id: `rec-${randomUUID().slice(0, 8)}`, properties },
    ...overrides,
  };
}

export const sendEvent = (ctx: TestContext, key: string, body: unknown) =>
  call(ctx, "POST", "/api/v1/events", { key, body });

/** An automation bound to `custom.<eventType>`, created through the operator API. */
export function boundAutomation(
  eventType: string,
  extra: { name?: string; object_type?: string; filters?: unknown[]; enabled?: boolean } = {},
) {
  const { name, object_type, ...rest } = extra;
  return {
    name: name ?? `Bound to ${eventType}`,
    trigger: { type: "custom_api", event_type: eventType, ...(object_type ? { object_type } : {}) },
    ...rest,
  };
}

/** Every table an event may write (jobs: the pipeline work that writes and mails each queued piece). */
const WRITTEN_TABLES = [
  "connections",
  "event_samples",
  "campaigns",
  "mail_pieces",
  "webhook_log",
  "jobs",
] as const;
export type RowCounts = Record<(typeof WRITTEN_TABLES)[number], number>;

export const NOTHING_WRITTEN: RowCounts = {
  connections: 0,
  event_samples: 0,
  campaigns: 0,
  mail_pieces: 0,
  webhook_log: 0,
  jobs: 0,
};

/**
 * Rows an event may write, per table, for one org. Samples are written behind the request; the
 * operator API's listing writes the buffered ones first, so a sample a dry run wrongly buffered
 * is counted too.
 */
export async function countRows(ctx: TestContext, orgId: string): Promise<RowCounts> {
  const flushed = await admin(ctx, "GET", `/orgs/${orgId}/event-samples`);
  if (flushed.status !== 200) throw new Error(`event-samples answered ${flushed.status}`);
  const counts = {} as RowCounts;
  for (const table of WRITTEN_TABLES) {
    const row = await queryOne<{ n: number | string }>(
      ctx.database.db,
      sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE org_id = ${orgId}`,
    );
    counts[table] = Number(row?.n ?? 0);
  }
  return counts;
}

/** A lead of the org, written straight to the table (the leads endpoints are another module's). */
export async function insertLead(ctx: TestContext, orgId: string): Promise<string> {
  const id = randomUUID();
  await ctx.database.db.execute(
    sql`INSERT INTO leads (org_id, id, source, first_name) VALUES (${orgId}, ${id}, 'landing_page', 'Lee')`,
  );
  return id;
}
