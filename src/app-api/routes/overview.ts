import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { type AttentionItem, mailAttentionItems } from "../../reports/app-overview.ts";
import { listEventTypes } from "../../reports/app-reads.ts";
import { firstSteps } from "../../reports/first-steps.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

export function registerOverviewRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = ctx;

  r.get(
    "/attention",
    {
      schema: {
        operationId: "listAttention",
        summary: "What needs the contractor's attention (Overview): unbound event types, the platform pause",
        tags: ["Overview"],
        response: {
          200: Type.Object(
            {
              items: Type.Array(
                Type.Object(
                  {
                    kind: Type.Union([
                      Type.Literal("unbound_event_type"),
                      Type.Literal("automations_paused"),
                      Type.Literal("failed_pieces"),
                      Type.Literal("undeliverable_pieces"),
                      Type.Literal("automation_disabled"),
                      Type.Literal("subscription_failing"),
                    ]),
                    message: Type.String(),
                    event_type: Type.Optional(Type.String()),
                    automation_id: Type.Optional(Type.String()),
                    subscription_id: Type.Optional(Type.String()),
                  },
                  { additionalProperties: false },
                ),
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      await ctx.triggerStore.flushSamples();
      const items: {
        kind: "unbound_event_type" | "automations_paused" | AttentionItem["kind"];
        message: string;
        event_type?: string;
      }[] = [];
      if (await ctx.killSwitch.isPaused()) {
        items.push({
          kind: "automations_paused",
          message: "Automations are paused platform-wide: no card is queued until the operator resumes them.",
        });
      }
      for (const type of await listEventTypes(db, sessionOf(request).orgId)) {
        if (type.bound) continue;
        items.push({
          kind: "unbound_event_type",
          event_type: type.event_type,
          message: `Events of type "${type.event_type}" arrive but no enabled automation listens to them, so they mail nothing.`,
        });
      }
      items.push(...(await mailAttentionItems(db, sessionOf(request).orgId, ctx.clock.now())));
      return { items };
    },
  );

  r.get(
    "/first-steps",
    {
      schema: {
        operationId: "getFirstSteps",
        summary:
          "The first-run checklist (Overview): which of the first steps the organization's data shows as done",
        tags: ["Overview"],
        response: {
          200: Type.Object(
            {
              business_profile: Type.Boolean({
                description: "Settings has a business name and a return address.",
              }),
              automation: Type.Boolean({ description: "At least one automation exists." }),
              api_key: Type.Boolean({ description: "At least one API key is live (not revoked)." }),
              event: Type.Boolean({
                description: "At least one event has arrived through the developer API.",
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      // Samples are written in batches: a test event sent a moment ago counts.
      await ctx.triggerStore.flushSamples();
      return firstSteps(db, sessionOf(request).orgId);
    },
  );
}
