import type { TSchema } from "typebox";
import type { HubSpotAppConfig } from "../config.ts";
import { compiledSchema } from "../domain/compiled-schema.ts";
import { AppError } from "../errors.ts";
import { HubSpotAccessTokenInfo, HubSpotCrmObject, HubSpotTokenResponse } from "./hubspot-shapes.ts";

/** How long one call to HubSpot may take: a job holds a worker slot meanwhile. */
const TIMEOUT_MS = 10_000;

/**
 * HubSpot's answers as the one error type: `hubspot_unavailable` (no answer, 429, 5xx: retry later),
 * `hubspot_unauthorized` (401: the token is not valid), `hubspot_not_found` (404: the record is
 * gone) and `hubspot_refused` (any other 4xx, e.g. a refresh token HubSpot no longer accepts).
 */
export const HUBSPOT_UNAVAILABLE = "hubspot_unavailable";
export const HUBSPOT_UNAUTHORIZED = "hubspot_unauthorized";
export const HUBSPOT_NOT_FOUND = "hubspot_not_found";
export const HUBSPOT_REFUSED = "hubspot_refused";

export const isHubSpotError = (error: unknown, code: string) =>
  error instanceof AppError && error.code === code;

function answerError(status: number, what: string): AppError {
  if (status === 429 || status >= 500) {
    return new AppError(503, HUBSPOT_UNAVAILABLE, `HubSpot answered ${status} to ${what}`);
  }
  if (status === 401) return new AppError(502, HUBSPOT_UNAUTHORIZED, `HubSpot refused the token (${what})`);
  if (status === 404) return new AppError(502, HUBSPOT_NOT_FOUND, `HubSpot has no such record (${what})`);
  return new AppError(502, HUBSPOT_REFUSED, `HubSpot answered ${status} to ${what}`);
}

interface CallInit {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

async function call<T>(url: string, init: CallInit, schema: TSchema, what: string): Promise<T> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      ...init,
      headers: { accept: "application/json", ...init.headers },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    throw Object.assign(new AppError(503, HUBSPOT_UNAVAILABLE, `HubSpot did not answer ${what}`), {
      cause: error,
    });
  }
  if (!response.ok) throw answerError(response.status, what);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(503, HUBSPOT_UNAVAILABLE, `HubSpot's answer to ${what} is not JSON`);
  }
  if (!compiledSchema(schema).Check(body)) {
    throw new AppError(502, HUBSPOT_REFUSED, `HubSpot's answer to ${what} has an unexpected shape`);
  }
  return body as T;
}

export interface HubSpotTokens {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
}

const tokensOf = (answer: HubSpotTokenResponse): HubSpotTokens => ({
  accessToken: answer.access_token,
  refreshToken: answer.refresh_token,
  expiresInSeconds: answer.expires_in,
});

export type CrmObjectType = "deals" | "contacts" | "companies";

/** The calls Porchlight makes to HubSpot: OAuth (v1 token endpoints) and CRM v3 reads. */
export interface HubSpotApi {
  exchangeCode(code: string, redirectUri: string): Promise<HubSpotTokens>;
  refresh(refreshToken: string): Promise<HubSpotTokens>;
  /** The portal (hub_id) an access token belongs to, as decimal text. */
  portalOf(accessToken: string): Promise<string>;
  readObject(
    accessToken: string,
    type: CrmObjectType,
    id: string,
    options: { properties: readonly string[]; associations?: readonly CrmObjectType[] },
  ): Promise<HubSpotCrmObject>;
}

export function createHubSpotApi(config: HubSpotAppConfig): HubSpotApi {
  const tokenGrant = (fields: Record<string, string>, what: string) =>
    call<HubSpotTokenResponse>(
      `${config.apiUrl}/oauth/v1/token`,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded;charset=utf-8" },
        body: new URLSearchParams({
          ...fields,
          client_id: config.clientId,
          client_secret: config.clientSecret,
        }).toString(),
      },
      HubSpotTokenResponse,
      what,
    ).then(tokensOf);

  return {
    exchangeCode: (code, redirectUri) =>
      tokenGrant(
        { grant_type: "authorization_code", redirect_uri: redirectUri, code },
        "the authorization code exchange",
      ),
    refresh: (refreshToken) =>
      tokenGrant({ grant_type: "refresh_token", refresh_token: refreshToken }, "the token refresh"),
    async portalOf(accessToken) {
      const info = await call<HubSpotAccessTokenInfo>(
        `${config.apiUrl}/oauth/v1/access-tokens/${encodeURIComponent(accessToken)}`,
        { method: "GET" },
        HubSpotAccessTokenInfo,
        "the token information",
      );
      return String(info.hub_id);
    },
    readObject(accessToken, type, id, options) {
      if (!/^[0-9]{1,20}$/.test(id)) throw new AppError(422, "invalid_payload", "a HubSpot id is digits");
      const query = new URLSearchParams({ properties: options.properties.join(",") });
      if (options.associations?.length) query.set("associations", options.associations.join(","));
      return call<HubSpotCrmObject>(
        `${config.apiUrl}/crm/v3/objects/${type}/${id}?${query}`,
        { method: "GET", headers: { authorization: `Bearer ${accessToken}` } },
        HubSpotCrmObject,
        `the ${type} read`,
      );
    },
  };
}
