import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { createAutomation, listAutomations, updateAutomation } from "../automations/automations.ts";
import { SequenceStepsInput, StopWhen } from "../automations/sequence-steps.ts";
import { AutomationFilter, filterProblem } from "../domain/filters.ts";
import { HoldoutPercent } from "../domain/holdout-group.ts";
import { OneLineText } from "../domain/one-line-text.ts";
import { invalidPayload } from "../errors.ts";
import { AudienceInput } from "../neighbours/audience.ts";
import { stopFollowUpsEndedBySave } from "../pieces/follow-ups.ts";
import type { Services } from "../services.ts";
import { IdParams, OrgParams } from "./orgs.ts";

const EVENT_TYPE_PATTERN = "^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$";

const Trigger = Type.Object(
  {
    type: Type.Literal("custom_api"),
    event_type: Type.String({ pattern: EVENT_TYPE_PATTERN, maxLength: 64 }),
    object_type: Type.Optional(
      Type.Union([Type.Literal("job"), Type.Literal("deal"), Type.Literal("contact")]),
    ),
  },
  { additionalProperties: false },
);

const automationFields = {
  name: OneLineText({ minLength: 1, maxLength: 200 }),
  enabled: Type.Boolean(),
  kind: Type.Union([Type.Literal("standard"), Type.Literal("deal_won")]),
  trigger: Type.Union([Trigger, Type.Null()]),
  filters: Type.Array(AutomationFilter, { maxItems: 50 }),
  suppress_customers: Type.Boolean(),
  audience: AudienceInput,
  steps: SequenceStepsInput,
  stop_when: StopWhen,
  holdout_percent: HoldoutPercent,
};

const CreateAutomation = Type.Object(
  {
    name: automationFields.name,
    enabled: Type.Optional(automationFields.enabled),
    kind: Type.Optional(automationFields.kind),
    trigger: Type.Optional(automationFields.trigger),
    filters: Type.Optional(automationFields.filters),
    suppress_customers: Type.Optional(automationFields.suppress_customers),
    audience: Type.Optional(automationFields.audience),
    steps: Type.Optional(automationFields.steps),
    stop_when: Type.Optional(automationFields.stop_when),
    holdout_percent: Type.Optional(automationFields.holdout_percent),
  },
  { additionalProperties: false },
);

const PatchAutomation = Type.Partial(Type.Object(automationFields), {
  additionalProperties: false,
  minProperties: 1,
});

/** A filter's op and value are checked together, before the schema, so the detail names the real mistake. */
async function checkFilters(request: FastifyRequest) {
  const problem = filterProblem((request.body as { filters?: unknown } | null)?.filters);
  if (problem) throw invalidPayload(problem);
}

export function registerAdminAutomationRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    "/orgs/:org_id/automations",
    { schema: { hide: true, params: OrgParams, body: CreateAutomation }, preValidation: checkFilters },
    async (request, reply) => {
      const automation = await createAutomation(services.db, request.params.org_id, request.body);
      services.boundAutomations.invalidate(automation.org_id);
      return reply.code(201).send(automation);
    },
  );
  r.get("/orgs/:org_id/automations", { schema: { hide: true, params: OrgParams } }, async (request) => ({
    automations: await listAutomations(services.db, request.params.org_id),
  }));
  r.patch(
    "/automations/:id",
    { schema: { hide: true, params: IdParams, body: PatchAutomation }, preValidation: checkFilters },
    async (request) => {
      const automation = await updateAutomation(services.db, request.params.id, request.body);
      if (request.body.steps !== undefined || request.body.enabled === false)
        await stopFollowUpsEndedBySave(
          services.db,
          { orgId: automation.org_id, id: automation.id },
          services.clock.now(),
        );
      services.boundAutomations.invalidate(automation.org_id);
      return automation;
    },
  );
}
