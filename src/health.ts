import "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { outageErr } from "./logger.ts";
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
  // Since when the database has not answered a probe: its first answer after says it is back.
  let unreachableSince: number | undefined;
  app.get("/readyz", { schema: { hide: true } }, async (request, reply) => {
    // Ready means started: a signal sent on the first 200 must find the shutdown handlers in place.
    // Draining (SIGTERM, during SHUTDOWN_DRAIN_MS): a load balancer stops sending before we stop taking.
    const readiness = services.readiness?.() ?? "ready";
    if (readiness !== "ready") {
      return reply.code(503).send({ status: readiness, database: services.database.kind });
    }
    try {
      await withTimeout(services.database.ping(), READINESS_TIMEOUT_MS);
      if (unreachableSince !== undefined) {
        request.log.info(
          { failedForMs: Date.now() - unreachableSince },
          "readiness check: database reachable again",
        );
        unreachableSince = undefined;
      }
      return { status: "ready", database: services.database.kind };
    } catch (error) {
      unreachableSince ??= Date.now();
      request.log.warn({ err: outageErr(error) }, "readiness check failed: database unreachable");
      return reply.code(503).send({ status: "unavailable", database: services.database.kind });
    }
  });
}
