import type { FastifyInstance } from "fastify";
import { shuttingDown } from "../errors.ts";

/**
 * Once the app begins to close, requests still arriving on open keep-alive connections (or
 * pipelined behind an in-flight one) are refused with our 503 `service_unavailable`, its
 * Retry-After and `Connection: close`, before any guard or handler runs; requests already in
 * flight finish. It replaces Fastify's own closing answer (return503OnClosing), whose body is
 * not in the service's error shape and carries no Retry-After.
 */
export function registerShutdownGate(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  // A callback hook: it runs for every request, and an async one costs each a promise.
  app.addHook("onRequest", (_request, _reply, done) => {
    if (closing) done(shuttingDown());
    else done();
  });
}
