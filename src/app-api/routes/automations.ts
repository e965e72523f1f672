import { type Static, Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  type Automation,
  createAutomation,
  draftSuppressesCustomers,
  findAutomation,
  findAutomationTemplate,
  listAutomations,
  storeAutomationTemplate,
  suppressesCustomersByDefault,
  updateAutomation,
} from "../../automations/automations.ts";
import { DelayDays, MAX_FOLLOW_UPS, StopWhen } from "../../automations/sequence-steps.ts";
import type { Queryable } from "../../db/database.ts";
import { mailAddressOf } from "../../domain/address.ts";
import { writtenAddressOf } from "../../domain/deliverable-address.ts";
import { AutomationFilter, filterProblem, passesFilter } from "../../domain/filters.ts";
import { HoldoutPercent } from "../../domain/holdout-group.ts";
import { OneLineText } from "../../domain/one-line-text.ts";
import type { StopCondition } from "../../domain/stop-conditions.ts";
import { invalidPayload, notFound } from "../../errors.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import {
  assertMayMailCustomers,
  newAutomationAsksApproval,
  updateOrgAutomationSafety,
} from "../../mail-safety/org-controls.ts";
import { SampleMailSafety, sampleMailSafety } from "../../mail-safety/sample-check.ts";
import {
  AudienceInput,
  isNeighbours,
  NEIGHBOUR_DEFAULT_TEMPLATE,
  resolveAudience,
} from "../../neighbours/audience.ts";
import { AreaCoverage, areaCoverage } from "../../neighbours/coverage.ts";
import {
  NeighbourPreview,
  neighbourCardProperties,
  previewNeighbours,
} from "../../neighbours/neighbour-preview.ts";
import { loadCardSender } from "../../orgs/card-sender.ts";
import { landingUrl } from "../../pieces/campaigns.ts";
import { stopFollowUpsEndedBySave } from "../../pieces/follow-ups.ts";
import { composeCard } from "../../render/compose.ts";
import { CardSizeSchema, resolveTemplate } from "../../render/template.ts";
import { type AutomationCards, automationCards, findSample } from "../../reports/app-reads.ts";
import {
  type AutomationFollowUps,
  type FollowUpCounts,
  followUpFigures,
  noFollowUps,
} from "../../reports/follow-up-figures.ts";
import { TriggerReasonSchema } from "../../trigger/envelope.ts";
import { runTrigger } from "../../trigger/trigger-core.ts";
import {
  assertCardFits,
  assertTemplate,
  CardFitView,
  CardTemplate,
  cardFitView,
  drawProof,
  ProofView,
  proofHomeImage,
  storedTemplate,
} from "../card-proof.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const EVENT_TYPE_PATTERN = "^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$";
const ObjectTypeSchema = Type.Union([Type.Literal("job"), Type.Literal("deal"), Type.Literal("contact")]);
const KindSchema = Type.Union([Type.Literal("standard"), Type.Literal("deal_won")]);

const Trigger = Type.Object(
  {
    type: Type.Literal("custom_api"),
    event_type: Type.String({ pattern: EVENT_TYPE_PATTERN, maxLength: 64 }),
    object_type: Type.Optional(ObjectTypeSchema),
  },
  { additionalProperties: false },
);

const draftFields = {
  name: OneLineText({ minLength: 1, maxLength: 200 }),
  enabled: Type.Boolean(),
  kind: KindSchema,
  trigger: Type.Union([Trigger, Type.Null()]),
  filters: Type.Array(AutomationFilter, { maxItems: 50 }),
  suppress_customers: Type.Boolean(),
  template: CardTemplate,
  // The operator API's own schema and service: the same limits and defaults.
  audience: AudienceInput,
  steps: Type.Array(
    Type.Object({ delay_days: DelayDays, template: CardTemplate }, { additionalProperties: false }),
    {
      maxItems: MAX_FOLLOW_UPS,
      description:
        "Up to three follow-up cards, each with its whole card; an empty list mails the first card only.",
    },
  ),
  stop_when: StopWhen,
  holdout_percent: HoldoutPercent,
};
const CreateAutomation = Type.Object(
  {
    name: draftFields.name,
    enabled: Type.Optional(draftFields.enabled),
    kind: Type.Optional(draftFields.kind),
    trigger: Type.Optional(draftFields.trigger),
    filters: Type.Optional(draftFields.filters),
    suppress_customers: Type.Optional(draftFields.suppress_customers),
    template: Type.Optional(draftFields.template),
    audience: Type.Optional(draftFields.audience),
    steps: Type.Optional(draftFields.steps),
    stop_when: Type.Optional(draftFields.stop_when),
    holdout_percent: Type.Optional(draftFields.holdout_percent),
    approval_required: Type.Optional(
      Type.Boolean({
        description:
          "Hold each of its cards for approval from its first one (the same setting as `PATCH /automations/{id}/safety`), set with the automation itself so no event mails a card in between; default false. A member's new automation always asks for approval (true whatever is sent) until an owner switches it off.",
      }),
    ),
  },
  { additionalProperties: false },
);
const PatchAutomation = Type.Partial(Type.Object(draftFields), {
  additionalProperties: false,
  minProperties: 1,
});

const TemplateView = Type.Object(
  {
    headline: Type.String(),
    message: Type.String(),
    offer: Type.Union([Type.String(), Type.Null()]),
    card_size: CardSizeSchema,
  },
  { additionalProperties: false },
);
const followUpCountFields = {
  scheduled: Type.Integer({ description: "Waiting for their day." }),
  waiting: Type.Integer({
    description:
      "Their day came: on their way through the mail safety rules (queued, on hold, awaiting approval, paused by a cap).",
  }),
  sent_to_print: Type.Integer({ description: "Handed to the printer." }),
  stopped_because_home_answered: Type.Integer({
    description:
      "Stopped before print because the home answered first: a lead, a won deal, an opt-out or the home becoming a customer (of the automation's stop_when).",
  }),
  not_sent: Type.Integer({
    description:
      "Not sent for another reason: cancelled by a person, first card not mailed, a card of the sequence returned by the printer, step removed, automation turned off, a mail safety rule.",
  }),
  stopped_because: Type.Object(
    {
      lead: Type.Integer({ description: "A lead came from a card of the sequence." }),
      won_deal: Type.Integer({ description: "A deal was won at the home." }),
      opt_out: Type.Integer({ description: "The home asked for no more mail." }),
      customer: Type.Integer({ description: "The home became a customer." }),
      returned: Type.Integer({ description: "The printer returned a card of the sequence." }),
    } satisfies Record<StopCondition, unknown>,
    {
      additionalProperties: false,
      description:
        "The follow-ups stopped by the automation's stop_when, by what stopped them: the home's answers (counted in stopped_because_home_answered) and the printer's return (counted in not_sent).",
    },
  ),
};
const FollowUpCards = Type.Object(
  {
    ...followUpCountFields,
    by_step: Type.Array(
      Type.Object({ delay_days: Type.Integer(), ...followUpCountFields }, { additionalProperties: false }),
      { description: "The automation's follow-up cards in mailing order, each named by its delay." },
    ),
  },
  {
    additionalProperties: false,
    description:
      "Every follow-up card the automation has written since it began, by what became of it (steps since removed count in the totals only).",
  },
);

const AutomationView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    enabled: Type.Boolean(),
    kind: KindSchema,
    trigger: Type.Union([
      Type.Object(
        {
          type: Type.Literal("custom_api"),
          event_type: Type.String(),
          object_type: Type.Optional(ObjectTypeSchema),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    filters: Type.Array(AutomationFilter),
    suppress_customers: Type.Boolean(),
    template: TemplateView,
    audience: Type.Union([
      Type.Object({ type: Type.Literal("home") }, { additionalProperties: false }),
      Type.Object(
        { type: Type.Literal("neighbours"), count: Type.Integer(), radius_m: Type.Integer() },
        { additionalProperties: false },
      ),
    ]),
    steps: Type.Array(
      Type.Object({ delay_days: Type.Integer(), template: TemplateView }, { additionalProperties: false }),
      { description: "The follow-up cards, in the order they are mailed." },
    ),
    stop_when: StopWhen,
    holdout_percent: HoldoutPercent,
    cards_sent_to_print_this_month: Type.Integer({
      description:
        "Cards handed to print since the 1st (UTC), as the month's mail safety use counts them; a follow-up counts once it goes.",
    }),
    cards_waiting: Type.Integer({
      description:
        "Cards waiting before print now (on hold, awaiting approval, paused by a cap); follow-ups scheduled for a later day are not.",
    }),
    follow_up_cards: FollowUpCards,
    created_at: Type.String({ format: "date-time" }),
    updated_at: Type.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

async function checkFilters(request: FastifyRequest) {
  const problem = filterProblem((request.body as { filters?: unknown } | null)?.filters);
  if (problem) throw invalidPayload(problem);
}

function templateView(stored: unknown): Static<typeof TemplateView> {
  const resolved = resolveTemplate(stored);
  const offer = (stored as { offer?: unknown } | null)?.offer;
  return {
    headline: resolved.headline,
    message: resolved.message,
    offer: typeof offer === "string" && offer ? offer : null,
    card_size: resolved.size,
  };
}

/** The counts an automation's view shows, read once for the whole list. */
interface AutomationReads {
  cards: Map<string, AutomationCards>;
  followUps: Map<string, AutomationFollowUps>;
}
const NOT_READ: AutomationReads = { cards: new Map(), followUps: new Map() };

/** A returned card is the printer's answer, not the home's: its follow-ups count as not sent. */
const homeAnswered = ({ stoppedByAnswer: by }: FollowUpCounts) =>
  by.lead + by.won_deal + by.opt_out + by.customer;

const followUpCountsView = (counts: FollowUpCounts) => ({
  scheduled: counts.scheduled,
  waiting: counts.waiting,
  sent_to_print: counts.sentToPrint,
  stopped_because_home_answered: homeAnswered(counts),
  not_sent: counts.notSent + counts.stoppedByAnswer.returned,
  stopped_because: { ...counts.stoppedByAnswer },
});

function followUpCardsView(
  automation: Automation,
  figures: AutomationFollowUps | undefined,
): Static<typeof FollowUpCards> {
  const total = figures?.total ?? noFollowUps();
  return {
    ...followUpCountsView(total),
    by_step: automation.steps.map((step) => ({
      delay_days: step.delay_days,
      ...followUpCountsView(figures?.byStepDelay.get(step.delay_days) ?? noFollowUps()),
    })),
  };
}

export function registerAutomationRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;

  const readTemplate = (orgId: string, id: string, on: Queryable = db) =>
    findAutomationTemplate(on, orgId, id);
  const writeTemplate = async (orgId: string, id: string, template: CardTemplate, on: Queryable = db) => {
    const next = storedTemplate(await readTemplate(orgId, id, on), template);
    await storeAutomationTemplate(on, { orgId, id }, next);
  };
  /** The card a save would print must fit it: checked before anything is written. */
  const assertFits = async (orgId: string, previous: unknown, template: CardTemplate) => {
    const resolved = resolveTemplate(storedTemplate(previous, template));
    await assertCardFits(ctx.renderer, resolved, await loadCardSender(db, orgId));
  };
  const view = async (automation: Automation, reads: AutomationReads = NOT_READ) => ({
    id: automation.id,
    name: automation.name,
    enabled: automation.enabled,
    kind: automation.kind,
    trigger: automation.trigger,
    filters: automation.filters,
    suppress_customers: automation.suppress_customers,
    template: templateView(await readTemplate(automation.org_id, automation.id)),
    audience: automation.audience,
    steps: automation.steps.map((step) => ({
      delay_days: step.delay_days,
      template: templateView(step.template),
    })),
    stop_when: automation.stop_when,
    holdout_percent: automation.holdout_percent,
    cards_sent_to_print_this_month: reads.cards.get(automation.id)?.sentToPrintThisMonth ?? 0,
    cards_waiting: reads.cards.get(automation.id)?.waiting ?? 0,
    follow_up_cards: followUpCardsView(automation, reads.followUps.get(automation.id)),
    created_at: automation.created_at,
    updated_at: automation.updated_at,
  });
  const readCounts = async (orgId: string): Promise<AutomationReads> => {
    const [cards, followUps] = await Promise.all([
      automationCards(db, orgId, clock.now()),
      followUpFigures(db, orgId),
    ]);
    return { cards, followUps };
  };
  const findOwn = async (orgId: string, id: string) => {
    const automation = /^[0-9a-f-]{36}$/i.test(id) ? await findAutomation(db, orgId, id) : undefined;
    if (!automation) throw notFound("automation not found");
    return automation;
  };

  r.get(
    "/automations",
    {
      schema: {
        operationId: "listAutomations",
        summary:
          "The organization's automations, with the cards each sent to print this month and has waiting",
        tags: ["Automations"],
        response: {
          200: Type.Object({ automations: Type.Array(AutomationView) }, { additionalProperties: false }),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const [reads, automations] = await Promise.all([readCounts(orgId), listAutomations(db, orgId)]);
      return { automations: await Promise.all(automations.map((a) => view(a, reads))) };
    },
  );

  r.post(
    "/automations",
    {
      preValidation: checkFilters,
      schema: {
        operationId: "createAutomation",
        summary: "Creates an automation (the same rules as the operator API's)",
        tags: ["Automations"],
        body: CreateAutomation,
        response: { 201: AutomationView },
      },
    },
    async (request, reply) => {
      const { orgId, role } = sessionOf(request);
      const { template, ...input } = request.body;
      const actor = { isOwner: role === "owner" };
      assertMayMailCustomers(
        actor,
        suppressesCustomersByDefault(input.kind ?? "standard"),
        input.suppress_customers,
      );
      const approval_required = newAutomationAsksApproval(actor, request.body.approval_required);
      assertTemplate(template);
      if (template) {
        const base = isNeighbours(resolveAudience(input.audience)) ? NEIGHBOUR_DEFAULT_TEMPLATE : null;
        await assertFits(orgId, base, template);
      }
      // One transaction: no event sees the automation before its card and its approval setting.
      const automation = await db.transaction(async (tx) => {
        const created = await createAutomation(tx, orgId, withStoredSteps(input));
        if (template) await writeTemplate(orgId, created.id, template, tx);
        if (approval_required) {
          await updateOrgAutomationSafety(tx, orgId, created.id, { approval_required }, clock.now(), actor);
        }
        return created;
      });
      ctx.boundAutomations.invalidate(orgId);
      return reply.code(201).send(await view(automation));
    },
  );

  r.get(
    "/automations/:id",
    {
      schema: {
        operationId: "getAutomation",
        summary: "One automation",
        tags: ["Automations"],
        params: IdParams,
        response: { 200: AutomationView },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const automation = await findOwn(orgId, request.params.id);
      return view(automation, await readCounts(orgId));
    },
  );

  r.patch(
    "/automations/:id",
    {
      preValidation: checkFilters,
      schema: {
        operationId: "updateAutomation",
        summary: "Changes an automation (any of its fields, e.g. `enabled`)",
        tags: ["Automations"],
        params: IdParams,
        body: PatchAutomation,
        response: { 200: AutomationView },
      },
    },
    async (request) => {
      const { orgId, role } = sessionOf(request);
      const current = await findOwn(orgId, request.params.id);
      const { template, ...patch } = request.body;
      // A kind changed without a suppression takes the new kind's default (a won deal's card mails customers).
      const kindDefault =
        patch.kind !== undefined && patch.kind !== current.kind
          ? suppressesCustomersByDefault(patch.kind)
          : undefined;
      // Judged on the end state: a new kind's suppression is decided anew, also when it was off before
      // (a won deal's automation, made to mail customers, turned standard with suppression off).
      assertMayMailCustomers(
        { isOwner: role === "owner" },
        current.suppress_customers || kindDefault !== undefined,
        patch.suppress_customers ?? kindDefault,
      );
      assertTemplate(template);
      if (template) await assertFits(orgId, await readTemplate(orgId, request.params.id), template);
      let automation =
        Object.keys(patch).length > 0
          ? await updateAutomation(db, request.params.id, withStoredSteps(patch))
          : await findOwn(orgId, request.params.id);
      if (patch.steps !== undefined || patch.enabled === false)
        await stopFollowUpsEndedBySave(db, { orgId, id: automation.id }, clock.now());
      if (template) {
        await writeTemplate(orgId, automation.id, template);
        automation = await findOwn(orgId, automation.id);
      }
      ctx.boundAutomations.invalidate(orgId);
      return view(automation, await readCounts(orgId));
    },
  );

  r.post(
    "/automations/dry-run",
    {
      preValidation: checkFilters,
      schema: {
        operationId: "dryRunAutomation",
        summary: "Tests an automation draft against a recent sample: what would happen, writing nothing",
        tags: ["Automations"],
        body: Type.Object(
          {
            automation: Type.Object(
              {
                name: Type.Optional(draftFields.name),
                kind: Type.Optional(draftFields.kind),
                filters: Type.Optional(draftFields.filters),
                template: Type.Optional(draftFields.template),
                audience: Type.Optional(draftFields.audience),
                approval_required: Type.Optional(
                  Type.Boolean({
                    description:
                      "The draft's own approval setting (a new automation's form); absent: the saved automation's (`automation_id`), else false.",
                  }),
                ),
                holdout_percent: Type.Optional(draftFields.holdout_percent),
              },
              { additionalProperties: true },
            ),
            automation_id: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                description:
                  "The saved automation this draft edits: its hold window, approval mode, monthly caps and customer suppression apply, as they would to a real event now.",
              }),
            ),
            sample_id: Type.String({ minLength: 1, maxLength: 100 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              outcome: TriggerReasonSchema,
              failing_filter: Type.Optional(AutomationFilter),
              address: Type.Union([Type.String(), Type.Null()]),
              merge_preview: Type.Object(
                { headline: Type.String(), message: Type.String() },
                { additionalProperties: false },
              ),
              neighbours: Type.Optional(NeighbourPreview),
              area: Type.Optional(AreaCoverage),
              mail_safety: Type.Optional(SampleMailSafety),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      const saved =
        request.body.automation_id === undefined
          ? undefined
          : await findOwn(session.orgId, request.body.automation_id);
      const sample = await findSample(db, session.orgId, request.body.sample_id);
      if (!sample) throw notFound("sample not found");
      const properties = propertiesOf(sample.record);
      const filters = (request.body.automation.filters ?? []) as AutomationFilter[];
      const kind = request.body.automation.kind ?? "standard";
      const draft: Automation = {
        id: "00000000-0000-0000-0000-000000000000",
        org_id: session.orgId,
        name: request.body.automation.name ?? "Draft",
        enabled: true,
        kind,
        trigger: null,
        filters,
        suppress_customers: draftSuppressesCustomers(saved, kind),
        audience: resolveAudience(request.body.automation.audience),
        holdout_percent: 0,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      } as Automation;
      // The trigger core's own decision, read-only (dryRun: no campaign, no job, no sample).
      const run = await runTrigger(
        { db, clock, logger: ctx.logger, triggerStore: ctx.triggerStore },
        {
          orgId: session.orgId,
          candidates: [draft],
          properties,
          dedup: null,
          origin: "event",
          source: "app",
          dryRun: true,
          eventType: sample.event_type,
        },
      );
      const outcome = run.outcomes[0]!;
      const failing =
        outcome.reason === "filtered_out" ? filters.find((f) => !passesFilter(f, properties)) : undefined;
      const card = composeCard({
        ...proofInput(
          request.body.automation.template,
          isNeighbours(draft.audience) ? neighbourCardProperties(properties) : properties,
          session.orgName,
          ctx.config.publicBaseUrl,
        ),
        sender: await loadCardSender(db, session.orgId),
      });
      const neighbours =
        isNeighbours(draft.audience) && outcome.reason === "queued" && run.address
          ? await previewNeighbours(db, {
              orgId: session.orgId,
              addressLine: run.address.line,
              street: run.address.parts.street ?? null,
              audience: draft.audience,
              now: clock.now(),
            })
          : undefined;
      // A neighbour automation's test says whether addresses are loaded around the job at all.
      const area = isNeighbours(draft.audience) ? await areaCoverage(db, run.address?.parts.zip) : undefined;
      // What a real card would meet after the trigger, in the pipeline: mail safety, on reads only.
      const mailSafety =
        outcome.reason === "queued" && run.address
          ? await sampleMailSafety(db, {
              orgId: session.orgId,
              automationId: saved?.id ?? null,
              addressLine: run.address.line,
              writtenAddress: writtenAddressOf(run.address.line, run.address.parts),
              verifierName: ctx.config.addressVerifier,
              suppressCustomers: draft.suppress_customers,
              approvalRequired:
                saved === undefined
                  ? newAutomationAsksApproval(
                      { isOwner: session.role === "owner" },
                      request.body.automation.approval_required,
                    )
                  : request.body.automation.approval_required,
              holdoutPercent: request.body.automation.holdout_percent ?? saved?.holdout_percent ?? 0,
              mailsTheHome: !isNeighbours(draft.audience),
              now: clock.now(),
            })
          : undefined;
      return {
        outcome: outcome.reason,
        ...(failing ? { failing_filter: failing } : {}),
        address: run.address?.line ?? null,
        merge_preview: { headline: card.headline, message: card.message },
        ...(neighbours ? { neighbours } : {}),
        ...(area ? { area } : {}),
        ...(mailSafety ? { mail_safety: mailSafety } : {}),
      };
    },
  );

  r.post(
    "/card-fit",
    {
      schema: {
        operationId: "checkCardFit",
        summary:
          "Whether the card's text fits its card, merge fields at their longest: the rule a save applies, for the builder to show as the contractor types. Text a save refuses for another reason (an unknown merge field, characters the typeface cannot print) is refused here with the same 422",
        tags: ["Automations"],
        body: Type.Object(
          { template: CardTemplate, audience: Type.Optional(draftFields.audience) },
          { additionalProperties: false },
        ),
        response: { 200: CardFitView },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      await enforceRateLimit(ctx.limiter, CARD_FIT_CHECKS, session.orgId, "too many checks; wait a moment");
      // Text a save refuses (an unknown merge field, an emoji) is refused here too, not called a fit.
      assertTemplate(request.body.template);
      const base = isNeighbours(resolveAudience(request.body.audience)) ? NEIGHBOUR_DEFAULT_TEMPLATE : null;
      const template = resolveTemplate(storedTemplate(base, request.body.template));
      return cardFitView(ctx.renderer, template, await loadCardSender(db, session.orgId));
    },
  );

  r.post(
    "/proofs",
    {
      schema: {
        operationId: "renderProof",
        summary:
          "The card's two sides as PNG images (data: URLs), drawn by the pipeline's renderer from a sample record",
        tags: ["Automations"],
        body: Type.Object(
          {
            template: CardTemplate,
            sample_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            audience: Type.Optional(draftFields.audience),
          },
          { additionalProperties: false },
        ),
        response: { 200: ProofView },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      // Drawing a card is CPU work: a builder typing fast is debounced by the app, and held here to a bound per org.
      await enforceRateLimit(ctx.limiter, PROOF_DRAWINGS, session.orgId, "too many proofs; wait a moment");
      assertTemplate(request.body.template);
      const sample = request.body.sample_id
        ? await findSample(db, session.orgId, request.body.sample_id)
        : undefined;
      if (request.body.sample_id && !sample) throw notFound("sample not found");
      const recordProperties = sample ? propertiesOf(sample.record) : SAMPLE_PROPERTIES;
      const properties = isNeighbours(resolveAudience(request.body.audience))
        ? neighbourCardProperties(recordProperties)
        : recordProperties;
      // The same profile the printed card carries: name, phone, return address, logo, offer.
      const card = composeCard({
        ...proofInput(request.body.template, properties, session.orgName, ctx.config.publicBaseUrl),
        sender: await loadCardSender(db, session.orgId),
      });
      return drawProof(ctx.renderer, ctx.proofs, card);
    },
  );
}

/** The app's follow-ups carry the editor's card (`card_size`); the automation stores each as its template column. */
function withStoredSteps<T extends { steps?: { delay_days: number; template: CardTemplate }[] }>(input: T) {
  const { steps, ...rest } = input;
  if (steps === undefined) return rest;
  return {
    ...rest,
    steps: steps.map((step) => ({
      delay_days: step.delay_days,
      template: storedTemplate(null, step.template),
    })),
  };
}

const PROOFS_PER_MINUTE = 60;
/** One bucket for every screen that draws a proof: the CPU is the same, whichever screen asks. */
export const PROOF_DRAWINGS = { bucket: "app-proofs", limit: PROOFS_PER_MINUTE, windowSeconds: 60 };
/** A fit check is a layout without drawing (a few milliseconds): the builder asks on each pause in typing. */
export const CARD_FITS_PER_MINUTE = 240;
const CARD_FIT_CHECKS = { bucket: "app-card-fit", limit: CARD_FITS_PER_MINUTE, windowSeconds: 60 };

/** A record to draw a proof from before any event arrived. */
const SAMPLE_PROPERTIES: Record<string, string> = {
  client_name: "Jordan Smith",
  street: "123 Main St",
  city: "Springfield",
  state: "IL",
  zip: "62701",
};

function propertiesOf(record: Record<string, unknown>): Record<string, string> {
  const inner = (record.record as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return Object.fromEntries(
    Object.entries(inner).map(([k, v]) => [k, typeof v === "string" ? v : String(v)]),
  );
}

function proofInput(
  template: CardTemplate | undefined,
  properties: Record<string, string>,
  orgName: string,
  publicBaseUrl: string,
) {
  const address = mailAddressOf(properties);
  const parts = address?.parts;
  return {
    recipient: {
      recipientName: properties.client_name ?? null,
      address: address?.line ?? "123 Main St, Springfield, IL 62701",
      street: parts?.street ?? null,
      city: parts?.city ?? null,
      state: parts?.state ?? null,
      zip: parts?.zip ?? null,
      properties,
    },
    orgName,
    template: resolveTemplate(storedTemplate(null, template ?? {})),
    landingUrl: landingUrl(publicBaseUrl, "proof"),
    homeImage: proofHomeImage({
      line: address?.line ?? "",
      street: parts?.street ?? null,
      city: parts?.city ?? null,
    }),
    printAddressBlock: true,
  };
}
