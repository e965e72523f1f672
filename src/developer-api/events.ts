import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { attributeContactWith } from "../attribution/tracking-lead.ts";
import { errorResponse } from "../http/error-responses.ts";
import { MACHINE_STYLE } from "../http/error-style.ts";
import { authOf } from "../http/guards.ts";
import { ErrorBody } from "../http/schemas.ts";
import { attributionDeps, type Services } from "../services.ts";
import {
  dropIgnoredPropertyOrgId,
  EVENTS_BODY_LIMIT,
  EventEnvelope,
  EventResult,
} from "../trigger/envelope.ts";
import { createEventService } from "../trigger/event-service.ts";

/**
 * No query parameters: `?dry_run=true` would otherwise be ignored and the event mailed. Every
 * envelope field goes in the body.
 */
const EventsQuery = Type.Object(
  {},
  { additionalProperties: false, description: "None: every field, `dry_run` included, goes in the body." },
);

export function registerEventRoutes(app: FastifyInstance, services: Services): void {
  const events = createEventService({
    db: services.db,
    clock: services.clock,
    logger: services.logger,
    killSwitch: services.killSwitch,
    boundAutomations: services.boundAutomations,
    triggerStore: services.triggerStore,
    // Contact events with an address and an email or phone also go through indirect attribution.
    attributeContact: attributeContactWith(attributionDeps(services)),
  });

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    "/events",
    {
      bodyLimit: EVENTS_BODY_LIMIT,
      preValidation: (request, _reply, done) => {
        dropIgnoredPropertyOrgId(request.body);
        done();
      },
      config: {
        scope: "events:write",
        errorStyle: MACHINE_STYLE,
        orgRateLimit: { bucket: "events", limit: 120, windowSeconds: 60 },
      },
      schema: {
        operationId: "sendEvent",
        summary: "Ingest an event",
        description:
          "Matches the event against automations bound to `custom.<event_type>` and enqueues one campaign per matching automation and `dedup_id`. Replays are absorbed; `dry_run` evaluates without writing anything. Live events keep the 25 newest per `event_type` as samples for the app's binding picker, written within 250 ms of the event.",
        querystring: EventsQuery,
        body: EventEnvelope,
        response: {
          202: EventResult,
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          413: ErrorBody,
          422: ErrorBody,
          429: ErrorBody,
          500: ErrorBody,
          503: errorResponse(
            "automations_disabled: the platform kill switch is on (Retry-After: 300); retry, do not drop.",
            ["automations_disabled"],
          ),
        },
      },
    },
    async (request, reply) => {
      const result = await events.ingest(authOf(request).orgId, request.body);
      services.metrics.eventsAccepted.inc({ outcome: eventOutcome(result) });
      return reply.code(202).send(result);
    },
  );
}

/** One bounded label per accepted event (porchlight_events_accepted_total). */
function eventOutcome(result: {
  duplicate: boolean;
  dry_run?: true;
  outcomes: { reason: string }[];
}): string {
  if (result.dry_run) return "dry_run";
  if (result.outcomes.length === 0) return "no_automation";
  if (result.outcomes.some((outcome) => outcome.reason === "queued")) return "queued";
  if (result.duplicate) return "duplicate";
  return result.outcomes[0]?.reason ?? "no_automation";
}
