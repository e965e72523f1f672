import type { FastifyInstance } from "fastify";
import { registerWebApp, type WebAppPages } from "../http/web-app.ts";
import { createMailer } from "../mail/mailer.ts";
import type { Services } from "../services/services.ts";
import { APP_API_PREFIX, createAuth } from "./auth.ts";
import { resolveAuthSecret } from "./auth-secret.ts";
import { registerAuthRoutes } from "./auth-routes.ts";
import type { AppApiContext } from "./context.ts";
import { assertSameOrigin } from "./csrf.ts";
import { registerAppErrorHandling } from "./errors.ts";
import { collectAppApiDocument } from "./openapi.ts";
import { registerAutomationRoutes } from "./routes/automations.ts";
import { registerCustomerUploadRoutes } from "./routes/customer-uploads.ts";
import { registerCustomerRoutes } from "./routes/customers.ts";
import { registerDeveloperRoutes } from "./routes/developers.ts";
import { registerLeadRoutes } from "./routes/leads.ts";
import { registerMailRoutes } from "./routes/mail.ts";
import { registerMailSafetyRoutes } from "./routes/mail-safety.ts";
import { registerMeRoutes } from "./routes/me.ts";
import { registerNeighbourRoutes } from "./routes/neighbours.ts";
import { registerOrganizationRoutes } from "./routes/organization.ts";
import { registerOverviewRoutes } from "./routes/overview.ts";
import { registerOverviewFigureRoutes } from "./routes/overview-figures.ts";
import { registerPastJobRoutes } from "./routes/past-jobs.ts";
import { registerReactivationRoutes } from "./routes/reactivation.ts";
import { registerRevenueRoutes } from "./routes/revenue.ts";
import { registerSessionRoutes } from "./routes/session.ts";
import { registerTeamRoutes } from "./routes/team.ts";
import { createSessionGuard, requireOwner } from "./session-guard.ts";

/**
 * The contractor's app: its API under /app/api/v1 (Better Auth's endpoints under /auth, the
 * app's own routes beside them, its OpenAPI document) and the built web app at /app/.
 */
export async function registerContractorApp(
  app: FastifyInstance,
  services: Services,
  pages: WebAppPages = "all",
): Promise<void> {
  await app.register(async (scope) => registerAppApi(scope, services), { prefix: APP_API_PREFIX });
  await registerWebApp(app, { pages });
}

async function registerAppApi(app: FastifyInstance, services: Services): Promise<void> {
  const { config, clock, logger, db } = services;
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
    clock,
  });
  app.addHook("onClose", () => mailer.close());
  const auth = createAuth({ db, config, mailer, logger, secret: await resolveAuthSecret(db, config) });
  const requireSession = createSessionGuard({ auth, db, clock });
  const ctx: AppApiContext = { ...services, auth, mailer, requireSession, appLogger: logger };

  app.decorateRequest("appSession", null);
  registerAppErrorHandling(app);
  const document = collectAppApiDocument(app, config.publicBaseUrl);
  app.addHook("onRequest", async (request, reply) => {
    assertSameOrigin(request, config.publicBaseUrl);
    const access = request.routeOptions.config?.appAccess ?? "member";
    if (access === "public") return;
    await requireSession(request, reply);
    if (access === "owner") requireOwner(request);
  });
  app.addHook("onSend", async (_request, reply, payload) => {
    // Answers about one user's account must never be cached by a shared cache.
    reply.header("cache-control", "no-store");
    return payload;
  });

  app.get("/openapi.json", { config: { appAccess: "public" }, schema: { hide: true } }, async () =>
    document(),
  );
  registerAuthRoutes(app, { auth, limiter: services.limiter, publicBaseUrl: config.publicBaseUrl });
  registerSessionRoutes(app, ctx);
  registerMeRoutes(app, ctx);
  registerTeamRoutes(app, ctx);
  registerAutomationRoutes(app, ctx);
  registerDeveloperRoutes(app, ctx);
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
