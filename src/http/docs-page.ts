import { readFileSync } from "node:fs";
import path from "node:path";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { addressedTo, GUIDE_CSP, GUIDES_PREFIX, guidePages } from "./guides.ts";
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
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

const TEXT_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/** The docs' headers besides their CSP, as the landing pages send them: never framed, no referrer. */
const DOCS_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
} as const;

/**
 * The product's name where Swagger UI shows its own logo (the top bar), drawn as text: one line whose
 * version follows the name wherever the font the browser has ends it (a wide fallback font overlapped
 * a version placed at a fixed x).
 */
const PRODUCT_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="40" viewBox="0 0 240 40">
<text x="0" y="29" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" fill="#ffffff"><tspan font-size="26" font-weight="700">Porchlight</tspan><tspan dx="10" font-size="14" fill="#cbd5e1">API ${API_VERSION}</tspan></text>
</svg>`;

const QUICKSTART_FILE = path.resolve(import.meta.dirname, "../../docs/quickstart.md");

/** The quickstart the reference's intro links to, as the repository has it (absent: no route). */
function readQuickstart(): string | undefined {
  try {
    return readFileSync(QUICKSTART_FILE, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * GET /docs: the interactive reference of the OpenAPI document, rendered from local assets, with
 * operations grouped by tag, the integrator's guides as pages (/docs/guides/…) and the quickstart's
 * Markdown (/docs/quickstart.md). Its own scope, so its headers reach every
 * asset of the page and no other route.
 */
export async function registerDocsPage(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook("onSend", async (_request, reply, payload) => {
      // Swagger UI's own routes set DOCS_CSP; the quickstart (plain text) needs none of it.
      if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", TEXT_CSP);
      reply.headers(DOCS_HEADERS);
      return payload;
    });
    await scope.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      staticCSP: DOCS_CSP,
      // The spec validator badge would call an external service.
      validatorUrl: false,
      logo: { type: "image/svg+xml", content: Buffer.from(PRODUCT_LOGO), href: DOCS_PREFIX, target: "_self" },
      theme: { title: `Porchlight developer API ${API_VERSION}` },
      uiConfig: {
        deepLinking: true,
        docExpansion: "list",
        defaultModelsExpandDepth: 0,
        tryItOutEnabled: false,
      },
    });
    const guides = guidePages(publicBaseUrl);
    for (const name of guides.names) {
      scope.get(`${GUIDES_PREFIX}/${name}`, { schema: { hide: true } }, async (_request, reply) =>
        reply
          .header("content-security-policy", GUIDE_CSP)
          // A deploy is the only change to a guide, so a browser may keep a page a while.
          .header("cache-control", "public, max-age=600")
          .type("text/html; charset=utf-8")
          .send(await guides.page(name)),
      );
    }
    // The guides' folder opens the first of them.
    for (const folder of [GUIDES_PREFIX, `${GUIDES_PREFIX}/`]) {
      scope.get(folder, { schema: { hide: true } }, async (_request, reply) =>
        reply.redirect(`${GUIDES_PREFIX}/quickstart`),
      );
    }
    const quickstart = readQuickstart();
    if (quickstart !== undefined) {
      const served = addressedTo(quickstart, publicBaseUrl);
      scope.get(`${DOCS_PREFIX}/quickstart.md`, { schema: { hide: true } }, async (_request, reply) =>
        reply.type("text/markdown; charset=utf-8").send(served),
      );
    }
  });
}
