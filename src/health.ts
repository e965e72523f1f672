import "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { briefCause } from "./errors.ts";
import type { Services } from "./services.ts";

/** A probe must answer in time: a frozen database must read as not ready, not as a hung probe. */
const READINESS_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Liveness (the process answers) and readiness (started, not stopping, and the database answers
 * within 2 s).
 */
export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
  app.get("/readyz", { schema: { hide: true } }, async (request, reply) => {
    // Ready means started: a signal sent on the first 200 must find the shutdown handlers in place.
    // Draining (SIGTERM, during SHUTDOWN_DRAIN_MS): a load balancer stops sending before we stop taking.
    const readiness = services.readiness?.() ?? "ready";
    if (readiness !== "ready") {
      return reply.code(503).send({ status: readiness, database: services.database.kind });
    }
    try {
      await withTimeout(services.database.ping(), READINESS_TIMEOUT_MS);
      return { status: "ready", database: services.database.kind };
    } catch (error) {
      request.log.warn({ cause: briefCause(error) }, "readiness check failed: database unreachable");
      return reply.code(503).send({ status: "unavailable", database: services.database.kind });
    }
  });
}
