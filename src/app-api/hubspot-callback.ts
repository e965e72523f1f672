import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type ConnectDeps, type ConnectOutcome, completeHubSpotConnect } from "../hubspot/connect.ts";
import type { SessionGuard } from "./session-guard.ts";

/** What the Connections panel is told after HubSpot sent the owner back (`?hubspot=…`). */
export type CallbackOutcome = ConnectOutcome | "not_configured" | "signed_out";

const text = (value: unknown) => (typeof value === "string" && value.length <= 4096 ? value : undefined);

async function outcomeOf(
  deps: { connector: ConnectDeps | undefined; requireSession: SessionGuard },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<CallbackOutcome> {
  if (!deps.connector) return "not_configured";
  const query = (request.query ?? {}) as Record<string, unknown>;
  // The owner pressed Cancel on HubSpot's page: OAuth's `error=access_denied`.
  if (query.error !== undefined) return "denied";
  const session = await deps.requireSession(request, reply).catch(() => undefined);
  if (!session) return "signed_out";
  const state = text(query.state);
  const code = text(query.code);
  if (!state || !code || session.role !== "owner") return "state_refused";
  return completeHubSpotConnect(deps.connector, {
    sessionId: session.sessionId,
    orgId: session.orgId,
    state,
    code,
  });
}

/**
 * GET /connectors/hubspot/callback: where HubSpot sends the owner's browser after they granted (or
 * refused) access. It always answers with a redirect to Settings → Connections naming the outcome,
 * never an error page: the panel says what happened and what to do.
 */
export function registerHubSpotCallbackRoute(
  app: FastifyInstance,
  deps: { connector: ConnectDeps | undefined; requireSession: SessionGuard },
): void {
  app.get("/connectors/hubspot/callback", { schema: { hide: true } }, async (request, reply) => {
    const outcome = await outcomeOf(deps, request, reply).catch((error: unknown) => {
      request.log.error({ err: error }, "HubSpot callback failed");
      return "failed" as const;
    });
    reply.header("cache-control", "no-store");
    // The code and state stay out of the next page's address and out of any Referer it sends.
    reply.header("referrer-policy", "no-referrer");
    return reply.redirect(`/app/settings?tab=connections&hubspot=${outcome}`, 303);
  });
}
