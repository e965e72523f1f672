import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { AppError, notFound } from "../../errors.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import {
  AppDelivery,
  AppSubscription,
  listAppDeliveries,
  listAppSubscriptions,
  queueTestDelivery,
} from "../../webhooks/app-webhooks.ts";
import { createSubscriptionService, MAX_TARGET_URL_LENGTH } from "../../webhooks/subscriptions.ts";
import type { BlockedTargetError } from "../../webhooks/target-guard.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Send test presses one endpoint takes (docs/webhooks.md). */
export const TEST_PRESSES_PER_ENDPOINT = { limit: 10, windowSeconds: 600 };

/**
 * A refused endpoint as the contractor reads it: the developer API's "does not resolve to a public
 * address" is a developer's wording. The same words whether the host does not resolve or resolves
 * to a private address, as there (no probing of internal names).
 */
function refusalInWords(refusal: BlockedTargetError): string {
  if (refusal.hostNotPublic === undefined) return refusal.callerReason;
  return `We could not reach ${refusal.hostNotPublic} on the public internet. Check the address is your CRM's public URL, not a local or private one.`;
}

/** A subscription with its signing secret, which this one answer shows. */
const SubscriptionWithSecret = Type.Object(
  {
    id: Type.String(),
    target_url: Type.String(),
    event: Type.String(),
    signing_secret: Type.String({ description: "Shown in this answer only; store it in the receiver." }),
  },
  { additionalProperties: false },
);

/**
 * Developers → Webhooks: an owner's view of the developer API's subscriptions. Target URLs often
 * carry the receiver's own secret (Zapier's catch hooks), so members see none of this (403).
 */
export function registerWebhookRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;
  const subscriptions = createSubscriptionService({
    db,
    clock,
    guard: ctx.webhookTargetGuard,
    refusalDetail: refusalInWords,
    capReachedDetail: (max) =>
      `You have ${max} webhook endpoints, the most an organization can have. Delete one you no longer use, then add this one.`,
  });
  const owner = { appAccess: "owner" as const };

  r.get(
    "/subscriptions",
    {
      config: owner,
      schema: {
        operationId: "listSubscriptions",
        summary: "Webhook subscriptions with their latest deliveries (owners only)",
        tags: ["Developers"],
        response: {
          200: Type.Object({ subscriptions: Type.Array(AppSubscription) }, { additionalProperties: false }),
        },
      },
    },
    async (request) => ({ subscriptions: await listAppSubscriptions(db, sessionOf(request).orgId) }),
  );

  r.post(
    "/subscriptions",
    {
      config: owner,
      schema: {
        operationId: "createSubscription",
        summary: "Subscribes an HTTPS endpoint to new leads; the signing secret is in this answer only",
        description:
          "The same rules as the developer API's subscribe: public https only, resolving only to public addresses (checked here and at every delivery), at most 20 per organization. A URL already subscribed answers 409 `already_subscribed` (rotate its secret to get a new one).",
        tags: ["Developers"],
        body: Type.Object(
          { target_url: Type.String({ minLength: 1, maxLength: MAX_TARGET_URL_LENGTH }) },
          { additionalProperties: false },
        ),
        response: { 201: SubscriptionWithSecret },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = sessionOf(request);
      const created = await subscriptions.subscribe(orgId, request.body, request.log);
      if (created.signing_secret === null) {
        throw new AppError(
          409,
          "already_subscribed",
          "This URL is already subscribed. Rotate its secret if you need to see a new one.",
        );
      }
      request.log.info({ orgId, subscriptionId: created.id, userId }, "app user added a webhook");
      return reply.code(201).send({ ...created, signing_secret: created.signing_secret });
    },
  );

  r.post(
    "/subscriptions/:id/test",
    {
      config: owner,
      schema: {
        operationId: "testSubscription",
        summary:
          "Queues a test delivery: the sample lead (`test: true`), signed like a real one. While one is still waiting for this endpoint, answers that one's id and queues nothing; at most 10 presses per endpoint in 10 minutes (429 rate_limited)",
        tags: ["Developers"],
        params: IdParams,
        response: {
          202: Type.Object({ delivery_id: Type.String() }, { additionalProperties: false }),
        },
      },
    },
    async (request, reply) => {
      const { orgId } = sessionOf(request);
      // One endpoint, one key: PostgreSQL reads "2EB4…" and "2eb4…" as one uuid, so each spelling
      // must not get presses (and a waiting test) of its own.
      const subscriptionId = request.params.id.toLowerCase();
      // A test sent and answered can be pressed again at once: without a cap, a loop would still
      // make the service send the endpoint's server a request every few hundred milliseconds.
      await enforceRateLimit(
        ctx.limiter,
        { bucket: "app-webhook-tests", ...TEST_PRESSES_PER_ENDPOINT },
        `${orgId}:${subscriptionId}`,
        "too many tests of this endpoint; wait and try again",
      );
      const deliveryId = await queueTestDelivery(db, orgId, subscriptionId, clock.now());
      return reply.code(202).send({ delivery_id: deliveryId });
    },
  );

  r.post(
    "/subscriptions/:id/rotate-secret",
    {
      config: owner,
      schema: {
        operationId: "rotateSubscriptionSecret",
        summary: "Replaces the signing secret, which this answer shows once; the next delivery signs with it",
        tags: ["Developers"],
        params: IdParams,
        response: { 200: SubscriptionWithSecret },
      },
    },
    async (request) => {
      const { orgId, userId } = sessionOf(request);
      const rotated = await subscriptions.rotate(orgId, { id: request.params.id });
      request.log.info({ orgId, subscriptionId: rotated.id, userId }, "app user rotated a webhook secret");
      return { ...rotated, signing_secret: rotated.signing_secret ?? "" };
    },
  );

  r.delete(
    "/subscriptions/:id",
    {
      config: owner,
      schema: {
        operationId: "deleteSubscription",
        summary: "Deletes a subscription; deliveries not yet sent to it are dropped",
        tags: ["Developers"],
        params: IdParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { orgId, userId } = sessionOf(request);
      const removed = await subscriptions.unsubscribe(orgId, { id: request.params.id });
      request.log.info({ orgId, subscriptionId: removed.id, userId }, "app user deleted a webhook");
      return reply.code(204).send(null);
    },
  );

  r.get(
    "/subscriptions/:id/deliveries",
    {
      config: owner,
      schema: {
        operationId: "listSubscriptionDeliveries",
        summary: "A subscription's deliveries, newest first (at most 200), test deliveries marked",
        tags: ["Developers"],
        params: IdParams,
        response: {
          200: Type.Object({ deliveries: Type.Array(AppDelivery) }, { additionalProperties: false }),
        },
      },
    },
    async (request) => {
      const deliveries = await listAppDeliveries(db, sessionOf(request).orgId, request.params.id);
      if (!deliveries) throw notFound("subscription not found");
      return { deliveries };
    },
  );
}
