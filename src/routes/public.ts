import type { FastifyInstance } from "fastify";
import { attributionDeps } from "../services/attribution/deps.ts";
import { recordTrackingLead } from "../services/attribution/tracking-lead.ts";
import type { Services } from "../services/services.ts";
import { registerAttributionRoutes } from "./attribution.ts";
import { registerAutomationListRoute } from "./automation-list.ts";
import { registerEventRoutes } from "./events.ts";
import { registerImportRoute } from "./import.ts";
import { registerLeadRoutes } from "./leads-poll.ts";
import { registerMeRoute } from "./me.ts";

/** The public developer API under /api/v1, one module per endpoint group. */
export async function registerPublicRoutes(app: FastifyInstance, services: Services): Promise<void> {
  registerMeRoute(app);
  registerImportRoute(app, services);
  registerAttributionRoutes(app, services);
  registerAutomationListRoute(app, services);
  registerEventRoutes(app, services, {
    // Contact events with an address and an email or phone also go through indirect attribution.
    attributeContact: async (orgId, input) => {
      await recordTrackingLead(attributionDeps(services), orgId, input);
    },
  });
  registerLeadRoutes(app, services);
}
