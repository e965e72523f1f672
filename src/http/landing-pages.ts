import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, unreadableBody } from "../errors.ts";
import { charsetOf, mediaTypeOf } from "./json-body.ts";
import {
  contentSecurityPolicy,
  renderNotFound,
  renderTryAgain,
  renderUnreadableForm,
} from "./landing-html.ts";
import { decodeText } from "./text-decoding.ts";

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

export type FormBody = Record<string, string | string[]>;

/**
 * The landing form's body parser (application/x-www-form-urlencoded). Escapes are decoded to bytes
 * and the bytes read in the declared charset (UTF-8 unless `charset=` says otherwise: a browser
 * may send a form in windows-1252). A body that cannot be read exactly (a broken escape such as
 * `%E`, bytes invalid in its charset, an unknown charset, a compressed body) is refused: the
 * query-string parser it replaces kept such a value undecoded, and "Mix%C3%A9%FF" was stored
 * as the homeowner's name.
 */
export function registerFormBodyParser(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "buffer", bodyLimit },
    (request, body, done) => {
      const decoder = formDecoder(request);
      const form = decoder instanceof AppError ? decoder : parseFormBody(body as Buffer, decoder);
      if (form instanceof AppError) done(form, undefined);
      else done(null, form);
    },
  );
}

function formDecoder(request: FastifyRequest): TextDecoder | AppError {
  const coding = request.headers["content-encoding"]?.trim().toLowerCase();
  if (coding && coding !== "identity") {
    return unreadableBody(`Content-Encoding ${coding} is not supported; send the form uncompressed`);
  }
  const charset = charsetOf(request.headers["content-type"]) ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true, ignoreBOM: true });
  } catch {
    return unreadableBody(`charset ${charset} is not supported; send UTF-8`);
  }
  // A form body's `&`, `=` and `%` are ASCII bytes: a charset that is not a superset of ASCII
  // (UTF-16) cannot carry one, and "replacement" (ISO-2022-KR…) decodes to nothing.
  if (decoder.encoding.startsWith("utf-16") || decoder.encoding === "replacement") {
    return unreadableBody(`charset ${charset} is not supported; send UTF-8`);
  }
  return decoder;
}

const BROKEN_ESCAPE = /%(?![0-9a-fA-F]{2})/;

/**
 * The most name=value pairs a landing form is read with: far above any real form (its standard
 * fields, custom fields and every option of a checkbox group), and a bound on the parsing work an
 * unauthenticated request can ask for.
 */
export const MAX_FORM_PAIRS = 10_000;

/** Names and values, a name sent more than once as the list of its values (a checkbox group). */
export function parseFormBody(body: Buffer, decoder: TextDecoder): FormBody | AppError {
  const form = new Map<string, string | string[]>();
  // latin1 maps each byte to one character, so escapes and raw bytes alike become bytes again.
  const pairs = body.toString("latin1").split("&", MAX_FORM_PAIRS + 1);
  if (pairs.length > MAX_FORM_PAIRS) {
    return unreadableBody(`the form has more than ${MAX_FORM_PAIRS} fields`);
  }
  for (const pair of pairs) {
    if (pair === "") continue;
    const separator = pair.indexOf("=");
    const name = decodeFormComponent(separator === -1 ? pair : pair.slice(0, separator), decoder);
    const value = separator === -1 ? "" : decodeFormComponent(pair.slice(separator + 1), decoder);
    if (name === undefined || value === undefined) {
      return unreadableBody(`the form is not valid percent-encoded ${decoder.encoding}`);
    }
    const previous = form.get(name);
    if (previous === undefined) form.set(name, value);
    else if (Array.isArray(previous)) previous.push(value);
    else form.set(name, [previous, value]);
  }
  // fromEntries defines own properties: a field named __proto__ stays a field.
  return Object.fromEntries(form);
}

function decodeFormComponent(component: string, decoder: TextDecoder): string | undefined {
  if (BROKEN_ESCAPE.test(component)) return undefined;
  try {
    return decodeText(decoder, formBytes(component));
  } catch {
    return undefined;
  }
}

/**
 * The bytes a form component stands for (`+` a space, `%XX` its byte; the component is latin1, one
 * character a byte). A loop, not a replace with a callback: that cost a microsecond an escape, and a
 * form of escapes alone is what an unauthenticated request can send.
 */
function formBytes(component: string): Buffer {
  const bytes = Buffer.allocUnsafe(component.length);
  let length = 0;
  for (let index = 0; index < component.length; index++) {
    const code = component.charCodeAt(index);
    if (code === PERCENT) {
      bytes[length++] =
        (hexDigit(component.charCodeAt(index + 1)) << 4) | hexDigit(component.charCodeAt(index + 2));
      index += 2;
    } else bytes[length++] = code === PLUS ? SPACE : code;
  }
  return bytes.subarray(0, length);
}

const PERCENT = 0x25;
const PLUS = 0x2b;
const SPACE = 0x20;

/** A hex digit's value (the caller has checked it is one: BROKEN_ESCAPE). */
const hexDigit = (code: number) => (code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57);
