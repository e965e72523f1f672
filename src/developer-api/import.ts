import { isUtf8 } from "node:buffer";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { invalidPayload } from "../errors.ts";
import { timesSent } from "../http/authorization-header.ts";
import { errorResponse } from "../http/error-responses.ts";
import { IMPORT_STYLE } from "../http/error-style.ts";
import { authOf } from "../http/guards.ts";
import { ErrorBody } from "../http/schemas.ts";
import { createImportService } from "../imports/import-service.ts";
import { IMPORT_LIMITS, ImportHeaders, ImportRequest, ImportResult } from "../imports/schemas.ts";
import type { Services } from "../services.ts";

/**
 * Node reads header bytes as Latin-1: a key sent in UTF-8 ("é", two bytes) would count and be
 * stored as two characters ("Ã©"). Valid UTF-8 is read as UTF-8 before validation.
 */
function readHeaderAsUtf8(value: string): string {
  if (Buffer.byteLength(value, "latin1") === Buffer.byteLength(value, "utf8")) return value;
  const bytes = Buffer.from(value, "latin1");
  return isUtf8(bytes) ? bytes.toString("utf8") : value;
}

export function registerImportRoute(app: FastifyInstance, services: Services): void {
  const importer = createImportService({
    db: services.db,
    clock: services.clock,
    logger: services.logger,
    geocoder: services.geocoder,
    killSwitch: services.killSwitch,
  });

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/import/jobs",
    {
      bodyLimit: IMPORT_LIMITS.bodyBytes,
      config: { scope: "import:write", errorStyle: IMPORT_STYLE },
      preValidation: async (request, reply) => {
        const key = request.headers["idempotency-key"];
        // Node joins repeats into "a, b": a proxy keeping one of them would replay under another key.
        if (key !== undefined && timesSent(request.raw, "idempotency-key") > 1) {
          throw invalidPayload("Idempotency-Key: sent more than once; send one key");
        }
        if (typeof key === "string") request.headers["idempotency-key"] = readHeaderAsUtf8(key);
        // A key already seen is answered before the body is validated (rule 3).
        const replay = await importer.replayOf(authOf(request).orgId, request.headers["idempotency-key"]);
        if (replay) return reply.code(replay.status).send(replay.result);
      },
      schema: {
        operationId: "importJobs",
        summary: "Stage past jobs or customers for a later reactivation campaign",
        description:
          "Geocodes every address, then stages the batch in one transaction; mails nothing and creates no campaign. " +
          "At most 10 staged batches per organization per UTC day (429 with Retry-After = seconds to 00:00 UTC). " +
          "With an Idempotency-Key, a repeat returns the stored batch with 200 whatever its body (it is not validated again; also over the daily limit or under the kill switch) and a repeat while the first request " +
          "runs gets 409 `import_in_progress`; a key held by a request that died is released after 120 seconds. " +
          "On 429, 502 and 503 nothing was staged and no daily slot was used.",
        headers: ImportHeaders,
        body: ImportRequest,
        response: {
          200: ImportResult,
          201: ImportResult,
          400: errorResponse(
            "The body is not valid JSON: malformed, empty, or of a declared type that is not JSON.",
            ["invalid_json"],
          ),
          401: ErrorBody,
          403: ErrorBody,
          409: errorResponse(
            "The original request with this Idempotency-Key is still running; honour Retry-After.",
            ["import_in_progress"],
          ),
          413: ErrorBody,
          422: errorResponse(
            "Bad source, more than 500 rows, bad field type or date, Idempotency-Key over 255 characters; the detail names the row (rows[3].address).",
            ["invalid_payload"],
          ),
          429: errorResponse("Over 10 staged batches today; Retry-After is the seconds to 00:00 UTC.", [
            "rate_limited",
          ]),
          500: ErrorBody,
          502: errorResponse("The geocoder answered with an error; nothing was imported.", [
            "geocoding_failed",
          ]),
          503: errorResponse(
            "geocoding_unavailable: the geocoder cannot be reached or timed out; automations_disabled: platform kill switch. Both with Retry-After: 300. Nothing was imported.",
            ["geocoding_unavailable", "automations_disabled"],
          ),
        },
      },
    },
    async (request, reply) => {
      const outcome = await importer.importJobs(
        authOf(request).orgId,
        request.headers["idempotency-key"],
        request.body,
      );
      return reply.code(outcome.status).send(outcome.result);
    },
  );
}
