import type { FastifyRequest } from "fastify";
import { csrfRejected } from "./errors.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The origins the app's own pages may have: PUBLIC_BASE_URL's, and the one the browser used to
 * reach this server (its Host header, in PUBLIC_BASE_URL's scheme), so that an app opened at
 * http://localhost:3000 while PUBLIC_BASE_URL names 127.0.0.1 can still sign in. Another site's
 * page sends its own Origin with our Host: never equal. (A rebinding site whose name resolves to
 * us has its own cookies, none of ours.)
 */
export function sameOrigins(publicBaseUrl: string, host: string | null | undefined): string[] {
  const base = new URL(publicBaseUrl);
  return host ? [base.origin, `${base.protocol}//${host}`] : [base.origin];
}

/**
 * Cookies ride along on cross-site requests, so a state-changing app request must prove it came
 * from the app's own pages: an `Origin` of the app's own (sameOrigins), or (a browser that
 * sends no Origin) `Sec-Fetch-Site: same-origin`. Anything else, including neither header, is
 * refused. SameSite=Lax cookies already stop most cross-site posts; this closes the rest
 * (same-site subdomains, old browsers).
 */
export function assertSameOrigin(request: FastifyRequest, publicBaseUrl: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (sameOrigins(publicBaseUrl, request.headers.host).includes(origin)) return;
    throw csrfRejected();
  }
  if (request.headers["sec-fetch-site"] === "same-origin") return;
  throw csrfRejected();
}
