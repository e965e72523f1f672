import type { FastifyRequest } from "fastify";
import { csrfRejected } from "./errors.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cookies ride along on cross-site requests, so a state-changing app request must prove it came
 * from the app's own pages: an `Origin` equal to PUBLIC_BASE_URL's origin, or (a browser that
 * sends no Origin) `Sec-Fetch-Site: same-origin`. Anything else, including neither header, is
 * refused. SameSite=Lax cookies already stop most cross-site posts; this closes the rest
 * (same-site subdomains, old browsers).
 */
export function assertSameOrigin(request: FastifyRequest, appOrigin: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (origin === appOrigin) return;
    throw csrfRejected();
  }
  if (request.headers["sec-fetch-site"] === "same-origin") return;
  throw csrfRejected();
}
