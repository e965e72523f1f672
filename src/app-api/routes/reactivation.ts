import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { invalidPayload } from "../../errors.ts";
import {
  describeValidationError,
  jsonPointerToPath,
  type ValidationIssue,
} from "../../http/validation-detail.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import { getOrgMailSafety } from "../../mail-safety/settings.ts";
import { createMailingService } from "../../mailings/mailing-service.ts";
import { loadCardSender } from "../../orgs/card-sender.ts";
import { landingUrl } from "../../pieces/campaigns.ts";
import { JOB_TYPES_LISTED, jobTypesOf } from "../../reactivation/audience.ts";
import {
  createReactivationService,
  propertiesOf,
  REACTIVATION_MAX_PIECES,
  type ReactivationSummary,
} from "../../reactivation/reactivation-service.ts";
import { composeCard } from "../../render/compose.ts";
import { resolveTemplate } from "../../render/template.ts";
import { costPerCardCents } from "../../reports/app-overview.ts";
import {
  assertTemplate,
  CardTemplate,
  drawProof,
  ProofView,
  proofHomeImage,
  storedTemplate,
} from "../card-proof.ts";
import type { AppApiContext } from "../context.ts";
import { appError } from "../errors.ts";
import { sessionOf } from "../session-guard.ts";
import { PROOF_DRAWINGS } from "./automations.ts";

const MAX_BATCHES = 50;
const JOB_TYPES_MAX = 50;
const JOB_TYPE_MAX_LENGTH = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A refused request of these screens names its field in `details.fields` (the form shows it
 * beside the input), beside the one-line message every refusal has.
 */
function refuseInvalid(request: FastifyRequest): void {
  const error = request.validationError as
    | (Error & { validation?: ValidationIssue[]; validationContext?: string })
    | undefined;
  if (!error) return;
  const issues = error.validation ?? [];
  const message = describeValidationError(issues, error.validationContext);
  const path = jsonPointerToPath(issues[0]?.instancePath ?? "") || (error.validationContext ?? "body");
  throw appError(422, "invalid_payload", message, {
    fields: { [path]: message.replace(/^[^:]*: /, "") },
  });
}

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Day = Type.String({ format: "date", description: "YYYY-MM-DD" });

const Filter = Type.Object(
  {
    completed_before: Type.Optional(Day),
    completed_after: Type.Optional(Day),
    job_types: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: JOB_TYPE_MAX_LENGTH, pattern: "\\S" }), {
        maxItems: JOB_TYPES_MAX,
        description:
          "Rows whose job type equals one of these (any case, spaces around ignored); rows without a job type are left out. Empty: no job type condition.",
      }),
    ),
    match: Type.Optional(
      Type.Array(
        Type.Object(
          {
            field: Type.Union([
              Type.Literal("address"),
              Type.Literal("customer_name"),
              Type.Literal("external_id"),
              Type.Literal("job_type"),
            ]),
            contains: Type.String({ minLength: 1, maxLength: 200 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 10 },
      ),
    ),
  },
  { additionalProperties: false },
);

const Selection = {
  import_ids: Type.Array(Type.String({ format: "uuid" }), {
    minItems: 1,
    maxItems: MAX_BATCHES,
    uniqueItems: true,
  }),
  filter: Filter,
};

const JobTypes = Type.Object(
  {
    job_types: Type.Array(
      Type.Object({ job_type: Type.String(), rows: Type.Integer() }, { additionalProperties: false }),
      { description: `The most common first, at most ${JOB_TYPES_LISTED}.` },
    ),
    without_job_type: Type.Integer({ description: "Rows that have no job type." }),
  },
  { additionalProperties: false },
);

const AudienceRowView = Type.Object(
  {
    import_id: Type.String({ format: "uuid" }),
    row_index: Type.Integer(),
    address: Type.String(),
    customer_name: Nullable(Type.String()),
    external_id: Nullable(Type.String()),
    completed_at: Nullable(Type.String({ format: "date" })),
    job_type: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const Reason = Type.Union([
  Type.Literal("customer"),
  Type.Literal("opted_out"),
  Type.Literal("no_mailable_address"),
  Type.Literal("undeliverable"),
  Type.Literal("duplicate"),
]);

const Summary = Type.Object(
  {
    matched: Type.Integer({ description: "Rows of the batches that pass the filter." }),
    mailable: Type.Integer({ description: "Homes that would get a card." }),
    excluded: Type.Object(
      {
        customer: Type.Integer({ description: "Registered customers (the suppression list)." }),
        opted_out: Type.Integer({ description: "Homes that opted out of mail on a landing page." }),
        no_mailable_address: Type.Integer(),
        undeliverable: Type.Integer({
          description:
            "Addresses the check before print would stop (the offline check at the organization's verification level, e.g. a ZIP of another state); with ADDRESS_VERIFIER=lob, Lob is asked at print only and none are counted here.",
        }),
        duplicate: Type.Integer({
          description:
            "A second row for a home already in the mailing, however it is written (with or without its city or ZIP, abbreviated or not).",
        }),
      },
      { additionalProperties: false },
    ),
    excluded_examples: Type.Array(
      Type.Object(
        {
          address: Type.String(),
          customer_name: Nullable(Type.String()),
          reason: Reason,
          detail: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    first_rows: Type.Array(AudienceRowView),
    estimated_cost_cents: Type.Union([Type.Integer(), Type.Null()], {
      description: "The cards' cost at the profile's cost per card; null while the profile has none.",
    }),
    hold_minutes: Type.Integer({
      description:
        "The organization's hold window for mailings: the cards wait this long, cancellable, before print.",
    }),
  },
  { additionalProperties: false },
);

const SentMailing = Type.Object(
  { campaign_id: Type.String({ format: "uuid" }), queued: Type.Integer(), summary: Summary },
  { additionalProperties: false },
);

/**
 * Reactivation mailings: who a filter over imported batches reaches (and who it leaves out and
 * why), a proof of the first card, and the mailing itself (owners only: it spends money), sent
 * through the same mailing service as the operator's mailings, so its cards take the pipeline.
 */
export function registerReactivationRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const mailings = createMailingService({
    db: ctx.db,
    clock: ctx.clock,
    publicBaseUrl: ctx.config.publicBaseUrl,
  });
  const reactivation = createReactivationService({
    db: ctx.db,
    clock: ctx.clock,
    mailings,
    addressVerifier: ctx.config.addressVerifier,
  });
  /** What the owner confirms: the count with its cost, and how long the cards wait before print. */
  const priced = async (orgId: string, summary: ReactivationSummary) => {
    const [centsPerCard, safety] = await Promise.all([
      costPerCardCents(ctx.db, orgId),
      getOrgMailSafety(ctx.db, orgId),
    ]);
    return {
      ...summary,
      estimated_cost_cents: centsPerCard === null ? null : summary.mailable * centsPerCard,
      hold_minutes: safety.mailing_hold_minutes,
    };
  };

  r.get(
    "/imports/job-types",
    {
      attachValidation: true,
      schema: {
        operationId: "listImportJobTypes",
        summary:
          "The job types in these batches with their row counts, for a reactivation mailing's job type filter",
        tags: ["Past jobs"],
        querystring: Type.Object(
          {
            import_ids: Type.String({
              minLength: 36,
              maxLength: MAX_BATCHES * 37,
              description: `Batch ids, comma-separated (at most ${MAX_BATCHES}).`,
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: JobTypes },
      },
    },
    async (request) => {
      refuseInvalid(request);
      const ids = [...new Set(request.query.import_ids.split(","))];
      if (ids.length > MAX_BATCHES || !ids.every((id) => UUID.test(id))) {
        throw appError(
          422,
          "invalid_payload",
          `import_ids: at most ${MAX_BATCHES} batch ids, comma-separated`,
          {
            fields: { import_ids: `at most ${MAX_BATCHES} batch ids, comma-separated` },
          },
        );
      }
      return jobTypesOf(ctx.db, sessionOf(request).orgId, ids);
    },
  );

  r.post(
    "/reactivation/preview",
    {
      attachValidation: true,
      schema: {
        operationId: "previewReactivation",
        summary:
          "Who a reactivation mailing from these batches and this filter would reach, and who it leaves out",
        tags: ["Past jobs"],
        body: Type.Object(Selection, { additionalProperties: false }),
        response: { 200: Summary },
      },
    },
    async (request) => {
      refuseInvalid(request);
      const { orgId } = sessionOf(request);
      return priced(orgId, await reactivation.preview(orgId, request.body));
    },
  );

  r.post(
    "/reactivation/proof",
    {
      attachValidation: true,
      schema: {
        operationId: "proofReactivation",
        summary: "The mailing's first card (its first home), front and back as PNG data: URLs",
        tags: ["Past jobs"],
        body: Type.Object({ ...Selection, template: CardTemplate }, { additionalProperties: false }),
        response: { 200: ProofView },
      },
    },
    async (request) => {
      refuseInvalid(request);
      const session = sessionOf(request);
      // The builder's bucket: drawing a card is CPU work, whichever screen asks.
      await enforceRateLimit(ctx.limiter, PROOF_DRAWINGS, session.orgId, "too many proofs; wait a moment");
      assertTemplate(request.body.template);
      const row = await reactivation.firstRow(session.orgId, request.body);
      if (!row) throw invalidPayload("filter: no row of these batches can be mailed");
      const card = composeCard({
        recipient: {
          recipientName: row.customer_name,
          address: row.address,
          street: null,
          city: null,
          state: null,
          zip: null,
          properties: propertiesOf(row),
        },
        orgName: session.orgName,
        sender: await loadCardSender(ctx.db, session.orgId),
        template: resolveTemplate(storedTemplate(null, request.body.template)),
        landingUrl: landingUrl(ctx.config.publicBaseUrl, "proof"),
        homeImage: proofHomeImage({ line: row.address, street: null, city: null }),
        printAddressBlock: true,
      });
      return drawProof(ctx.renderer, ctx.proofs, card);
    },
  );

  r.post(
    "/reactivation/mailings",
    {
      config: { appAccess: "owner" },
      attachValidation: true,
      schema: {
        operationId: "sendReactivationMailing",
        summary: `Sends a reactivation mailing (owners only): one card to each mailable home, at most ${REACTIVATION_MAX_PIECES}`,
        tags: ["Past jobs"],
        body: Type.Object(
          {
            ...Selection,
            template: CardTemplate,
            name: Type.String({ minLength: 1, maxLength: 200 }),
            confirmed_cards: Type.Integer({
              minimum: 1,
              description:
                "The number of cards the owner confirmed, as the preview showed it with its cost; 409 confirmation_stale when the audience no longer has that many homes.",
            }),
            request_id: Type.Optional(
              Type.String({
                format: "uuid",
                description:
                  "Made once per form: a send repeating it (a double click, a retry) answers 200 with the first mailing and mails nothing.",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: SentMailing, 201: SentMailing },
      },
    },
    async (request, reply) => {
      refuseInvalid(request);
      const session = sessionOf(request);
      assertTemplate(request.body.template);
      const result = await reactivation.send(session.orgId, {
        import_ids: request.body.import_ids,
        filter: request.body.filter,
        name: request.body.name,
        template: storedTemplate(null, request.body.template),
        sentBy: session.email,
        requestId: request.body.request_id,
        confirmedCards: request.body.confirmed_cards,
      });
      const { replayed, summary, ...mailing } = result;
      return reply
        .code(replayed ? 200 : 201)
        .send({ ...mailing, summary: await priced(session.orgId, summary) });
    },
  );
}
