import { isUtf8 } from "node:buffer";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { isStorableText, UNSTORABLE_TEXT } from "../domain/storable-text.ts";
import { AppError, invalidJson, invalidPayload, unreadableBody } from "../errors.ts";
import { findAmbiguousValue } from "./ambiguous-json.ts";
import { decodeText } from "./text-decoding.ts";

/**
 * Media types whose body is read as JSON besides application/json. The spec says every body is
 * JSON and names no content type, so a client that forgot the header (none; `text/plain`, what
 * `fetch` sends for a string; the form type curl sends for `-d`) is read like a JSON one: valid
 * JSON is served, anything else is 400 invalid_json. Other declared types (XML, CSV, multipart…)
 * are unreadable: 400 invalid_payload. Landing pages register their own form parser.
 */
const READ_AS_JSON = new Set(["", "text/plain", "text/json", "application/x-www-form-urlencoded"]);

/** "application/json; charset=utf-8" → "application/json". */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/** JSON is UTF-8 (RFC 8259); ASCII is a subset of it. */
const UTF8_CHARSETS = new Set(["utf-8", "utf8", "us-ascii"]);

export function charsetOf(header: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(header ?? "");
  return match?.[1]?.toLowerCase();
}

/**
 * The body's text, or why it cannot be read. A body in a declared charset other than UTF-8 is
 * decoded from it (Java clients send `text/plain;charset=ISO-8859-1`), so "José" in Latin-1 stays
 * "José" instead of becoming "Jos\uFFFD" on a printed card; an unknown charset, invalid UTF-8 or a
 * compressed body is refused.
 */
function decodeBody(request: FastifyRequest, body: Buffer): string | AppError {
  const coding = request.headers["content-encoding"]?.trim().toLowerCase();
  if (coding && coding !== "identity") {
    return unreadableBody(`Content-Encoding ${coding} is not supported; send the body uncompressed`);
  }
  const charset = charsetOf(request.headers["content-type"]);
  if (charset === undefined || UTF8_CHARSETS.has(charset)) {
    return isUtf8(body) ? body.toString("utf8") : invalidJson("request body is not valid UTF-8");
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return unreadableBody(`charset ${charset} is not supported; send UTF-8`);
  }
  try {
    return decodeText(decoder, body);
  } catch {
    return unreadableBody(`request body is not valid ${charset}`);
  }
}

const isJsonMediaType = (mediaType: string) =>
  READ_AS_JSON.has(mediaType) || /^application\/[a-z0-9.+-]*\+json$/.test(mediaType);

/**
 * The JSON body parser. `JSON.parse` already makes `__proto__` an own, inert key; the danger is
 * code that later merges such an object. Rather than strip the key silently or call a
 * well-formed document "not valid JSON" (Fastify's default), a forbidden key is a 422
 * `invalid_payload` whose detail names where it sits, like any other field the body may not carry.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser(["application/json", "text/plain"], { parseAs: "buffer" }, (request, body, done) =>
    parseJsonBody(request, body, done),
  );
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    if (!isJsonMediaType(mediaTypeOf(request.headers["content-type"]))) {
      done(unreadableBody("unsupported content type; send application/json"), undefined);
      return;
    }
    parseJsonBody(request, body, done);
  });
  // A request without a body (none sent, or an empty one under a JSON content type, as clients
  // that set the header on every call send a DELETE) has none: only routes that take a body
  // refuse it.
  // A callback hook: it runs for every request, and an async one costs each a promise.
  app.addHook("preValidation", (request, _reply, done) => {
    if (request.body !== undefined) return done();
    // routeOptions builds a fresh object on every read: read it once.
    const route = request.routeOptions;
    if ((route.schema as { body?: unknown } | undefined)?.body === undefined) return done();
    if (route.config?.bodyOptional) {
      request.body = {};
      done();
    } else done(unreadableBody("request body is empty; send a JSON object"));
  });
}

const BYTE_ORDER_MARK = 0xfeff;

/** Zapier's and curl's form type usually carries form fields, not the JSON it was taken for. */
function notJsonDetail(request: FastifyRequest): string | undefined {
  return mediaTypeOf(request.headers["content-type"]) === "application/x-www-form-urlencoded"
    ? "request body is not valid JSON (form fields are not accepted: send the fields as a JSON object)"
    : undefined;
}

/** Bodies that parsed as JSON but were refused for a value in them, kept for the error's answer. */
const refusedBodies = new WeakMap<FastifyRequest, unknown>();

/**
 * The request's body as JSON when it was refused for a value in it (a NUL), so an answer can still
 * name what the body said (a JSON-RPC error its request's id); undefined otherwise.
 */
export const refusedBodyOf = (request: FastifyRequest): unknown => refusedBodies.get(request);

function parseJsonBody(
  request: FastifyRequest,
  body: string | Buffer,
  done: (error: Error | null, body?: unknown) => void,
): void {
  if (body.length === 0) {
    done(null, undefined);
    return;
  }
  const decoded = typeof body === "string" ? body : decodeBody(request, body);
  if (decoded instanceof AppError) {
    done(decoded, undefined);
    return;
  }
  // RFC 8259 lets a parser ignore a byte order mark; Windows tools (PowerShell 5) send one.
  const text = decoded.charCodeAt(0) === BYTE_ORDER_MARK ? decoded.slice(1) : decoded;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    done(invalidJson(notJsonDetail(request)), undefined);
    return;
  }
  const refused =
    (mayHideRefusedValue(text) ? findRefusedValue(parsed) : undefined) ?? findAmbiguousValue(text, parsed);
  if (refused !== undefined) {
    refusedBodies.set(request, parsed);
    done(invalidPayload(`${refused.path}: ${refused.reason}`), undefined);
    return;
  }
  done(null, parsed);
}

/**
 * Cheap pre-check on the raw text. A key may be spelled with \u escapes, and NUL or an unpaired
 * surrogate can only arrive as one (raw, they are invalid JSON or invalid UTF-8).
 */
function mayHideRefusedValue(text: string): boolean {
  return text.includes("__proto__") || text.includes("constructor") || text.includes("\\u");
}

const KEY_NOT_ALLOWED = "this key is not allowed";

/**
 * Where the value holds a `__proto__` key, a `constructor.prototype`, or text PostgreSQL cannot
 * store (a key or a string value), and why. Iterative: `JSON.parse` accepts nesting far deeper
 * than the call stack would.
 */
export function findRefusedValue(root: unknown): { path: string; reason: string } | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value: root, path: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === "string") {
      if (!isStorableText(value)) return { path: path || "body", reason: UNSTORABLE_TEXT };
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        pending.push({ value: value[index], path: `${path}[${index}]` });
      }
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key === "__proto__") return { path: childPath, reason: KEY_NOT_ALLOWED };
      if (key === "constructor" && isObjectWith(child, "prototype")) {
        return { path: `${childPath}.prototype`, reason: KEY_NOT_ALLOWED };
      }
      if (!isStorableText(key)) return { path: childPath, reason: UNSTORABLE_TEXT };
      pending.push({ value: child, path: childPath });
    }
  }
  return undefined;
}

function isObjectWith(value: unknown, key: string): boolean {
  return value !== null && typeof value === "object" && Object.hasOwn(value, key);
}
