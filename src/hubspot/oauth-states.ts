import { createHash, randomBytes } from "node:crypto";
import { type Queryable, queryOne, sql } from "../db/database.ts";

/** How long an owner has to grant access in HubSpot before the connect must start again. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** A state is 32 random bytes, base64url: anything else is not one of ours. */
const STATE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (state: string) => createHash("sha256").update(state).digest("hex");

export interface StateOwner {
  orgId: string;
  sessionId: string;
  userId: string;
}

/**
 * A new OAuth `state` for a connect, bound to the session that asked. Only its hash is kept, so a
 * read of the table hands nobody a usable state. Expired states of every org go on the way.
 */
export async function createOAuthState(db: Queryable, owner: StateOwner, now: Date): Promise<string> {
  const state = randomBytes(32).toString("base64url");
  await db.execute(
    sql`DELETE FROM hubspot_oauth_states WHERE expires_at <= ${now.toISOString()}::timestamptz`,
  );
  await db.execute(
    sql`INSERT INTO hubspot_oauth_states (org_id, state_hash, session_id, user_id, expires_at, created_at)
        VALUES (${owner.orgId}::uuid, ${hashOf(state)}, ${owner.sessionId}, ${owner.userId},
                ${new Date(now.getTime() + OAUTH_STATE_TTL_MS).toISOString()}::timestamptz,
                ${now.toISOString()}::timestamptz)`,
  );
  return state;
}

/**
 * Takes the state back, once: it must be live and belong to this session. A replay, another
 * browser's state or an expired one answers undefined.
 */
export async function consumeOAuthState(
  db: Queryable,
  state: string,
  sessionId: string,
  now: Date,
): Promise<{ orgId: string; userId: string } | undefined> {
  if (!STATE_PATTERN.test(state)) return undefined;
  const row = await queryOne<{ org_id: string; user_id: string }>(
    db,
    sql`DELETE FROM hubspot_oauth_states
        WHERE state_hash = ${hashOf(state)} AND session_id = ${sessionId}
          AND expires_at > ${now.toISOString()}::timestamptz
        RETURNING org_id, user_id`,
  );
  return row ? { orgId: row.org_id, userId: row.user_id } : undefined;
}
