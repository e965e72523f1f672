import { type Queryable, queryRows, sql } from "../db/database.ts";
import { namesAPlace, normalizeAddress } from "../domain/address.ts";
import { isOwnLead } from "../leads/loop-guard.ts";
import {
  findLandingPageLead,
  findSyncedLead,
  insertSyncedLead,
  type SyncedLead,
} from "../leads/synced-leads.ts";
import type { AttributionDeps } from "./deps.ts";
import { locateForMatching, matchMailedPiece } from "./matching.ts";
import {
  flatThenProperties,
  noAddressFound,
  type Payload,
  readAddressLine,
  readDate,
  readText,
} from "./payload-fields.ts";
import { attributionWindow, parseReferenceDate, type ReferenceDate, referenceNow } from "./window.ts";

type OptionalText = string | null | undefined;

/** A lead captured elsewhere (the caller's CRM); every field is optional text, null meaning absent. */
export interface TrackingLeadInput {
  address?: OptionalText;
  first_name?: OptionalText;
  last_name?: OptionalText;
  email?: OptionalText;
  phone?: OptionalText;
  crm_record_id?: OptionalText;
  created_at?: OptionalText;
  service_lead_id?: OptionalText;
  /** created_at as the HTTP route read it (ISO-8601 or epoch), the detail of a 422 naming its path. */
  reference?: ReferenceDate | undefined;
}

export type TrackingLeadResult =
  | { matched: false }
  | { matched: false; reason: "loop_guard" }
  | {
      matched: true;
      duplicate: boolean;
      lead_id: string;
      campaign_id: string;
      attribution_type: "direct" | "indirect";
    };

/**
 * Where the HTTP body's lead fields are read, flat first, then under `properties` (first hit
 * wins): the spec's names, then HubSpot's contact properties.
 */
export const TRACKING_LEAD_ALIASES = {
  first_name: flatThenProperties("first_name", "firstname"),
  last_name: flatThenProperties("last_name", "lastname"),
  email: flatThenProperties("email"),
  phone: flatThenProperties("phone", "mobilephone"),
  crm_record_id: flatThenProperties("crm_record_id", "hs_object_id"),
  created_at: flatThenProperties("created_at"),
  service_lead_id: flatThenProperties("service_lead_id"),
} as const;

/** The HTTP body's lead: the address read as on conversions (its city, state and zip sent apart). */
export function readTrackingLead(payload: Payload): TrackingLeadInput {
  const read = (aliases: readonly string[]) => readText(payload, aliases);
  return {
    address: readAddressLine(payload),
    first_name: read(TRACKING_LEAD_ALIASES.first_name),
    last_name: read(TRACKING_LEAD_ALIASES.last_name),
    email: read(TRACKING_LEAD_ALIASES.email),
    phone: read(TRACKING_LEAD_ALIASES.phone),
    crm_record_id: read(TRACKING_LEAD_ALIASES.crm_record_id),
    reference: readDate(payload, TRACKING_LEAD_ALIASES.created_at),
    service_lead_id: read(TRACKING_LEAD_ALIASES.service_lead_id),
  };
}

const present = (value: OptionalText) => (value && value.trim() !== "" ? value.trim() : undefined);

/** Phone numbers compare by their digits; a leading US country code is dropped. */
export function phoneKey(phone: string): string | undefined {
  const digits = phone.replace(/\D/g, "");
  if (digits.length === 0) return undefined;
  return digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits;
}

/**
 * The idempotency key of a synced lead: its CRM record id, else its email, else its phone. A lead
 * with none of them has no key and always stays distinct.
 */
export function syncKeyOf(input: TrackingLeadInput): string | undefined {
  const crmRecordId = present(input.crm_record_id);
  if (crmRecordId) return `crm:${crmRecordId}`;
  const email = present(input.email);
  if (email) return `email:${email.toLowerCase()}`;
  const phone = present(input.phone);
  const digits = phone ? phoneKey(phone) : undefined;
  return digits ? `phone:${digits}` : undefined;
}

/**
 * Records a lead captured elsewhere as an indirect lead (source `crm_sync`) against the mailed
 * campaign that matches its address. Used by POST /api/v1/tracking/lead and by contact events.
 * Loop guard first (nothing written), then a replay of a known key answers the lead it created,
 * then matching (unmatched: nothing written), then collapse onto a landing-page lead at the same
 * address or on the matched piece (left untouched), then an idempotent insert (concurrent first syncs meet there).
 * Synced leads are never delivered outbound: delivery and polling read landing-page leads only.
 */
export async function recordTrackingLead(
  deps: AttributionDeps,
  orgId: string,
  input: TrackingLeadInput,
): Promise<TrackingLeadResult> {
  if (await isOwnLead(deps.db, orgId, present(input.service_lead_id)))
    return { matched: false, reason: "loop_guard" };
  const address = present(input.address);
  const normalizedAddress = address ? normalizeAddress(address) : "";
  if (!address || !namesAPlace(normalizedAddress)) throw noAddressFound();
  const createdAt = present(input.created_at);
  const reference =
    input.reference ??
    (createdAt ? parseReferenceDate(createdAt, "created_at") : referenceNow(deps.clock.now()));
  const syncKey = syncKeyOf(input);
  // Before the collapse: a landing-page lead captured since the first sync must not turn the
  // replay into a second answer (and leave the first lead beside it).
  const synced = syncKey ? await findSyncedLead(deps.db, orgId, syncKey) : undefined;
  if (synced) return matchedLead(synced, true);

  const point = await locateForMatching(deps.geocoder, address, deps.logger);
  const match = await matchMailedPiece(
    deps.db,
    { orgId, normalizedAddress, point, campaignId: undefined, window: attributionWindow(reference) },
    deps.geoRadiusMeters,
  );
  if (!match) return { matched: false };

  // The matched piece's own lead too, when the match is this home (never a campaign's other home).
  const direct = await findLandingPageLead(
    deps.db,
    orgId,
    normalizedAddress,
    match.sameHome ? match.pieceId : undefined,
  );
  if (direct) {
    return {
      matched: true,
      duplicate: true,
      lead_id: direct.id,
      campaign_id: direct.campaign_id ?? match.campaignId,
      attribution_type: "direct",
    };
  }

  const row = await insertSyncedLead(deps.db, {
    orgId,
    campaignId: match.campaignId,
    pieceId: match.pieceId,
    firstName: present(input.first_name) ?? "",
    lastName: present(input.last_name) ?? "",
    email: present(input.email) ?? "",
    phone: present(input.phone) ?? "",
    fullAddress: address,
    normalizedAddress,
    point,
    crmRecordId: present(input.crm_record_id) ?? null,
    syncKey: syncKey ?? null,
    createdAt: reference.at,
  });
  return matchedLead(row, !row.inserted);
}

const matchedLead = (lead: SyncedLead, duplicate: boolean): TrackingLeadResult => ({
  matched: true,
  duplicate,
  lead_id: lead.id,
  campaign_id: lead.campaign_id,
  attribution_type: lead.attribution_type,
});

export interface LeadView {
  id: string;
  source: string;
  campaign_id: string | null;
  piece_id: string | null;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  full_address: string;
  normalized_address: string | null;
  attribution_type: string | null;
  crm_record_id: string | null;
  created_at: string;
}

/** The org's leads of every source, newest first (operator API). */
export async function listLeads(db: Queryable, orgId: string, limit: number): Promise<LeadView[]> {
  const rows = await queryRows<Omit<LeadView, "created_at"> & { created_at: Date | string }>(
    db,
    sql`SELECT id, source, campaign_id, piece_id, first_name, last_name, email, phone, full_address,
               normalized_address, attribution_type, crm_record_id, created_at
        FROM leads WHERE org_id = ${orgId}::uuid ORDER BY created_at DESC, id LIMIT ${limit}`,
  );
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));
}

/** The event service's contact attribution (a contact event is a synced lead), bound to its deps. */
export const attributeContactWith =
  (deps: AttributionDeps) =>
  async (orgId: string, input: TrackingLeadInput): Promise<void> => {
    await recordTrackingLead(deps, orgId, input);
  };
