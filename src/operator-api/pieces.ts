import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { automationTemplate, setAutomationTemplate } from "../automations/automations.ts";
import { ErrorBody, LimitParam } from "../http/schemas.ts";
import { listJobs } from "../jobs/job-listing.ts";
import { renderProof } from "../pieces/piece-proof.ts";
import { CardSizeSchema, CardTemplate } from "../render/template.ts";
import type { Services } from "../services.ts";
import { IdParams } from "./orgs.ts";

export const EffectiveTemplate = Type.Object({
  automation_id: Type.String({ format: "uuid" }),
  template: Type.Object({
    headline: Type.String(),
    message: Type.String(),
    offer: Type.Union([Type.String(), Type.Null()]),
    size: CardSizeSchema,
  }),
});

const JobStatus = Type.Union([
  Type.Literal("pending"),
  Type.Literal("running"),
  Type.Literal("done"),
  Type.Literal("failed"),
]);

export const JobsQuery = Type.Object(
  {
    status: Type.Optional(JobStatus),
    kind: Type.Optional(Type.String({ maxLength: 64 })),
    limit: LimitParam(1000),
  },
  { additionalProperties: false },
);

export const JobList = Type.Object({
  jobs: Type.Array(
    Type.Object({
      id: Type.String({ format: "uuid" }),
      org_id: Type.Union([Type.String(), Type.Null()]),
      kind: Type.String(),
      payload: Type.Unknown(),
      status: JobStatus,
      attempts: Type.Integer(),
      max_attempts: Type.Integer(),
      last_error: Type.Union([Type.String(), Type.Null()]),
      run_at: Type.String({ format: "date-time" }),
      created_at: Type.String({ format: "date-time" }),
      updated_at: Type.String({ format: "date-time" }),
    }),
  ),
});

const Binary = Type.Unknown({ description: "The file's bytes." });

/** Operator views of the campaign pipeline: card proofs, automation templates, the job queue. */
export function registerAdminPieceRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { imagery } = services;
  const proofDeps = {
    db: services.db,
    imagery,
    renderer: services.renderer,
    publicBaseUrl: services.config.publicBaseUrl,
  };

  for (const format of ["pdf", "png"] as const) {
    r.get(
      `/pieces/:id/proof.${format}`,
      {
        schema: {
          hide: true,
          operationId: `adminPieceProof${format.toUpperCase()}`,
          summary: `The piece's postcard as it would print (${format.toUpperCase()}, front then back)`,
          params: IdParams,
          response: { 200: Binary, 401: ErrorBody, 404: ErrorBody },
        },
      },
      async (request, reply) => {
        const bytes = await renderProof(proofDeps, request.params.id, format);
        return reply
          .header("content-type", format === "pdf" ? "application/pdf" : "image/png")
          .header("content-disposition", `inline; filename="piece-${request.params.id}.${format}"`)
          .send(bytes);
      },
    );
  }

  r.get(
    "/automations/:id/template",
    {
      schema: {
        hide: true,
        operationId: "adminGetAutomationTemplate",
        summary:
          "An automation's card template as it prints (read it before a PUT, which replaces the whole card)",
        params: IdParams,
        response: { 200: EffectiveTemplate, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => automationTemplate(services.db, request.params.id),
  );

  r.put(
    "/automations/:id/template",
    {
      schema: {
        hide: true,
        operationId: "adminSetAutomationTemplate",
        summary: "Set an automation's card template (headline, message with merge fields, size)",
        params: IdParams,
        body: CardTemplate,
        response: { 200: EffectiveTemplate, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => setAutomationTemplate(services, request.params.id, request.body),
  );

  r.get(
    "/jobs",
    {
      schema: {
        hide: true,
        operationId: "adminListJobs",
        summary: "Background jobs, newest first; ?status=failed shows each failure's reason",
        description:
          "Finished jobs are pruned by the workers: done ones 7 days after they finished, failed ones after 30.",
        querystring: JobsQuery,
        response: { 200: JobList, 401: ErrorBody, 422: ErrorBody },
      },
    },
    async (request) => ({
      jobs: await listJobs(services.db, {
        status: request.query.status,
        kind: request.query.kind,
        limit: Number(request.query.limit ?? 100),
      }),
    }),
  );
}
