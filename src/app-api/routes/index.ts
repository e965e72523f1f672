import type { FastifyInstance, FastifyRequest } from "fastify";
import { clientNetwork } from "../../http/client-network.ts";
import { registerWebApp, type WebAppPages } from "../../http/web-app.ts";
import type { ConnectDeps } from "../../hubspot/connect.ts";
import { createHubSpotApi } from "../../hubspot/hubspot-api.ts";
import { lazyTokenCipher } from "../../hubspot/token-cipher.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import { createLogoRasterizer } from "../../render/logo-rasterizer.ts";
import type { Services } from "../../services.ts";
import { createAuth } from "../auth.ts";
import { registerAuthRoutes } from "../auth-routes.ts";
import { resolveAuthSecret } from "../auth-secret.ts";
import { APP_API_PREFIX, PUBLIC_ROUTES_IP_BUCKET } from "../auth-settings.ts";
import { registerAuthTokenFilter } from "../auth-token-filter.ts";
import type { AppApiContext } from "../context.ts";
import { assertSameOrigin } from "../csrf.ts";
import { registerAppErrorHandling, renderAppNotFound } from "../errors.ts";
import { registerHubSpotCallbackRoute } from "../hubspot-callback.ts";
import { collectAppApiDocument } from "../openapi.ts";
import { createProofCache } from "../proof-cache.ts";
import { createSessionGuard, requireOwner } from "../session-guard.ts";
import { registerAutomationRoutes } from "./automations.ts";
import { registerConnectorRoutes } from "./connectors.ts";
import { registerCustomerUploadRoutes } from "./customer-uploads.ts";
import { registerCustomerRoutes } from "./customers.ts";
import { registerDeveloperRoutes } from "./developers.ts";
import { registerLeadRoutes } from "./leads.ts";
import { registerMailRoutes } from "./mail.ts";
import { registerMailSafetyRoutes } from "./mail-safety.ts";
import { registerMeRoutes } from "./me.ts";
import { registerNeighbourRoutes } from "./neighbours.ts";
import { LOGO_RASTERIZING, registerOrganizationRoutes } from "./organization.ts";
import { registerOverviewRoutes } from "./overview.ts";
import { registerOverviewFigureRoutes } from "./overview-figures.ts";
import { registerPastJobRoutes } from "./past-jobs.ts";
import { registerReactivationRoutes } from "./reactivation.ts";
import { registerRevenueRoutes } from "./revenue.ts";
import { registerSessionRoutes } from "./session.ts";
import { registerTeamRoutes } from "./team.ts";
import { registerTestCardRoutes } from "./test-card.ts";
import { registerWebhookRoutes } from "./webhooks.ts";

/**
 * The contractor's app: its API under /app/api/v1 (Better Auth's endpoints under /auth, the
 * app's own routes beside them, its OpenAPI document) and the built web app at /app/.
 */
export async function registerContractorApp(
  app: FastifyInstance,
  services: Services,
  pages: WebAppPages = "all",
): Promise<void> {
  const { config, logger, db, mailer, clock } = services;
  const auth = createAuth({ db, config, mailer, logger, secret: await resolveAuthSecret(db, config) });
  const requireSession = createSessionGuard({ auth, db, clock });
  const hubspotConnector = hubspotConnectorOf(services);
  app.decorateRequest("appSession", null);
  await app.register(
    async (scope) => registerAppApi(scope, { ...services, auth, requireSession, hubspotConnector }),
    { prefix: APP_API_PREFIX },
  );
  registerHubSpotCallbackRoute(app, { connector: hubspotConnector, requireSession });
  await registerWebApp(app, { pages, apiNotFound: renderAppNotFound });
}

/** HubSpot's connect flow, when the operator configured a HubSpot app. */
function hubspotConnectorOf(services: Services): ConnectDeps | undefined {
  const { config, db, clock, logger } = services;
  if (!config.hubspot) return undefined;
  return {
    db,
    clock,
    logger,
    hubspot: config.hubspot,
    publicBaseUrl: config.publicBaseUrl,
    api: createHubSpotApi(config.hubspot),
    cipher: lazyTokenCipher(db, config),
  };
}

type AppApiServices = Services & Pick<AppApiContext, "auth" | "requireSession" | "hubspotConnector">;

async function registerAppApi(app: FastifyInstance, services: AppApiServices): Promise<void> {
  const { config, logger, auth } = services;
  const logoRasterizer = createLogoRasterizer(LOGO_RASTERIZING);
  app.addHook("onClose", () => logoRasterizer.close());
  const ctx: AppApiContext = { ...services, logoRasterizer, proofs: createProofCache(), appLogger: logger };

  registerAppErrorHandling(app);
  app.addHook("onRoute", (route) => {
    if (route.config?.appAccess === "public") route.bodyLimit = PUBLIC_ROUTE_BODY_LIMIT;
  });
  const document = collectAppApiDocument(app, config.publicBaseUrl);
  app.addHook("onRequest", async (request, reply) => {
    const access = request.routeOptions.config?.appAccess ?? "member";
    if (access === "public") await limitPublicRouteByIp(services, request);
    assertSameOrigin(request, config.publicBaseUrl);
    if (access === "public") return;
    await ctx.requireSession(request, reply);
    if (access === "owner") requireOwner(request);
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    // Answers about one user's account must never be cached by a shared cache; a route may allow
    // the browser's own (`private`) cache, as a printed card's images do.
    const chosen = reply.getHeader("cache-control");
    if (typeof chosen !== "string" || !chosen.startsWith("private,"))
      reply.header("cache-control", "no-store");
    return payload;
  });

  app.get("/openapi.json", { config: { appAccess: "public" }, schema: { hide: true } }, async () =>
    document(),
  );
  registerAuthRoutes(app, { auth, limiter: services.limiter, publicBaseUrl: config.publicBaseUrl });
  registerAuthTokenFilter(app, `${APP_API_PREFIX}/auth/*`);
  registerSessionRoutes(app, ctx);
  registerMeRoutes(app, ctx);
  registerTeamRoutes(app, ctx);
  registerAutomationRoutes(app, ctx);
  registerTestCardRoutes(app, ctx);
  registerDeveloperRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerConnectorRoutes(app, ctx);
  registerOrganizationRoutes(app, ctx);
  registerOverviewRoutes(app, ctx);
  registerMailRoutes(app, ctx);
  registerLeadRoutes(app, ctx);
  registerOverviewFigureRoutes(app, ctx);
  registerRevenueRoutes(app, ctx);
  registerNeighbourRoutes(app, ctx);
  registerCustomerRoutes(app, ctx);
  await registerCustomerUploadRoutes(app, ctx);
  registerPastJobRoutes(app, ctx);
  registerReactivationRoutes(app, ctx);
  registerMailSafetyRoutes(app, ctx);
}

/**
 * The most a route anyone may call reads (sign-in, a reset, an invitation's name and password: each
 * well under a kilobyte). Read before anyone is known, a megabyte of small JSON values costs a third
 * of a second of the event loop to parse; 16 KiB costs a few milliseconds.
 */
export const PUBLIC_ROUTE_BODY_LIMIT = 16_384;

/** Unauthenticated routes are counted per client (request.ip, which honours TRUST_PROXY; an IPv6 one by its /64) before anything else runs. */
async function limitPublicRouteByIp(services: Services, request: FastifyRequest): Promise<void> {
  await enforceRateLimit(
    services.limiter,
    { bucket: PUBLIC_ROUTES_IP_BUCKET, limit: services.config.ipRateLimitPerMinute, windowSeconds: 60 },
    clientNetwork(request.ip),
  );
}
