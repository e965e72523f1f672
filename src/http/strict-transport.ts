import type { FastifyInstance } from "fastify";

/** One year, subdomains too: what browsers' preload lists ask for. */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains";

/**
 * Behind an https PUBLIC_BASE_URL every response tells browsers to use https only
 * (Strict-Transport-Security), so a later visit cannot be downgraded to http and have its session
 * cookie read on the way. Over plain http the header means nothing and is not sent.
 */
export function registerStrictTransportSecurity(app: FastifyInstance, publicBaseUrl: string): void {
  if (new URL(publicBaseUrl).protocol !== "https:") return;
  // onRequest, so the header is on every answer, errors and 404s included, before anything can end it.
  app.addHook("onRequest", async (_request, reply) => {
    reply.header("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  });
}
