import { randomUUID } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
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

export async function assertOrganizationExists(db: Queryable, orgId: string): Promise<void> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, orgId));
  if (!row) throw notFound("organization not found");
}

/** Issues a key; the plain key is returned here only and stored as its SHA-256 hash. */
export async function issueApiKey(
  db: Queryable,
  orgId: string,
  input: { name?: string; scopes?: string[] | null; expires_at?: string },
  now: Date,
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
