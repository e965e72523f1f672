import { type Static, Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { errorResponse } from "../http/error-responses.ts";
import { SENTENCE_STYLE } from "../http/error-style.ts";
import { Lead } from "../services/leads/lead-view.ts";
import { invalidSince, listRecentLeads, parseSince } from "../services/leads/polling.ts";
import type { Services } from "../services/services.ts";
import { registerSubscriptionRoutes } from "./subscriptions.ts";

export const POLL_STYLE = {
  ...SENTENCE_STYLE,
  internal_error: "Failed to list leads",
  invalid_since: "Invalid since parameter",
};

export const PollLeadsQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "ISO-8601 timestamp; only leads created strictly after it.",
      }),
    ),
  },
  { title: "PollLeadsQuery" },
);

export const PollLeadsResponse = Type.Object({ leads: Type.Array(Lead) }, { title: "PollLeadsResponse" });

/** GET /integrations/leads: recent landing-page leads, for callers that poll instead of subscribing. */
export function registerLeadsPollRoute(app: FastifyInstance, services: Services): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    "/integrations/leads",
    {
      config: { scope: "webhooks:inbound", errorStyle: POLL_STYLE },
      // A `since` the query schema refuses (sent twice, or too long) is as malformed as an
      // unparsable one: the same 400, not a 422.
      attachValidation: true,
      schema: {
        operationId: "listRecentLeads",
        summary: "Poll recent landing-page leads",
        description:
          "Newest first, at most 50, only landing-page leads, `created_at` strictly after `since`; de-duplicate by `id`. An organization without any real lead gets one sample lead (`test: true`, all-zero id). A malformed `since` is 400 `Invalid since parameter`.",
        querystring: PollLeadsQuery,
        response: {
          200: PollLeadsResponse,
          400: errorResponse("`since` is not an ISO-8601 timestamp.", ["Invalid since parameter"]),
        },
      },
    },
    async (request) => {
      if (request.validationError) throw invalidSince("send one ISO-8601 timestamp of at most 64 characters");
      const since = parseSince(request.query.since);
      const now = services.clock.now();
      const leads = await listRecentLeads(services.db, request.auth!.orgId, since, now);
      // LeadView carries the dynamic custom_<field_id> keys the static schema type cannot name.
      return { leads: leads as unknown as Static<typeof Lead>[] };
    },
  );
}

/** The leads endpoint group: polling, subscribe/unsubscribe and rotation. */
export function registerLeadRoutes(app: FastifyInstance, services: Services): void {
  registerLeadsPollRoute(app, services);
  registerSubscriptionRoutes(app, services);
}
