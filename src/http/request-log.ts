import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import "./route-config.ts";

/**
 * One line per request: id, org, route, status and time. Never headers, keys or bodies.
 *
 * Both hooks run for every request and do nothing asynchronous, so they are callback hooks (an
 * async hook costs a promise and a microtask each), and the log line is built only when its level
 * is enabled: the client address alone re-parses X-Forwarded-For behind a proxy.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("x-request-id", request.id);
    // JSON answers quote request text (a 404 quotes the path): never let a browser sniff them as HTML.
    reply.header("x-content-type-options", "nosniff");
    // API answers carry leads' personal data and signing secrets: no cache in between may keep them.
    if (isApiPath(request.url) && !reply.hasHeader("cache-control"))
      reply.header("cache-control", "no-store");
    done(null, payload);
  });
  app.addHook("onResponse", (request, reply, done) => {
    // The app's logger is pino's (its request children too); a logger without the check logs.
    if ((request.log as Partial<Logger>).isLevelEnabled?.("info") ?? true) {
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
    }
    done();
  });
}

const isApiPath = (url: string) => url.startsWith("/api/") || url.startsWith("/admin/");
