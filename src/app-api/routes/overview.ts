import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { AttentionItem, eventsWithoutAddress, mailAttentionItems } from "../../reports/app-overview.ts";
import { listEventTypes } from "../../reports/app-reads.ts";
import { FirstSteps, firstSteps } from "../../reports/first-steps.ts";
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
        summary:
          "What needs the contractor's attention (Overview): the platform pause, unbound event types, cards mailing without a return address, failed or undeliverable cards, automations turned off, failing lead webhooks",
        tags: ["Overview"],
        response: {
          200: Type.Object({ items: Type.Array(AttentionItem) }, { additionalProperties: false }),
        },
      },
    },
    async (request) => {
      await ctx.triggerStore.flushSamples();
      const items: AttentionItem[] = [];
      if (await ctx.killSwitch.isPaused()) {
        items.push({
          kind: "automations_paused",
          message: "Automations are paused platform-wide: no card is queued until the operator resumes them.",
        });
      }
      const eventTypes = await listEventTypes(db, sessionOf(request).orgId);
      items.push(...eventsWithoutAddress(eventTypes, ctx.clock.now()));
      for (const type of eventTypes) {
        // A test card sent from a turned-off automation mailed its card: no event went unheard.
        if (type.bound || type.only_test_cards) continue;
        items.push({
          kind: "unbound_event_type",
          event_type: type.event_type,
          message: type.turned_off_automation
            ? `Events of type "${type.event_type}" arrive but the automation "${type.turned_off_automation.name}" that listens to them is turned off, so they mail nothing.`
            : `Events of type "${type.event_type}" arrive but no enabled automation listens to them, so they mail nothing.`,
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
        response: { 200: FirstSteps },
      },
    },
    async (request) => {
      // Samples are written in batches: a test event sent a moment ago counts.
      await ctx.triggerStore.flushSamples();
      return firstSteps(db, sessionOf(request).orgId);
    },
  );
}
