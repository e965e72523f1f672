import { errorResponse } from "../http/error-responses.ts";
import { SENTENCE_STYLE } from "../http/error-style.ts";
import type { OrgRateLimit } from "../http/route-config.ts";
import { ErrorBody } from "../http/schemas.ts";

/** Older-style sentences of the attribution endpoints (conversions, tracking lead, trigger). */
export const ATTRIBUTION_ERROR_STYLE = { ...SENTENCE_STYLE, no_address: "No address found in payload" };

export const ATTRIBUTION_BODY_LIMIT = 1_048_576;

export const attributionRateLimit = (bucket: string): OrgRateLimit => ({
  bucket,
  limit: 60,
  windowSeconds: 60,
});

/** Errors every attribution endpoint documents (the older style: sentences for auth and limits). */
export const attributionErrorResponses = {
  400: errorResponse(
    "No address in any accepted field: `No address found in payload`; malformed JSON: invalid_json; unreadable body: invalid_payload.",
    ["No address found in payload"],
  ),
  401: ErrorBody,
  403: ErrorBody,
  413: ErrorBody,
  422: errorResponse("A documented field has the wrong type or format; the detail names it.", [
    "invalid_payload",
  ]),
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
};
