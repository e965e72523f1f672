import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { createExpiringCache } from "../db/expiring-cache.ts";
import { hashApiKey, isMistypedApiKey, isWellFormedApiKey } from "../domain/api-key-format.ts";
import type { AuthContext, KeyLookup } from "../domain/auth-context.ts";

interface KeyRecord extends AuthContext {
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** How long a key lookup is trusted: the bound on revocation across instances. */
export const KEY_CACHE_TTL_MS = 5_000;
const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_CACHED_KEYS = 50_000;

export interface KeyStore {
  /** Throws when the database cannot be reached (the caller answers auth_unavailable). */
  authenticate(presentedKey: string): Promise<KeyLookup>;
  /**
   * The lookup when the key's answer is cached (no database query, none awaited), else undefined.
   * Not recorded as a use: the caller records it (`recordUse`) once it lets the request in.
   */
  cachedLookup(presentedKey: string): KeyLookup | undefined;
  /** Notes a use of the key (`last_used_at`, written at most once a minute). */
  recordUse(auth: AuthContext): void;
  /** Drops cached lookups (used after a revocation in this process). */
  forget(): void;
}

export function createKeyStore(deps: { db: Queryable; clock: Clock; logger: Logger }): KeyStore {
  const cache = createExpiringCache<KeyRecord | null>({
    clock: deps.clock,
    ttlMs: KEY_CACHE_TTL_MS,
    maxEntries: MAX_CACHED_KEYS,
  });
  const lastUsedWritten = new Map<string, number>();

  async function load(hash: string): Promise<KeyRecord | null> {
    const row = await queryOne<{
      key_id: string;
      org_id: string;
      org_name: string;
      billing_owner: boolean;
      scopes: string[] | null;
      expires_at: Date | string | null;
      revoked_at: Date | string | null;
    }>(
      deps.db,
      sql`SELECT k.id AS key_id, k.org_id, o.name AS org_name, o.billing_owner, k.scopes, k.expires_at, k.revoked_at
          FROM api_keys k JOIN organizations o ON o.id = k.org_id
          WHERE k.key_hash = ${hash}`,
    );
    if (!row) return null;
    return {
      keyId: row.key_id,
      orgId: row.org_id,
      orgName: row.org_name,
      billingOwner: row.billing_owner,
      scopes: row.scopes && row.scopes.length > 0 ? row.scopes : null,
      expiresAt: row.expires_at ? new Date(row.expires_at) : null,
      revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
    };
  }

  function touch(key: Pick<AuthContext, "keyId" | "orgId">, now: number) {
    const previous = lastUsedWritten.get(key.keyId) ?? 0;
    if (now - previous < LAST_USED_RESOLUTION_MS) return;
    lastUsedWritten.set(key.keyId, now);
    deps.db
      .execute(
        sql`UPDATE api_keys SET last_used_at = ${new Date(now)} WHERE org_id = ${key.orgId} AND id = ${key.keyId}`,
      )
      .catch((error: unknown) => deps.logger.warn({ err: error }, "could not record key use"));
  }

  function lookupOf(record: KeyRecord | null, now: number): KeyLookup {
    if (!record || record.revokedAt || (record.expiresAt && record.expiresAt.getTime() <= now)) {
      return { status: "invalid" };
    }
    const { expiresAt: _expires, revokedAt: _revoked, ...auth } = record;
    return { status: "valid", auth };
  }

  return {
    async authenticate(presentedKey) {
      const hash = hashApiKey(presentedKey);
      const now = deps.clock.now().getTime();
      const cached = cache.cached(hash);
      // Checked only before a lookup: a cached hash belongs to a key that passed this check, and
      // a malformed key never takes a place in the cache.
      if (!cached && !isWellFormedApiKey(presentedKey)) {
        return { status: isMistypedApiKey(presentedKey) ? "mistyped" : "invalid" };
      }
      const lookup = lookupOf(await (cached ?? cache.get(hash, () => load(hash))), now);
      if (lookup.status === "valid") touch(lookup.auth, now);
      return lookup;
    },
    cachedLookup(presentedKey) {
      const settled = cache.settled(hashApiKey(presentedKey));
      return settled && lookupOf(settled.value, deps.clock.now().getTime());
    },
    recordUse(auth) {
      touch(auth, deps.clock.now().getTime());
    },
    forget() {
      cache.clear();
    },
  };
}
