import type { FastifyInstance } from "fastify";
import type { Services } from "../services.ts";
import { registerConversionRoutes } from "./conversions.ts";
import { registerCustomersRoute } from "./customers.ts";
import { registerTrackingLeadRoute } from "./tracking-lead.ts";
import { registerTriggerRoute } from "./trigger.ts";

/** Attribution and suppression: conversions, tracking leads, customers, the legacy trigger. */
export function registerAttributionRoutes(app: FastifyInstance, services: Services): void {
  registerConversionRoutes(app, services);
  registerTrackingLeadRoute(app, services);
  registerCustomersRoute(app, services);
  registerTriggerRoute(app, services);
}
