import { randomUUID } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { apiKeys, organizations } from "../db/schema.ts";
import { generateApiKey, hashApiKey } from "../domain/api-key-format.ts";
import { invalidPayload, notFound } from "../errors.ts";

export interface Organization {
  org_id: string;
  org_name: string;
}

export interface IssuedKey {
  id: string;
  key: string;
  scopes: string[] | null;
  expires_at: string | null;
}

export async function createOrganization(
  db: Queryable,
  input: { name: string; billing_owner?: boolean },
): Promise<Organization> {
  // The name is shown to the contractor (whoami, the app): a blank one names nobody.
  const name = input.name.trim();
  if (!name) throw invalidPayload("name: must not be blank");
  const id = randomUUID();
  await db.insert(organizations).values({ id, name, billingOwner: input.billing_owner ?? true });
  return { org_id: id, org_name: name };
}

export interface OrganizationListing {
  org_id: string;
  org_name: string;
  billing_owner: boolean;
  created_at: string;
}

/**
 * Where the next page starts: the last organization's creation time in microseconds (the column's
 * full precision, which an ISO date would cut to milliseconds) and its id. Opaque to the caller.
 */
interface OrganizationCursor {
  micros: string;
  id: string;
}

const encodeCursor = (cursor: OrganizationCursor) =>
  Buffer.from(`${cursor.micros}.${cursor.id}`).toString("base64url");

function decodeCursor(raw: string): OrganizationCursor {
  const [micros, id, extra] = Buffer.from(raw, "base64url").toString("utf8").split(".");
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  if (extra !== undefined || !micros || !/^-?\d{1,20}$/.test(micros) || !id || !uuid.test(id)) {
    throw invalidPayload("cursor: is not a next_cursor this API returned");
  }
  return { micros, id };
}

/**
 * Organizations newest first, `limit` at a time. `next_cursor` (null on the last page) passed as
 * `cursor` gives the page after; an organization created meanwhile never shifts a page (keyset,
 * not offset).
 */
export async function listOrganizations(
  db: Queryable,
  page: { limit: number; cursor: string | undefined },
): Promise<{ orgs: OrganizationListing[]; next_cursor: string | null }> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  const micros = sql`(extract(epoch from created_at) * 1000000)::bigint`;
  const rows = await queryRows<{
    id: string;
    name: string;
    billing_owner: boolean;
    created_at: string | Date;
    micros: string;
  }>(
    db,
    sql`SELECT id, name, billing_owner, created_at, ${micros}::text AS micros FROM organizations
        ${after ? sql`WHERE (${micros}, id) < (${after.micros}::bigint, ${after.id}::uuid)` : sql``}
        ORDER BY ${micros} DESC, id DESC
        LIMIT ${page.limit + 1}`,
  );
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return {
    orgs: shown.map((row) => ({
      org_id: row.id,
      org_name: row.name,
      billing_owner: row.billing_owner,
      created_at: new Date(row.created_at).toISOString(),
    })),
    next_cursor: rows.length > page.limit && last ? encodeCursor({ micros: last.micros, id: last.id }) : null,
  };
}

export async function assertOrganizationExists(db: Queryable, orgId: string): Promise<void> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  if (!row) throw notFound("organization not found");
}

/**
 * Issues a key; the plain key is returned here only and stored as its SHA-256 hash. `demo` marks the
 * sample key a first start makes, which no one asked for (the first-run checklist leaves it out).
 */
export async function issueApiKey(
  db: Queryable,
  orgId: string,
  input: { name?: string; scopes?: string[] | null; expires_at?: string },
  now: Date,
  { demo = false }: { demo?: boolean } = {},
): Promise<IssuedKey> {
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  // A key dead on arrival is a typo in the date, not a wish.
  if (expiresAt && expiresAt.getTime() <= now.getTime())
    throw invalidPayload("expires_at: must be in the future");
  await assertOrganizationExists(db, orgId);
  const key = generateApiKey();
  const id = randomUUID();
  const scopes = input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)] : null;
  await db.insert(apiKeys).values({
    orgId,
    id,
    name: input.name ?? "",
    keyHash: hashApiKey(key),
    scopes,
    expiresAt,
    demo,
  });
  return { id, key, scopes, expires_at: expiresAt?.toISOString() ?? null };
}

/** Revokes a key; false when no live key has this id. */
export async function revokeApiKey(db: Queryable, keyId: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/** Revokes one of the org's keys; false when the org has no live key with this id. */
export async function revokeOrgKey(db: Queryable, orgId: string, keyId: string, at: Date): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE api_keys SET revoked_at = ${at.toISOString()}::timestamptz
        WHERE org_id = ${orgId}::uuid AND id::text = ${keyId} AND revoked_at IS NULL RETURNING id`,
  );
  return rows.length > 0;
}
