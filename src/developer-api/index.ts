import type { FastifyInstance } from "fastify";
import type { Services } from "../services.ts";
import { registerAttributionRoutes } from "./attribution.ts";
import { registerAutomationListRoute } from "./automation-list.ts";
import { registerEventRoutes } from "./events.ts";
import { registerImportRoute } from "./import.ts";
import { registerLeadsPollRoute } from "./leads-poll.ts";
import { registerMeRoute } from "./me.ts";
import { registerSubscriptionRoutes } from "./subscriptions.ts";

/** The public developer API under /api/v1, one module per endpoint group. */
export async function registerDeveloperApi(app: FastifyInstance, services: Services): Promise<void> {
  registerMeRoute(app);
  registerImportRoute(app, services);
  registerAttributionRoutes(app, services);
  registerAutomationListRoute(app, services);
  registerEventRoutes(app, services);
  registerLeadsPollRoute(app, services);
  registerSubscriptionRoutes(app, services);
}
