import type { FastifyInstance } from "fastify";

/**
 * `Expect: 100-continue` lets a client hold back its body until the server agrees to read it.
 * Node agrees at once, before any route runs, so a 300 KB event or a request with a bad key was
 * uploaded in full only to be refused. Here the answer waits until the guards (per-IP limit, key,
 * scope, per-org limit) have passed, and a declared length over the route's limit is refused
 * with its 413 without the body ever being sent.
 */
export function registerExpectContinue(app: FastifyInstance): void {
  app.server.on("checkContinue", (request, response) => app.server.emit("request", request, response));
  // A callback hook: it runs for every request, and an async one costs each a promise.
  app.addHook("preParsing", (request, reply, payload, done) => {
    if (request.headers.expect?.toLowerCase() === "100-continue") {
      const declared = Number(request.headers["content-length"]);
      const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
      if (!(declared > limit) && !reply.raw.headersSent) reply.raw.writeContinue();
    }
    done(null, payload);
  });
}
