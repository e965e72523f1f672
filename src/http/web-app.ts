import { existsSync, statSync } from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** web/dist from src/http (tsx) and from dist/http (the compiled build) alike. */
export const WEB_DIST_DIR = path.resolve(import.meta.dirname, "../../web/dist");

/**
 * The app's pages run no inline script and load nothing from elsewhere. Styles allow
 * 'unsafe-inline' because Mantine writes its CSS variables in a <style> element and sets style
 * attributes at run time; a style cannot run code, so script-src 'self' still holds the line.
 * Proof images arrive as data: URLs.
 */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Vite names every file under assets/ by its content hash: a changed file is a new URL. */
const HASHED_ASSET = /^assets\//;

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", WEB_APP_CSP)
    .header("x-content-type-options", "nosniff")
    .header("x-frame-options", "DENY")
    .header("referrer-policy", "same-origin");
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Porchlight app not built</title></head>
<body><main><h1>The web app is not built yet</h1>
<p>Run <code>npm run build</code> (or <code>npm run build:web</code>) in the service's directory, then reload this page.</p>
<p>The APIs work meanwhile: <a href="/docs">/docs</a>.</p></main></body></html>`;

/** A file of the built app at `relative`, or undefined (never a path outside the directory). */
function builtFile(distDir: string, relative: string): string | undefined {
  if (relative === "" || relative.includes("\0")) return undefined;
  const resolved = path.resolve(distDir, relative);
  if (!resolved.startsWith(distDir + path.sep)) return undefined;
  try {
    return statSync(resolved).isFile() ? path.relative(distDir, resolved) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which of the app's pages a listener serves: all of them (one port), the contractor's only (the
 * public port when ADMIN_PORT puts the operator API on a listener of its own), or the operator
 * console only (that listener). The built files (scripts, styles) are served by all three.
 */
export type WebAppPages = "all" | "contractor" | "operator";

const isOperatorPage = (relative: string) => relative === "operator" || relative.startsWith("operator/");

function servesPage(pages: WebAppPages, relative: string): boolean {
  if (pages === "all") return true;
  return (pages === "operator") === isOperatorPage(relative);
}

/**
 * Serves the built web app at /app/: its files, and index.html for every other /app/* page the
 * app's router knows (history fallback). /app/api/* is the app API's, never a page (`apiNotFound`
 * answers a GET there in the app API's error shape). Without a
 * build, /app/ answers 503 with a page saying how to build it.
 */
export async function registerWebApp(
  app: FastifyInstance,
  options: {
    distDir?: string;
    pages?: WebAppPages;
    apiNotFound?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  } = {},
): Promise<void> {
  const distDir = options.distDir ?? WEB_DIST_DIR;
  const pages = options.pages ?? "all";
  const home = pages === "operator" ? "/app/operator" : "/app/";
  await app.register(async (scope) => {
    // The build writes .br and .gz copies of its text files (web/vite.config.ts): sent when accepted.
    await scope.register(fastifyStatic, { root: distDir, serve: false, index: false, preCompressed: true });
    scope.get("/app", { schema: { hide: true } }, async (_request, reply) => reply.redirect(home, 308));
    scope.get("/app/*", { schema: { hide: true } }, async (request, reply) => {
      // Fastify has decoded the wildcard already: decoding it again read `%25zz` as a broken escape (a 500).
      const relative = (request.params as { "*": string })["*"].split("?")[0]!;
      // This route, not the app API's own 404 (which only its other methods reach), takes a GET there.
      if (relative === "api" || relative.startsWith("api/")) {
        return options.apiNotFound ? options.apiNotFound(request, reply) : reply.callNotFound();
      }
      securityHeaders(reply);
      if (!existsSync(path.join(distDir, "index.html"))) {
        return reply
          .code(503)
          .header("cache-control", "no-store")
          .type("text/html; charset=utf-8")
          .send(NOT_BUILT_PAGE);
      }
      reply.header("vary", "accept-encoding");
      const file = builtFile(distDir, relative);
      if (file) {
        const immutable = HASHED_ASSET.test(file);
        reply.header("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
        return reply.sendFile(file, { cacheControl: false });
      }
      // A page of the app (/app/automations/…): the app's router draws it.
      if (!servesPage(pages, relative)) return reply.callNotFound();
      reply.header("cache-control", "no-cache");
      return reply.sendFile("index.html", { cacheControl: false });
    });
  });
}
