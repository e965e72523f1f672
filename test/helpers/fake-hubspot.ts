/**
 * HubSpot on loopback, answering exactly the documented shapes Porchlight uses (docs/hubspot.md
 * cites each page): the consent page (`/oauth/authorize`, which sends the browser back with a code
 * and the state), the v1 token endpoint (authorization_code and refresh_token grants, form
 * encoded, answering `{token_type, refresh_token, access_token, expires_in}`), the token
 * information (`/oauth/v1/access-tokens/{token}` with `hub_id`), and CRM v3 object reads
 * (`/crm/v3/objects/{type}/{id}?properties=…&associations=…`) with bearer tokens. Every call is
 * recorded for the tests to read.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { HubSpotAppConfig } from "../../src/config.ts";

export interface FakeRecord {
  properties: Record<string, string>;
  /** Associated contacts' and companies' ids (deals only). */
  contacts?: string[];
  companies?: string[];
}

export interface RecordedCall {
  method: string;
  path: string;
  /** The token grant of a POST /oauth/v1/token. */
  grant?: string;
  /** The bearer token of a CRM read. */
  bearer?: string;
}

export interface FakeHubSpot {
  /** The HubSpot app configuration pointing at this fake. */
  config: HubSpotAppConfig;
  portalId: number;
  contacts: Map<string, FakeRecord>;
  companies: Map<string, FakeRecord>;
  deals: Map<string, FakeRecord>;
  calls: RecordedCall[];
  /** Access tokens this fake issued, oldest first. */
  issuedAccessTokens: string[];
  /**
   * What the consent page does when the owner grants access: the callback URL HubSpot sends the
   * browser to (redirect_uri with `code` and `state`), for an authorize URL Porchlight built.
   */
  grant(authorizeUrl: string): string;
  /** HubSpot forgets every refresh token (the app was uninstalled). */
  revokeRefreshTokens(): void;
  /** The next CRM reads answer 503 (HubSpot down). */
  failCrmReads(count: number): void;
  close(): Promise<void>;
}

const TOKEN_LIFETIME_SECONDS = 1800;
const OBJECT_TYPES = ["contacts", "companies", "deals"] as const;
const ASSOCIATION_TYPE: Record<string, string> = {
  contacts: "deal_to_contact",
  companies: "deal_to_company",
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json;charset=utf-8" });
  response.end(JSON.stringify(body));
}

/** HubSpot's error body (its API reference's common error shape). */
const hubspotError = (message: string, category: string) => ({
  status: "error",
  message,
  correlationId: randomBytes(8).toString("hex"),
  category,
});

export async function startFakeHubSpot(options: { portalId?: number } = {}): Promise<FakeHubSpot> {
  const portalId = options.portalId ?? 62_515;
  const clientId = `client-${randomBytes(4).toString("hex")}`;
  const clientSecret = `secret-${randomBytes(16).toString("hex")}`;
  const codes = new Map<string, string>();
  const refreshTokens = new Set<string>();
  const accessTokens = new Set<string>();
  const fake = {
    portalId,
    contacts: new Map<string, FakeRecord>(),
    companies: new Map<string, FakeRecord>(),
    deals: new Map<string, FakeRecord>(),
    calls: [] as RecordedCall[],
    issuedAccessTokens: [] as string[],
  };
  let failingCrmReads = 0;

  const issueTokens = (refreshToken = `na1-${randomBytes(12).toString("hex")}`) => {
    const accessToken = `CKD${randomBytes(24).toString("base64url")}`;
    accessTokens.add(accessToken);
    refreshTokens.add(refreshToken);
    fake.issuedAccessTokens.push(accessToken);
    return {
      token_type: "bearer",
      refresh_token: refreshToken,
      access_token: accessToken,
      expires_in: TOKEN_LIFETIME_SECONDS,
    };
  };

  function token(response: ServerResponse, form: URLSearchParams) {
    if (form.get("client_id") !== clientId || form.get("client_secret") !== clientSecret) {
      return json(response, 400, hubspotError("missing or unknown client id", "BAD_CLIENT_ID"));
    }
    if (form.get("grant_type") === "authorization_code") {
      const code = form.get("code") ?? "";
      const redirectUri = codes.get(code);
      codes.delete(code);
      if (!redirectUri || redirectUri !== form.get("redirect_uri")) {
        return json(response, 400, hubspotError("missing or unknown auth code", "BAD_AUTH_CODE"));
      }
      return json(response, 200, issueTokens());
    }
    if (form.get("grant_type") === "refresh_token") {
      const refreshToken = form.get("refresh_token") ?? "";
      if (!refreshTokens.has(refreshToken)) {
        return json(response, 400, hubspotError("missing or invalid refresh token", "BAD_REFRESH_TOKEN"));
      }
      return json(response, 200, issueTokens(refreshToken));
    }
    return json(response, 400, hubspotError("unknown grant type", "BAD_GRANT_TYPE"));
  }

  function tokenInfo(response: ServerResponse, accessToken: string) {
    if (!accessTokens.has(accessToken)) {
      return json(response, 404, hubspotError("access token not found", "OBJECT_NOT_FOUND"));
    }
    json(response, 200, {
      token: accessToken,
      user: "owner@portal.example",
      hub_domain: "portal.example",
      scopes: ["oauth", "crm.objects.contacts.read", "crm.objects.deals.read", "crm.objects.companies.read"],
      hub_id: portalId,
      app_id: 456_789,
      expires_in: TOKEN_LIFETIME_SECONDS,
      user_id: 123_456,
      token_type: "access",
    });
  }

  function crmObject(
    response: ServerResponse,
    type: (typeof OBJECT_TYPES)[number],
    id: string,
    query: URLSearchParams,
  ) {
    if (failingCrmReads > 0) {
      failingCrmReads--;
      return json(response, 503, hubspotError("service unavailable", "SERVICE_UNAVAILABLE"));
    }
    const record = fake[type].get(id);
    if (!record) return json(response, 404, hubspotError("resource not found", "OBJECT_NOT_FOUND"));
    const wanted = (query.get("properties") ?? "").split(",").filter(Boolean);
    const properties: Record<string, string | null> = {
      hs_object_id: id,
      createdate: "2026-11-01T10:00:00.000Z",
      lastmodifieddate: "2026-11-20T10:00:00.000Z",
    };
    for (const name of wanted) properties[name] = record.properties[name] ?? null;
    const associations: Record<string, { results: { id: string; type: string }[] }> = {};
    for (const kind of (query.get("associations") ?? "").split(",").filter(Boolean)) {
      const ids = kind === "contacts" ? record.contacts : kind === "companies" ? record.companies : undefined;
      if (ids?.length) {
        associations[kind] = { results: ids.map((each) => ({ id: each, type: ASSOCIATION_TYPE[kind]! })) };
      }
    }
    json(response, 200, {
      id,
      properties,
      createdAt: "2026-11-01T10:00:00.000Z",
      updatedAt: "2026-11-20T10:00:00.000Z",
      archived: false,
      ...(Object.keys(associations).length > 0 ? { associations } : {}),
    });
  }

  /** The owner granted access: the app's redirect_uri with a fresh code and the state it was given. */
  function callbackFor(query: URLSearchParams): string {
    const redirectUri = query.get("redirect_uri") ?? "";
    const code = `code-${randomBytes(12).toString("hex")}`;
    codes.set(code, redirectUri);
    const back = new URL(redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", query.get("state") ?? "");
    return back.toString();
  }

  /** The consent page, granted at once. */
  function authorize(response: ServerResponse, query: URLSearchParams) {
    if (query.get("client_id") !== clientId || !query.get("redirect_uri")) {
      response.writeHead(400, { "content-type": "text/plain" });
      return response.end("unknown app");
    }
    response.writeHead(302, { location: callbackFor(query) });
    response.end();
  }

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://fake-hubspot");
    const call: RecordedCall = { method: request.method ?? "GET", path: url.pathname };
    fake.calls.push(call);
    if (request.method === "GET" && url.pathname === "/oauth/authorize")
      return authorize(response, url.searchParams);
    if (request.method === "POST" && url.pathname === "/oauth/v1/token") {
      const form = new URLSearchParams(await readBody(request));
      call.grant = form.get("grant_type") ?? "";
      return token(response, form);
    }
    const info = url.pathname.match(/^\/oauth\/v1\/access-tokens\/(.+)$/);
    if (request.method === "GET" && info) return tokenInfo(response, decodeURIComponent(info[1]!));
    const object = url.pathname.match(/^\/crm\/v3\/objects\/(contacts|companies|deals)\/([0-9]+)$/);
    if (request.method === "GET" && object) {
      const bearer = request.headers.authorization?.replace(/^Bearer /, "") ?? "";
      call.bearer = bearer;
      if (!accessTokens.has(bearer)) {
        return json(
          response,
          401,
          hubspotError("Authentication credentials not found", "INVALID_AUTHENTICATION"),
        );
      }
      return crmObject(response, object[1] as (typeof OBJECT_TYPES)[number], object[2]!, url.searchParams);
    }
    json(response, 404, hubspotError("no such endpoint", "NOT_FOUND"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    ...fake,
    config: { clientId, clientSecret, apiUrl: base, authUrl: `${base}/oauth/authorize` },
    grant: (authorizeUrl) => callbackFor(new URL(authorizeUrl).searchParams),
    revokeRefreshTokens: () => refreshTokens.clear(),
    failCrmReads(count) {
      failingCrmReads = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
