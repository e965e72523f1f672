import "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import type { Services } from "../services/services.ts";

/** Liveness (the process answers) and readiness (the database answers). */
export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
  app.get("/readyz", { schema: { hide: true } }, async (request, reply) => {
    try {
      await services.database.ping();
      return { status: "ready", database: services.database.kind };
    } catch (error) {
      request.log.warn({ err: error }, "readiness check failed: database unreachable");
      return reply.code(503).send({ status: "unavailable", database: services.database.kind });
    }
  });
}
