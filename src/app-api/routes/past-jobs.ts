import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { PastJobRow, SkippedImportRow, StagedBatchSummary } from "../../imports/schemas.ts";
import { getPastJobBatch, listStagedBatches } from "../../imports/staged-batches.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

// The import service's shapes, without their developer-API schema ids (this document is the app's).
const BatchSummary = Type.Object({ ...StagedBatchSummary.properties }, { additionalProperties: false });

/**
 * Past jobs: the batches the import service staged (developer API imports and the app's CSV
 * uploads alike, each with its origin), with each row's geocoding result and job type, and the rows
 * skipped.
 */
export function registerPastJobRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    "/imports",
    {
      schema: {
        operationId: "listImports",
        summary: "Staged import batches of past jobs and customers, newest first (at most 500)",
        tags: ["Past jobs"],
        response: {
          200: Type.Object({ imports: Type.Array(BatchSummary) }, { additionalProperties: false }),
        },
      },
    },
    async (request) => ({ imports: await listStagedBatches(ctx.db, sessionOf(request).orgId) }),
  );

  r.get(
    "/imports/:id",
    {
      schema: {
        operationId: "getImport",
        summary: "One staged batch with its rows, their geocoding results, and the rows it skipped",
        tags: ["Past jobs"],
        params: Type.Object({ id: Type.String({ format: "uuid" }) }),
        response: {
          200: Type.Object(
            {
              ...BatchSummary.properties,
              rows: Type.Array(PastJobRow),
              skipped_rows: Type.Union([Type.Array(SkippedImportRow), Type.Null()], {
                description:
                  "The rows not staged, in row order; null for a batch imported before skipped rows were kept (only their counts).",
              }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => getPastJobBatch(ctx.db, sessionOf(request).orgId, request.params.id),
  );
}
