import { randomUUID } from "node:crypto";
import { type Queryable, queryOne, sql } from "../db/database.ts";

/*
 * Leads captured elsewhere (the caller's CRM) and recorded by attribution as indirect leads
 * (source `crm_sync`), idempotent by their sync key.
 */

export interface SyncedLead {
  id: string;
  campaign_id: string;
  attribution_type: "direct" | "indirect";
}

export interface NewSyncedLead {
  orgId: string;
  campaignId: string;
  pieceId: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  fullAddress: string;
  normalizedAddress: string;
  point: { lat: number; lng: number } | undefined;
  crmRecordId: string | null;
  syncKey: string | null;
  createdAt: Date;
}

/** The lead a previous sync with this idempotency key created (the leads_sync_key index). */
export async function findSyncedLead(db: Queryable, orgId: string, syncKey: string) {
  return queryOne<SyncedLead>(
    db,
    sql`SELECT id, campaign_id, attribution_type FROM leads
        WHERE org_id = ${orgId}::uuid AND sync_key = ${syncKey}`,
  );
}

/**
 * The landing-page lead of the home a sync matched: the newest at its normalized address, else the
 * newest on the mailed piece it matched. The second catches a home the CRM writes with more or
 * less locality than the card (`77 Lake Shore Dr, 62704` against the piece's full address): the
 * match already took it for that home, so the sync is the same lead, not a second, indirect one.
 */
export async function findLandingPageLead(
  db: Queryable,
  orgId: string,
  normalizedAddress: string,
  pieceId: string | undefined,
) {
  const atAddress = await queryOne<{ id: string; campaign_id: string | null }>(
    db,
    sql`SELECT id, campaign_id FROM leads
        WHERE org_id = ${orgId}::uuid AND normalized_address = ${normalizedAddress}
          AND source = 'landing_page' AND normalized_address IS NOT NULL
        ORDER BY created_at DESC LIMIT 1`,
  );
  if (atAddress || !pieceId) return atAddress;
  return queryOne<{ id: string; campaign_id: string | null }>(
    db,
    sql`SELECT id, campaign_id FROM leads
        WHERE org_id = ${orgId}::uuid AND piece_id = ${pieceId}::uuid AND source = 'landing_page'
        ORDER BY created_at DESC LIMIT 1`,
  );
}

/**
 * Inserts an indirect lead; concurrent first syncs of one key meet at the sync-key index, and the
 * later ones answer the lead the first created (`inserted` false).
 */
export async function insertSyncedLead(
  db: Queryable,
  lead: NewSyncedLead,
): Promise<SyncedLead & { inserted: boolean }> {
  const row = await queryOne<SyncedLead & { inserted: boolean }>(
    db,
    sql`INSERT INTO leads (
          org_id, id, source, campaign_id, piece_id, first_name, last_name, email, phone, full_address,
          normalized_address, latitude, longitude, attribution_type, crm_record_id, sync_key, created_at)
        VALUES (
          ${lead.orgId}::uuid, ${randomUUID()}::uuid, 'crm_sync', ${lead.campaignId}::uuid, ${lead.pieceId}::uuid,
          ${lead.firstName}, ${lead.lastName}, ${lead.email}, ${lead.phone}, ${lead.fullAddress},
          ${lead.normalizedAddress}, ${lead.point?.lat ?? null}::float8, ${lead.point?.lng ?? null}::float8,
          'indirect', ${lead.crmRecordId}, ${lead.syncKey}, ${lead.createdAt.toISOString()}::timestamptz)
        ON CONFLICT (org_id, sync_key) WHERE sync_key IS NOT NULL
        DO UPDATE SET sync_key = leads.sync_key
        RETURNING id, campaign_id, attribution_type, (xmax = 0) AS inserted`,
  );
  return row!;
}
