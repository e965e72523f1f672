import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { AppError } from "../errors.ts";
import { markNeedsReconnect, readConnection, replaceTokens, type StoredConnection } from "./connections.ts";
import {
  HUBSPOT_REFUSED,
  HUBSPOT_UNAUTHORIZED,
  type HubSpotApi,
  type HubSpotTokens,
  isHubSpotError,
} from "./hubspot-api.ts";
import type { TokenCipher } from "./token-cipher.ts";

/** An access token this close to its expiry is refreshed before use (HubSpot's live 30 minutes). */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;

export interface HubSpotAccessDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  api: HubSpotApi;
  cipher: TokenCipher;
}

/** The org has no usable connection: never connected, disconnected, or HubSpot refused its refresh token. */
export const notConnected = () =>
  new AppError(409, "hubspot_not_connected", "HubSpot is not connected (or must be reconnected)");

/** Seals fresh tokens for storage, with their expiry read from `now`. */
export function sealTokens(cipher: TokenCipher, tokens: HubSpotTokens, now: Date) {
  return {
    accessTokenSealed: cipher.seal(tokens.accessToken),
    refreshTokenSealed: cipher.seal(tokens.refreshToken),
    accessTokenExpiresAt: new Date(now.getTime() + tokens.expiresInSeconds * 1000),
  };
}

async function usableConnection(deps: HubSpotAccessDeps, orgId: string): Promise<StoredConnection> {
  const connection = await readConnection(deps.db, orgId);
  if (!connection || connection.needsReconnectSince) throw notConnected();
  return connection;
}

/** A key that no longer opens the tokens (AUTH_SECRET changed) is a reconnect, like a refused refresh. */
async function opened(deps: HubSpotAccessDeps, orgId: string, sealed: string): Promise<string> {
  const plain = deps.cipher.open(sealed);
  if (plain !== undefined) return plain;
  deps.logger.warn({ orgId }, "HubSpot tokens cannot be opened with this key; the owner must reconnect");
  await markNeedsReconnect(deps.db, orgId, deps.clock.now());
  throw notConnected();
}

/**
 * Trades the refresh token for a new access token and stores both. Two workers refreshing at once
 * both get valid tokens from HubSpot; only the first stores its own, the other reads it back.
 */
async function refresh(deps: HubSpotAccessDeps, connection: StoredConnection): Promise<string> {
  const refreshToken = await opened(deps, connection.orgId, connection.refreshTokenSealed);
  let tokens: HubSpotTokens;
  try {
    tokens = await deps.api.refresh(refreshToken);
  } catch (error) {
    if (isHubSpotError(error, HUBSPOT_REFUSED) || isHubSpotError(error, HUBSPOT_UNAUTHORIZED)) {
      deps.logger.warn({ orgId: connection.orgId }, "HubSpot refused the refresh token; reconnect needed");
      await markNeedsReconnect(deps.db, connection.orgId, deps.clock.now());
      throw notConnected();
    }
    throw error;
  }
  const now = deps.clock.now();
  const sealed = sealTokens(deps.cipher, tokens, now);
  const stored = await replaceTokens(deps.db, connection.orgId, connection.accessTokenExpiresAt, sealed, now);
  if (stored) return tokens.accessToken;
  const newer = await usableConnection(deps, connection.orgId);
  return opened(deps, connection.orgId, newer.accessTokenSealed);
}

/** A live access token: the stored one, refreshed first when it expires within REFRESH_MARGIN_MS. */
export async function accessTokenFor(deps: HubSpotAccessDeps, orgId: string): Promise<string> {
  const connection = await usableConnection(deps, orgId);
  const expiresInMs = connection.accessTokenExpiresAt.getTime() - deps.clock.now().getTime();
  if (expiresInMs > REFRESH_MARGIN_MS) return opened(deps, orgId, connection.accessTokenSealed);
  return refresh(deps, connection);
}

/**
 * Runs `call` with a live access token; a token HubSpot refuses anyway (revoked early) is
 * refreshed once and the call tried again.
 */
export async function withAccessToken<T>(
  deps: HubSpotAccessDeps,
  orgId: string,
  call: (accessToken: string) => Promise<T>,
): Promise<T> {
  try {
    return await call(await accessTokenFor(deps, orgId));
  } catch (error) {
    if (!isHubSpotError(error, HUBSPOT_UNAUTHORIZED)) throw error;
    return call(await refresh(deps, await usableConnection(deps, orgId)));
  }
}
