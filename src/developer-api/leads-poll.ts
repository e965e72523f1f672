import type { Static, TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { errorResponse } from "../http/error-responses.ts";
import { SENTENCE_STYLE } from "../http/error-style.ts";
import { authOf } from "../http/guards.ts";
import type { Lead } from "../leads/lead-view.ts";
import { invalidTimeBound, listRecentLeads, parseTimeBound } from "../leads/polling.ts";
import { PollLeadsQuery, PollLeadsResponse } from "../leads/schemas.ts";
import type { Services } from "../services.ts";

export const POLL_STYLE = {
  ...SENTENCE_STYLE,
  internal_error: "Failed to list leads",
  invalid_since: "Invalid since parameter",
  invalid_before: "Invalid before parameter",
};

/** GET /integrations/leads: recent landing-page leads, for callers that poll instead of subscribing. */
export function registerLeadsPollRoute(app: FastifyInstance, services: Services): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    "/integrations/leads",
    {
      // The spec gives this endpoint's 401 body whole, `{ error: 'Unauthorized' }`: no mistyped-key
      // detail here, unlike the other endpoints.
      config: { scope: "webhooks:inbound", errorStyle: POLL_STYLE, bareErrorCodes: ["unauthorized"] },
      // A `since` the query schema refuses (sent twice, or too long) is as malformed as an
      // unparsable one: the same 400, not a 422.
      attachValidation: true,
      schema: {
        operationId: "listRecentLeads",
        summary: "Poll recent landing-page leads",
        description:
          "Newest first, at most 50, only landing-page leads, `created_at` strictly after `since` and at or before `before`; de-duplicate by `id`. More than 50 since the last poll: call again with `before` = the oldest `created_at` received, until fewer than 50 come back. An organization without any real lead gets one sample lead (`test: true`, all-zero id), dated inside the window asked for (now, or 1 ms after a `since` ahead of the clock). A malformed `since` is 400 `Invalid since parameter`, a malformed `before` 400 `Invalid before parameter`.",
        querystring: PollLeadsQuery,
        response: {
          200: PollLeadsResponse,
          400: errorResponse("`since` or `before` is not an ISO-8601 timestamp.", [
            "Invalid since parameter",
            "Invalid before parameter",
          ]),
        },
      },
    },
    async (request) => {
      if (request.validationError) {
        const field = request.validationError.validation[0]?.instancePath;
        const bound = field === "/before" ? "before" : "since";
        throw invalidTimeBound(bound, "send one ISO-8601 timestamp of at most 64 characters");
      }
      const window = {
        since: parseTimeBound("since", request.query.since),
        before: parseTimeBound("before", request.query.before),
      };
      const leads = await listRecentLeads(services.db, authOf(request).orgId, window, services.clock.now());
      // LeadView carries the dynamic custom_<field_id> keys the static schema type cannot name.
      return { leads: leads as unknown as Static<typeof Lead>[] };
    },
  );
}
