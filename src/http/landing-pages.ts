import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppError } from "../errors.ts";
import {
  contentSecurityPolicy,
  renderNotFound,
  renderTryAgain,
  renderUnreadableForm,
} from "../services/leads/landing-html.ts";
import { mediaTypeOf } from "./json-body.ts";

/**
 * What a homeowner's browser sees of an error on a landing page (/l/{token}): a page with the
 * error's status and headers, never the API's JSON. Shared by the landing routes' own error
 * handler and by the app's handler of errors raised before routing (an over-long token, a path
 * with broken percent-encoding), which the landing scope never sees.
 */

/** Every landing response's headers besides its Content-Security-Policy. */
export const LANDING_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
} as const;

export const newNonce = () => randomBytes(16).toString("base64");

const mediaType = (request: FastifyRequest) => mediaTypeOf(request.headers["content-type"]);

/** The landing form as it posts itself (the route reads this body type alone). */
export function isFormPost(request: FastifyRequest): boolean {
  return mediaType(request) === "application/x-www-form-urlencoded";
}

/**
 * A homeowner's browser: a page load, or a form posted the way an HTML form can be (an
 * `enctype="multipart/form-data"` form is a browser too, though the route cannot read it).
 * `text/plain` is not counted: the API reads it as JSON (what `fetch` sends for a string).
 */
export function isBrowserRequest(request: FastifyRequest): boolean {
  if (request.method === "GET" || request.method === "HEAD") return true;
  return isFormPost(request) || mediaType(request) === "multipart/form-data";
}

/** /l/{token}, also in absolute form (`http://host/l/…`), which the router takes as the path. */
export function isLandingPath(url: string): boolean {
  return /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*)?\/l\//.test(url);
}

export function sendHtml(reply: FastifyReply, status: number, nonce: string, html: string) {
  return reply
    .code(status)
    .header("content-security-policy", contentSecurityPolicy(nonce))
    .type("text/html; charset=utf-8")
    .send(html);
}

/**
 * The page for an error raised outside the landing handlers' own pages: try again for a limit or
 * an outage; for a path no page can have (too long, broken encoding) or a page load, not found;
 * for a form the server could not read, a page saying the details were not sent.
 */
export function sendErrorPage(
  error: AppError,
  request: FastifyRequest,
  reply: FastifyReply,
  failed: "request" | "path" = "request",
) {
  const nonce = newNonce();
  let html: string;
  if (error.status === 429 || error.status >= 500) html = renderTryAgain(nonce);
  else if (failed === "path" || request.method !== "POST") html = renderNotFound(nonce);
  else html = renderUnreadableForm(nonce);
  return sendHtml(reply.headers(error.headers).headers(LANDING_HEADERS), error.status, nonce, html);
}

/**
 * Before routing (Fastify's frameworkErrors) no landing hook has run: a browser asking for a
 * landing path gets its page here, with the landing headers; anything else is left to the caller.
 */
export function sendLandingPathError(
  error: AppError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | undefined {
  if (!isLandingPath(request.url) || !isBrowserRequest(request)) return undefined;
  return sendErrorPage(error, request, reply, "path");
}
