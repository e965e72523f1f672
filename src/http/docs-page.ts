import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { API_VERSION } from "./openapi.ts";

export const DOCS_PREFIX = "/docs";

/**
 * Everything the page loads comes from this server: the Swagger UI bundle is served from the
 * package's own files and the document from /docs/json. Inline style attributes are Swagger UI's
 * own rendering; no external origin is allowed, so the page works offline.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
  "form-action 'self'",
].join("; ");

/** GET /docs: the interactive reference of the OpenAPI document, rendered from local assets. */
export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: DOCS_CSP,
    // The spec validator badge would call an external service.
    validatorUrl: false,
    theme: { title: `Porchlight developer API ${API_VERSION}` },
    uiConfig: {
      deepLinking: true,
      docExpansion: "list",
      defaultModelsExpandDepth: 0,
      tryItOutEnabled: false,
    },
  });
}
