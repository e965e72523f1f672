import { asc, eq } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { connections } from "../db/schema.ts";

/** The hidden connection events arrive through; created lazily by the first valid live event. */
export const CUSTOM_PROVIDER = "custom";

export async function ensureCustomConnection(
  deps: { db: Queryable; clock: Clock },
  orgId: string,
): Promise<void> {
  await deps.db
    .insert(connections)
    .values({ orgId, provider: CUSTOM_PROVIDER, createdAt: deps.clock.now() })
    .onConflictDoNothing({ target: [connections.orgId, connections.provider] });
}

export async function listConnections(db: Queryable, orgId: string) {
  const rows = await db
    .select()
    .from(connections)
    .where(eq(connections.orgId, orgId))
    .orderBy(asc(connections.createdAt), asc(connections.provider));
  return rows.map((row) => ({ provider: row.provider, created_at: row.createdAt.toISOString() }));
}
