import type { FastifyInstance } from "fastify";
import { registerAdminGuard } from "../../http/admin-guard.ts";
import { registerAdminOpenApi } from "../../http/admin-openapi.ts";
import type { Services } from "../../services.ts";
import { registerAdminAttributionRoutes } from "./attribution-admin.ts";
import { registerAdminAutomationRoutes } from "./automations.ts";
import { registerAdminCampaignRoutes } from "./campaigns.ts";
import { registerAdminEventRoutes } from "./events.ts";
import { registerAdminImportRoutes } from "./imports.ts";
import { registerAdminInvitationRoutes } from "./invitations.ts";
import { registerAdminLeadRoutes } from "./leads-admin.ts";
import { registerAdminMailSafetyRoutes } from "./mail-safety.ts";
import { registerAdminOrgRoutes } from "./orgs.ts";
import { registerAdminPieceRoutes } from "./pieces.ts";

/** The operator API (the app's back office): ADMIN_TOKEN bearer, not part of the public interface. */
export async function registerAdminRoutes(app: FastifyInstance, services: Services): Promise<void> {
  registerAdminGuard(app, {
    adminToken: services.config.adminToken,
    limiter: services.limiter,
    trustProxy: services.config.trustProxy,
  });
  // Before the routes, so that its document collects every one of them (/admin/v1/openapi.json).
  await registerAdminOpenApi(app);
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
}
