import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";

/*
 * hubspot_connections: an organization's connected portal, its sealed tokens and the owner's
 * choices. One portal per organization and one organization per portal (a unique index), so a
 * webhook's portalId names exactly one organization.
 */

/** The deal stage HubSpot's default pipeline calls won; an owner may name others. */
export const DEFAULT_WON_STAGES = ["closedwon"];

export interface StoredConnection {
  orgId: string;
  portalId: string;
  accessTokenSealed: string;
  refreshTokenSealed: string;
  accessTokenExpiresAt: Date;
  wonStages: string[];
  connectedAt: Date;
  lastEventAt: Date | null;
  needsReconnectSince: Date | null;
}

interface ConnectionRow {
  org_id: string;
  portal_id: string;
  access_token_sealed: string;
  refresh_token_sealed: string;
  access_token_expires_at: Date | string;
  won_stages: string[];
  connected_at: Date | string;
  last_event_at: Date | string | null;
  needs_reconnect_since: Date | string | null;
}

const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));

const toConnection = (row: ConnectionRow): StoredConnection => ({
  orgId: row.org_id,
  portalId: row.portal_id,
  accessTokenSealed: row.access_token_sealed,
  refreshTokenSealed: row.refresh_token_sealed,
  accessTokenExpiresAt: new Date(row.access_token_expires_at),
  wonStages: row.won_stages,
  connectedAt: new Date(row.connected_at),
  lastEventAt: dateOrNull(row.last_event_at),
  needsReconnectSince: dateOrNull(row.needs_reconnect_since),
});

export async function readConnection(db: Queryable, orgId: string): Promise<StoredConnection | undefined> {
  const row = await queryOne<ConnectionRow>(
    db,
    sql`SELECT * FROM hubspot_connections WHERE org_id = ${orgId}::uuid`,
  );
  return row ? toConnection(row) : undefined;
}

export interface SealedTokens {
  accessTokenSealed: string;
  refreshTokenSealed: string;
  accessTokenExpiresAt: Date;
}

/**
 * Connects (or reconnects) the org to a portal. A portal another organization has connected is
 * refused ("portal_taken"); reconnecting keeps the won stages, and the last event time when the
 * portal is the same one.
 */
export async function saveConnection(
  db: Queryable,
  input: SealedTokens & { orgId: string; portalId: string; connectedBy: string; now: Date },
): Promise<"connected" | "portal_taken"> {
  const now = input.now.toISOString();
  const row = await queryOne<{ org_id: string }>(
    db,
    sql`INSERT INTO hubspot_connections (
          org_id, portal_id, access_token_sealed, refresh_token_sealed, access_token_expires_at,
          connected_by, connected_at, updated_at)
        SELECT ${input.orgId}::uuid, ${input.portalId}, ${input.accessTokenSealed}, ${input.refreshTokenSealed},
               ${input.accessTokenExpiresAt.toISOString()}::timestamptz, ${input.connectedBy},
               ${now}::timestamptz, ${now}::timestamptz
        WHERE NOT EXISTS (SELECT 1 FROM hubspot_connections
                          WHERE portal_id = ${input.portalId} AND org_id <> ${input.orgId}::uuid)
        ON CONFLICT (org_id) DO UPDATE SET
          portal_id = EXCLUDED.portal_id,
          access_token_sealed = EXCLUDED.access_token_sealed,
          refresh_token_sealed = EXCLUDED.refresh_token_sealed,
          access_token_expires_at = EXCLUDED.access_token_expires_at,
          connected_by = EXCLUDED.connected_by,
          connected_at = EXCLUDED.connected_at,
          last_event_at = CASE WHEN hubspot_connections.portal_id = EXCLUDED.portal_id
                               THEN hubspot_connections.last_event_at END,
          needs_reconnect_since = NULL,
          updated_at = EXCLUDED.updated_at
        RETURNING org_id`,
  );
  return row ? "connected" : "portal_taken";
}

/**
 * Stores refreshed tokens unless another worker refreshed first (the expiry it read has changed):
 * false then, and the caller reads the newer tokens.
 */
export async function replaceTokens(
  db: Queryable,
  orgId: string,
  readExpiry: Date,
  tokens: SealedTokens,
  now: Date,
): Promise<boolean> {
  const rows = await queryRows<{ org_id: string }>(
    db,
    sql`UPDATE hubspot_connections SET
          access_token_sealed = ${tokens.accessTokenSealed},
          refresh_token_sealed = ${tokens.refreshTokenSealed},
          access_token_expires_at = ${tokens.accessTokenExpiresAt.toISOString()}::timestamptz,
          updated_at = ${now.toISOString()}::timestamptz
        WHERE org_id = ${orgId}::uuid AND access_token_expires_at = ${readExpiry.toISOString()}::timestamptz
        RETURNING org_id`,
  );
  return rows.length > 0;
}

/** HubSpot no longer accepts the refresh token (the app was uninstalled): the owner reconnects. */
export async function markNeedsReconnect(db: Queryable, orgId: string, now: Date): Promise<void> {
  await db.execute(
    sql`UPDATE hubspot_connections
        SET needs_reconnect_since = COALESCE(needs_reconnect_since, ${now.toISOString()}::timestamptz),
            updated_at = ${now.toISOString()}::timestamptz
        WHERE org_id = ${orgId}::uuid`,
  );
}

export async function setWonStages(
  db: Queryable,
  orgId: string,
  stages: readonly string[],
  now: Date,
): Promise<boolean> {
  const rows = await queryRows<{ org_id: string }>(
    db,
    sql`UPDATE hubspot_connections
        SET won_stages = ${sql.param([...new Set(stages)])}::text[], updated_at = ${now.toISOString()}::timestamptz
        WHERE org_id = ${orgId}::uuid RETURNING org_id`,
  );
  return rows.length > 0;
}

export async function deleteConnection(db: Queryable, orgId: string): Promise<boolean> {
  const rows = await queryRows<{ org_id: string }>(
    db,
    sql`DELETE FROM hubspot_connections WHERE org_id = ${orgId}::uuid RETURNING org_id`,
  );
  return rows.length > 0;
}

/** The organizations connected to these portals, by portal id. */
export async function orgsOfPortals(
  db: Queryable,
  portalIds: readonly string[],
): Promise<Map<string, string>> {
  if (portalIds.length === 0) return new Map();
  const rows = await queryRows<{ org_id: string; portal_id: string }>(
    db,
    sql`SELECT org_id, portal_id FROM hubspot_connections
        WHERE portal_id = ANY(${sql.param([...portalIds])}::text[])`,
  );
  return new Map(rows.map((row) => [row.portal_id, row.org_id]));
}

export async function recordEventReceived(db: Queryable, orgId: string, at: Date): Promise<void> {
  await db.execute(
    sql`UPDATE hubspot_connections
        SET last_event_at = GREATEST(last_event_at, ${at.toISOString()}::timestamptz)
        WHERE org_id = ${orgId}::uuid`,
  );
}
