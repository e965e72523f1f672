import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Services } from "../services.ts";
import { listConnections } from "../trigger/connections.ts";
import { listEventSamples } from "../trigger/samples.ts";
import { listWebhookLog } from "../trigger/webhook-log.ts";
import { OrgParams } from "./orgs.ts";

/** The newest entries only: the log is for looking at what just happened. */
const WEBHOOK_LOG_PAGE = 200;

/** What the app shows about an org's event integration: binding-picker samples, log, connections. */
export function registerAdminEventRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get("/orgs/:org_id/event-samples", { schema: { hide: true, params: OrgParams } }, async (request) => {
    await services.triggerStore.flushSamples();
    return { event_types: await listEventSamples(services.db, request.params.org_id) };
  });

  r.get("/orgs/:org_id/webhook-log", { schema: { hide: true, params: OrgParams } }, async (request) => {
    return { webhook_log: await listWebhookLog(services.db, request.params.org_id, WEBHOOK_LOG_PAGE) };
  });

  r.get("/orgs/:org_id/connections", { schema: { hide: true, params: OrgParams } }, async (request) => {
    return { connections: await listConnections(services.db, request.params.org_id) };
  });
}
