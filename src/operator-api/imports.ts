import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { getStagedBatch, listStagedBatches, stagedRowsToCsv } from "../imports/staged-batches.ts";
import type { Services } from "../services.ts";
import { OrgParams } from "./orgs.ts";

const ImportParams = Type.Object({
  org_id: Type.String({ format: "uuid" }),
  import_id: Type.String({ format: "uuid" }),
});

const ImportQuery = Type.Object(
  { format: Type.Optional(Type.Union([Type.Literal("json"), Type.Literal("csv")])) },
  { additionalProperties: false },
);

/** Staged import batches, read by the campaign wizard in the shape a CSV upload produces. */
export function registerAdminImportRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get("/orgs/:org_id/imports", { schema: { hide: true, params: OrgParams } }, async (request) => {
    return { imports: await listStagedBatches(services.db, request.params.org_id) };
  });

  r.get(
    "/orgs/:org_id/imports/:import_id",
    { schema: { hide: true, params: ImportParams, querystring: ImportQuery } },
    async (request, reply) => {
      const batch = await getStagedBatch(services.db, request.params.org_id, request.params.import_id);
      if (request.query.format !== "csv") return batch;
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="import-${batch.id}.csv"`)
        .send(stagedRowsToCsv(batch.rows));
    },
  );
}
