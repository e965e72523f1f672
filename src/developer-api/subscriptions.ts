import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { errorResponse } from "../http/error-responses.ts";
import { SENTENCE_STYLE } from "../http/error-style.ts";
import { authOf } from "../http/guards.ts";
import type { Services } from "../services.ts";
import { RotateRequest, SubscribeRequest, Unsubscribed, UnsubscribeQuery } from "../webhooks/schemas.ts";
import { createSubscriptionService, MAX_TARGET_URL_LENGTH, Subscription } from "../webhooks/subscriptions.ts";

/** Subscribe answers every failure as "Failed to subscribe" with a detail saying why. */
export const SUBSCRIBE_STYLE = {
  ...SENTENCE_STYLE,
  subscribe_failed: "Failed to subscribe",
  invalid_payload: "Failed to subscribe",
  invalid_json: "Failed to subscribe",
  internal_error: "Failed to subscribe",
};

/** Unsubscribe and rotate: older sentences, and a sentence for an unknown subscription. */
export const SUBSCRIPTION_CHANGE_STYLE = { ...SENTENCE_STYLE, not_found: "Subscription not found" };

/** POST/DELETE /webhooks/subscribe and POST /webhooks/rotate (scope webhooks:inbound). */
export function registerSubscriptionRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const subscriptionService = createSubscriptionService({
    db: services.db,
    clock: services.clock,
    guard: services.webhookTargetGuard,
  });

  r.post(
    "/webhooks/subscribe",
    {
      bodyLimit: 1_048_576,
      config: { scope: "webhooks:inbound", errorStyle: SUBSCRIBE_STYLE },
      schema: {
        operationId: "subscribeLeads",
        summary: "Subscribe an HTTPS endpoint to lead.created",
        description:
          "The signing secret is returned once, at creation; re-subscribing the same URL returns the existing id with `signing_secret: null`. The URL is stored normalized and without its `#fragment` (never sent), so URLs differing only by it are the same subscription; unsubscribe and rotate by target_url drop it too. The URL must be public https and resolve only to public addresses (checked here and again at every delivery). At most 20 subscriptions per organization.",
        body: SubscribeRequest,
        response: {
          200: Subscription,
          400: errorResponse("The URL or event was refused (not https, not public, unresolvable).", [
            "Failed to subscribe",
          ]),
          422: errorResponse(
            `Body validation failed (also: target_url over ${MAX_TARGET_URL_LENGTH} characters once normalized); the detail names the field.`,
            ["Failed to subscribe"],
          ),
        },
      },
    },
    async (request) => subscriptionService.subscribe(authOf(request).orgId, request.body, request.log),
  );

  r.delete(
    "/webhooks/subscribe",
    {
      config: { scope: "webhooks:inbound", errorStyle: SUBSCRIPTION_CHANGE_STYLE },
      schema: {
        operationId: "unsubscribeLeads",
        summary: "Delete a subscription by id or target_url",
        description:
          "The subscription is named in the query string (`?id=` or `?target_url=`, URL-encoded); a request body is not read. Org-scoped: another organization's id answers like a missing one (404 `Subscription not found`). Only the request that removed the subscription answers 200; a repeat (or parallel) delete of it answers 404, which a retrying client can read as already deleted. Deliveries not yet sent to it are dropped.",
        querystring: UnsubscribeQuery,
        response: {
          200: Unsubscribed,
          400: errorResponse(
            "Neither (or an empty one) or both of id and target_url were sent, or an event other than lead.created.",
            ["invalid_payload"],
          ),
          404: errorResponse("No such subscription in the caller's organization (also: already deleted).", [
            "Subscription not found",
          ]),
        },
      },
    },
    async (request) => {
      const removed = await subscriptionService.unsubscribe(authOf(request).orgId, request.query);
      return { id: removed.id, target_url: removed.target_url, event: removed.event, deleted: true as const };
    },
  );

  r.post(
    "/webhooks/rotate",
    {
      bodyLimit: 1_048_576,
      config: { scope: "webhooks:inbound", errorStyle: SUBSCRIPTION_CHANGE_STYLE },
      schema: {
        operationId: "rotateSigningSecret",
        summary: "Replace a subscription's signing secret",
        description:
          "Identify the subscription by `id`, or by `target_url` (and `event`). The new secret is returned once and signs every delivery from now on; a legacy unsigned subscription becomes signed.",
        body: RotateRequest,
        response: {
          200: Subscription,
          400: errorResponse(
            "Neither (or an empty one) or both of id and target_url were sent, or an event other than lead.created.",
            ["invalid_payload"],
          ),
          404: errorResponse("No such subscription in the caller's organization.", [
            "Subscription not found",
          ]),
        },
      },
    },
    async (request) => subscriptionService.rotate(authOf(request).orgId, request.body),
  );
}
