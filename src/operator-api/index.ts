import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from "fastify";
import { registerAdminGuard } from "../http/admin-guard.ts";
import { registerAdminOpenApi } from "../http/admin-openapi.ts";
import { assertOrganizationExists } from "../orgs/organizations.ts";
import type { Services } from "../services.ts";
import { registerAdminAttributionRoutes } from "./attribution-admin.ts";
import { registerAdminAutomationRoutes } from "./automations.ts";
import { registerAdminBackupRoutes } from "./backups.ts";
import { registerAdminCampaignRoutes } from "./campaigns.ts";
import { registerAdminEventRoutes } from "./events.ts";
import { registerAdminImportRoutes } from "./imports.ts";
import { registerAdminInvitationRoutes } from "./invitations.ts";
import { registerAdminLeadRoutes } from "./leads-admin.ts";
import { registerAdminMailSafetyRoutes } from "./mail-safety.ts";
import { registerAdminOrgRoutes } from "./orgs.ts";
import { registerAdminPieceRoutes } from "./pieces.ts";
import { registerAdminReferenceAddressRoutes } from "./reference-addresses.ts";

/** The operator API (the app's back office): ADMIN_TOKEN bearer, not part of the public interface. */
export async function registerOperatorApi(app: FastifyInstance, services: Services): Promise<void> {
  registerAdminGuard(app, {
    adminToken: services.config.adminToken,
    limiter: services.limiter,
    trustProxy: services.config.trustProxy,
  });
  // Before the routes, so that its document collects every one of them (/admin/v1/openapi.json).
  await registerAdminOpenApi(app);
  registerOrganizationGuard(app, services);
  registerAdminOrgRoutes(app, services);
  registerAdminInvitationRoutes(app, services);
  registerAdminAttributionRoutes(app, services);
  registerAdminAutomationRoutes(app, services);
  registerAdminCampaignRoutes(app, services);
  registerAdminImportRoutes(app, services);
  registerAdminEventRoutes(app, services);
  registerAdminLeadRoutes(app, services);
  registerAdminPieceRoutes(app, services);
  registerAdminMailSafetyRoutes(app, services);
  registerAdminBackupRoutes(app, services);
  await registerAdminReferenceAddressRoutes(app, services);
}

/**
 * Every `/orgs/:org_id/…` route answers 404 `organization not found` for an org that does not
 * exist: after the route's validation (a preHandler, appended after any the route declares) and
 * before its handler, as each handler's own first call used to. A route whose handler checks the
 * org itself, after checks of its own, says so with `config.orgCheckedByHandler`.
 */
function registerOrganizationGuard(app: FastifyInstance, services: Services): void {
  const guard = async (request: FastifyRequest) => {
    await assertOrganizationExists(services.db, (request.params as { org_id: string }).org_id);
  };
  app.addHook("onRoute", (route) => {
    if (!route.routePath.startsWith("/orgs/:org_id/") || route.config?.orgCheckedByHandler) return;
    route.preHandler = [...([] as preHandlerHookHandler[]).concat(route.preHandler ?? []), guard];
  });
}
