import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { bearerToken } from "../../domain/api-key-format.ts";
import { unauthorized } from "../../errors.ts";
import { soleAuthorization } from "../../http/authorization-header.ts";
import type { Services } from "../../services/services.ts";
import { registerAdminAttributionRoutes } from "./attribution-admin.ts";
import { registerAdminAutomationRoutes } from "./automations.ts";
import { registerAdminCampaignRoutes } from "./campaigns.ts";
import { registerAdminEventRoutes } from "./events.ts";
import { registerAdminImportRoutes } from "./imports.ts";
import { registerAdminLeadRoutes } from "./leads-admin.ts";
import { registerAdminOrgRoutes } from "./orgs.ts";
import { registerAdminPieceRoutes } from "./pieces.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** The operator API (the app's back office): ADMIN_TOKEN bearer, not part of the public interface. */
export async function registerAdminRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const expected = services.config.adminToken ? digest(services.config.adminToken) : undefined;
  app.addHook("onRequest", async (request) => {
    const token = bearerToken(soleAuthorization(request.raw));
    if (!expected || !token || !timingSafeEqual(digest(token), expected)) throw unauthorized();
  });
  registerAdminOrgRoutes(app, services);
  registerAdminAttributionRoutes(app, services);
  registerAdminAutomationRoutes(app, services);
  registerAdminCampaignRoutes(app, services);
  registerAdminImportRoutes(app, services);
  registerAdminEventRoutes(app, services);
  registerAdminLeadRoutes(app, services);
  registerAdminPieceRoutes(app, services);
}
