import type { Queryable } from "../db/database.ts";
import { queryOne, sql } from "../db/database.ts";

export interface ReturnAddress {
  street: string;
  city: string;
  state: string;
  postal_code: string;
}

/** The contractor's profile as the app edits it and cards and landing pages print it. */
export interface OrganizationProfile {
  org_id: string;
  /** The organization's name: the business name when none is set. */
  name: string;
  business_name: string | null;
  phone: string | null;
  website: string | null;
  return_address: ReturnAddress | null;
  brand_color: string | null;
  cost_per_card_cents: number | null;
  offer: string | null;
  has_logo: boolean;
  logo_updated_at: string | null;
}

export type ProfilePatch = Partial<
  Pick<
    OrganizationProfile,
    "business_name" | "phone" | "website" | "return_address" | "brand_color" | "cost_per_card_cents" | "offer"
  >
>;

interface ProfileRow {
  org_id: string;
  name: string;
  business_name: string | null;
  phone: string | null;
  website: string | null;
  return_street: string | null;
  return_city: string | null;
  return_state: string | null;
  return_postal_code: string | null;
  brand_color: string | null;
  cost_per_card_cents: number | null;
  offer: string | null;
  has_logo: boolean;
  logo_updated_at: Date | string | null;
}

export async function getOrganizationProfile(db: Queryable, orgId: string): Promise<OrganizationProfile> {
  const row = await queryOne<ProfileRow>(
    db,
    sql`SELECT o.id AS org_id, o.name, p.business_name, p.phone, p.website, p.return_street, p.return_city,
               p.return_state, p.return_postal_code, p.brand_color, p.cost_per_card_cents, p.offer,
               (p.logo_png IS NOT NULL) AS has_logo, p.logo_updated_at
        FROM organizations o LEFT JOIN organization_profiles p ON p.org_id = o.id
        WHERE o.id = ${orgId}::uuid`,
  );
  if (!row) throw new Error(`organization ${orgId} vanished`);
  return {
    org_id: row.org_id,
    name: row.name,
    business_name: row.business_name,
    phone: row.phone,
    website: row.website,
    return_address: row.return_street
      ? {
          street: row.return_street,
          city: row.return_city ?? "",
          state: row.return_state ?? "",
          postal_code: row.return_postal_code ?? "",
        }
      : null,
    brand_color: row.brand_color,
    cost_per_card_cents: row.cost_per_card_cents,
    offer: row.offer,
    has_logo: Boolean(row.has_logo),
    logo_updated_at: row.logo_updated_at ? new Date(row.logo_updated_at).toISOString() : null,
  };
}

const blankToNull = (value: string | null | undefined) => (value?.trim() ? value.trim() : null);

/** A state as cards print it: the USPS code in capitals ("il" and "IL." print "IL"). */
export const printedState = (state: string) => state.trim().toUpperCase().replace(/\.$/, "");

/**
 * The first change of the cost per card fixes what the cards mailed without a price of their own
 * count at (migration 0650): the cost until then, or the first one set. Later changes leave it.
 */
const UNPRICED_CARDS_KEEP_THEIR_COST = sql`unpriced_cards_cost_cents = CASE
        WHEN organization_profiles.unpriced_cards_cost_cents IS NULL
         AND organization_profiles.cost_per_card_cents IS DISTINCT FROM EXCLUDED.cost_per_card_cents
        THEN COALESCE(organization_profiles.cost_per_card_cents, EXCLUDED.cost_per_card_cents)
        ELSE organization_profiles.unpriced_cards_cost_cents END`;

/** Applies the fields present in `patch` (null or blank clears one). */
export async function updateOrganizationProfile(
  db: Queryable,
  orgId: string,
  patch: ProfilePatch,
  now: Date,
): Promise<OrganizationProfile> {
  const current = await getOrganizationProfile(db, orgId);
  const next = { ...current, ...patch };
  const address = next.return_address;
  await db.execute(sql`
    INSERT INTO organization_profiles (org_id, business_name, phone, website, return_street, return_city,
      return_state, return_postal_code, brand_color, cost_per_card_cents, unpriced_cards_cost_cents, offer, updated_at)
    VALUES (${orgId}::uuid, ${blankToNull(next.business_name)}, ${blankToNull(next.phone)}, ${blankToNull(next.website)},
      ${blankToNull(address?.street)}, ${blankToNull(address?.city)}, ${blankToNull(address && printedState(address.state))},
      ${blankToNull(address?.postal_code)}, ${blankToNull(next.brand_color)}, ${next.cost_per_card_cents},
      ${next.cost_per_card_cents}, ${blankToNull(next.offer)}, ${now.toISOString()}::timestamptz)
    ON CONFLICT (org_id) DO UPDATE SET business_name = EXCLUDED.business_name, phone = EXCLUDED.phone,
      website = EXCLUDED.website, return_street = EXCLUDED.return_street, return_city = EXCLUDED.return_city,
      return_state = EXCLUDED.return_state, return_postal_code = EXCLUDED.return_postal_code,
      brand_color = EXCLUDED.brand_color, cost_per_card_cents = EXCLUDED.cost_per_card_cents,
      ${UNPRICED_CARDS_KEEP_THEIR_COST}, offer = EXCLUDED.offer, updated_at = EXCLUDED.updated_at`);
  return getOrganizationProfile(db, orgId);
}

export async function saveOrganizationLogo(
  db: Queryable,
  orgId: string,
  png: Buffer,
  now: Date,
): Promise<void> {
  await db.execute(sql`
    INSERT INTO organization_profiles (org_id, logo_png, logo_updated_at, updated_at)
    VALUES (${orgId}::uuid, decode(${png.toString("base64")}, 'base64'), ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)
    ON CONFLICT (org_id) DO UPDATE SET logo_png = EXCLUDED.logo_png, logo_updated_at = EXCLUDED.logo_updated_at,
      updated_at = EXCLUDED.updated_at`);
}

/**
 * Removes the logo; true when there was one. Its time becomes the removal's: what a logo's version
 * keys (the printed logo's cache, proofs) changes with it.
 */
export async function removeOrganizationLogo(db: Queryable, orgId: string, now: Date): Promise<boolean> {
  const removed = await queryOne<{ org_id: string }>(
    db,
    sql`UPDATE organization_profiles
        SET logo_png = NULL, logo_updated_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
        WHERE org_id = ${orgId}::uuid AND logo_png IS NOT NULL RETURNING org_id`,
  );
  return removed !== undefined;
}

export async function findOrganizationLogo(db: Queryable, orgId: string): Promise<Buffer | undefined> {
  // Base64 in both directions: PGlite and node-postgres hand bytea parameters over differently.
  const row = await queryOne<{ logo: string | null }>(
    db,
    sql`SELECT encode(logo_png, 'base64') AS logo FROM organization_profiles WHERE org_id = ${orgId}::uuid`,
  );
  return row?.logo ? Buffer.from(row.logo, "base64") : undefined;
}
