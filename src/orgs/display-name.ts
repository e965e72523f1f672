import { type Queryable, queryOne, sql } from "../db/database.ts";

/**
 * The one rule for the name a homeowner or a member reads: the business name from the app's
 * Settings, else the organization's own name. Every card, landing page, thank-you and stop-mail
 * page, and every email (lead alert, cap notice, invitation, password reset) names the
 * organization through it, so none shows an internal name ("Demo Contractor") beside a card that
 * says "Ridgeline Roofing Co.".
 */
export function displayName(org: { name: string; business_name: string | null | undefined }): string {
  return org.business_name?.trim() || org.name;
}

/** The organization's display name; undefined when there is no such organization. */
export async function loadDisplayName(db: Queryable, orgId: string): Promise<string | undefined> {
  const row = await queryOne<{ name: string; business_name: string | null }>(
    db,
    sql`SELECT o.name, p.business_name FROM organizations o
        LEFT JOIN organization_profiles p ON p.org_id = o.id
        WHERE o.id = ${orgId}::uuid`,
  );
  return row ? displayName(row) : undefined;
}

/** The display name of the organization a user belongs to (their first, by joining time). */
export async function loadMemberDisplayName(db: Queryable, userId: string): Promise<string | undefined> {
  const row = await queryOne<{ org_id: string }>(
    db,
    sql`SELECT org_id::text FROM org_members WHERE user_id = ${userId} ORDER BY created_at, org_id LIMIT 1`,
  );
  return row ? loadDisplayName(db, row.org_id) : undefined;
}
