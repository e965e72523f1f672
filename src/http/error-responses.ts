import { Type } from "@fastify/type-provider-typebox";
import type { RouteOptions } from "fastify";
import { styledCode } from "./error-style.ts";
import "./route-config.ts";

/**
 * An error response whose `error` is one of the exact strings listed. Routes declare their own
 * endpoint-specific errors with it (e.g. 409 import_in_progress); the errors every route shares
 * are added to the OpenAPI document by `standardErrorCodes`.
 */
export function errorResponse(description: string, codes: readonly string[]) {
  return Type.Object(
    {
      error: Type.Unsafe<string>({ type: "string", enum: [...codes] }),
      detail: Type.Optional(Type.String()),
    },
    { description },
  );
}

// Any method may carry a body (a DELETE with JSON is parsed too), so all of these can answer 400 and 413.
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Status → exact error strings every route of this kind can answer, in the route's style. */
export function standardErrorCodes(route: RouteOptions): Record<string, string[]> {
  const config = route.config ?? {};
  const style = config.errorStyle;
  const codes: Record<string, string[]> = {
    "429": ["rate_limited"],
    "500": [styledCode(style, "internal_error", 500)],
    // Also every route's answer while the instance shuts down (http/shutdown-gate.ts).
    "503": ["service_unavailable"],
  };
  if (config.scope) {
    codes["401"] = [styledCode(style, "unauthorized", 401)];
    codes["403"] = [styledCode(style, "unauthorized", 403)];
    codes["503"] = ["auth_unavailable", "service_unavailable"];
  }
  if (config.orgRateLimit)
    codes["429"] = [...new Set(["rate_limited", styledCode(style, "rate_limited", 429)])];
  const methods = ([] as string[]).concat(route.method as string | string[]).map((m) => m.toUpperCase());
  const schema = (route.schema ?? {}) as { body?: unknown; querystring?: unknown };
  if (methods.some((method) => WRITE_METHODS.has(method))) {
    codes["400"] = [
      ...new Set(["invalid_json", "invalid_payload"].map((code) => styledCode(style, code, 400))),
    ];
    codes["413"] = ["payload_too_large"];
  }
  if (schema.body || schema.querystring) codes["422"] = ["invalid_payload"];
  return codes;
}

export const STANDARD_ERROR_DESCRIPTIONS: Record<string, string> = {
  "400":
    "Unreadable body (empty, or a declared type that is not JSON; none, text/plain and the form type are read as JSON): invalid_payload; malformed JSON: invalid_json.",
  "401":
    'Missing, malformed, unknown, revoked or expired key; with `WWW-Authenticate: Bearer realm="api"`. Only a key whose checksum does not match (a typo) also has a `detail` saying it looks mistyped, and a key sent without the Bearer scheme (`Authorization: ak_…`, `Bearer: ak_…`, another scheme word such as `Token ak_…`, or `X-API-Key`; not `Basic`) one saying how to send it (not on the leads poll, whose 401 body is exactly `{"error":"Unauthorized"}`).',
  "403": "The key lacks the required scope or resolves to no organization.",
  "404": "Not found.",
  "413": "Body over the byte ceiling named in the detail.",
  "422": "Validation failed; the detail names the field.",
  "429":
    "Rate limited: rate_limited is the pre-auth per-IP limit; per-organization limits use the code listed. Honour Retry-After.",
  "500": "Unexpected error.",
  "503":
    "auth_unavailable: the key store cannot be reached (the key was not checked); service_unavailable: the database cannot be reached, or this instance is shutting down (then with Connection: close; the request was not applied). Retry after Retry-After.",
};
