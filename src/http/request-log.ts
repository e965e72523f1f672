import type { FastifyInstance } from "fastify";
import "./route-config.ts";

/** One line per request: id, org, route, status and time. Never headers, keys or bodies. */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-request-id", request.id);
    // JSON answers quote request text (a 404 quotes the path): never let a browser sniff them as HTML.
    reply.header("x-content-type-options", "nosniff");
    // API answers carry leads' personal data and signing secrets: no cache in between may keep them.
    if (isApiPath(request.url) && !reply.hasHeader("cache-control"))
      reply.header("cache-control", "no-store");
    return payload;
  });
  app.addHook("onResponse", async (request, reply) => {
    request.log.info(
      {
        orgId: request.auth?.orgId,
        ip: request.ip,
        method: request.method,
        route: request.routeOptions.url ?? "(no route)",
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      "request",
    );
  });
}

const isApiPath = (url: string) => url.startsWith("/api/") || url.startsWith("/admin/");
