import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { HubSpotAppConfig } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import { AppError } from "../errors.ts";
import { sealTokens } from "./access-tokens.ts";
import { saveConnection } from "./connections.ts";
import type { HubSpotApi } from "./hubspot-api.ts";
import { consumeOAuthState, createOAuthState, type StateOwner } from "./oauth-states.ts";
import type { TokenCipher } from "./token-cipher.ts";

/**
 * The scopes the operator's HubSpot app asks for: reading the contacts, deals and companies its
 * webhooks name (and `oauth`, which HubSpot's apps carry). Porchlight never writes to HubSpot.
 */
export const HUBSPOT_SCOPES = [
  "oauth",
  "crm.objects.contacts.read",
  "crm.objects.deals.read",
  "crm.objects.companies.read",
] as const;

/** Where HubSpot sends the owner back; the operator registers exactly this URL in the app. */
export const hubspotCallbackUrl = (publicBaseUrl: string) => `${publicBaseUrl}/connectors/hubspot/callback`;

/** Where HubSpot sends webhooks; the operator sets it as the app's target URL. */
export const hubspotWebhookUrl = (publicBaseUrl: string) => `${publicBaseUrl}/connectors/hubspot/webhooks`;

export const hubspotNotConfigured = () =>
  new AppError(
    409,
    "hubspot_not_configured",
    "HubSpot is not set up on this server: the operator sets HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET.",
  );

export interface ConnectDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  hubspot: HubSpotAppConfig;
  publicBaseUrl: string;
  api: HubSpotApi;
  cipher: () => Promise<TokenCipher>;
}

/** The HubSpot page where the owner grants access, carrying a fresh state bound to their session. */
export async function beginHubSpotConnect(deps: ConnectDeps, owner: StateOwner): Promise<string> {
  const state = await createOAuthState(deps.db, owner, deps.clock.now());
  const url = new URL(deps.hubspot.authUrl);
  url.searchParams.set("client_id", deps.hubspot.clientId);
  url.searchParams.set("redirect_uri", hubspotCallbackUrl(deps.publicBaseUrl));
  url.searchParams.set("scope", HUBSPOT_SCOPES.join(" "));
  url.searchParams.set("state", state);
  return url.toString();
}

/** How a connect ended, as the Connections panel tells the owner. */
export type ConnectOutcome = "connected" | "denied" | "state_refused" | "portal_taken" | "failed";

/**
 * HubSpot's redirect back: the state must be this session's own, unused and live; then the code
 * is exchanged, the portal learnt from the token, and the tokens stored sealed.
 */
export async function completeHubSpotConnect(
  deps: ConnectDeps,
  request: { sessionId: string; orgId: string; state: string; code: string },
): Promise<ConnectOutcome> {
  const owner = await consumeOAuthState(deps.db, request.state, request.sessionId, deps.clock.now());
  if (!owner || owner.orgId !== request.orgId) return "state_refused";
  try {
    const tokens = await deps.api.exchangeCode(request.code, hubspotCallbackUrl(deps.publicBaseUrl));
    const portalId = await deps.api.portalOf(tokens.accessToken);
    const now = deps.clock.now();
    const saved = await saveConnection(deps.db, {
      ...sealTokens(await deps.cipher(), tokens, now),
      orgId: owner.orgId,
      portalId,
      connectedBy: owner.userId,
      now,
    });
    deps.logger.info({ orgId: owner.orgId, portalId, outcome: saved }, "HubSpot connect finished");
    return saved;
  } catch (error) {
    deps.logger.warn({ err: error, orgId: owner.orgId }, "HubSpot connect failed");
    return "failed";
  }
}
