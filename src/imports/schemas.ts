import { type Static, Type } from "@fastify/type-provider-typebox";
import { IgnoredOrgId } from "../domain/ignored-org-id.ts";

/** Spec limits of POST /api/v1/import/jobs. */
export const IMPORT_LIMITS = {
  rows: 500,
  address: 500,
  externalId: 128,
  customerName: 200,
  idempotencyKey: 255,
  batchesPerDay: 10,
  bodyBytes: 1_048_576,
} as const;

export const ImportRow = Type.Object(
  {
    org_id: IgnoredOrgId,
    address: Type.Optional(
      Type.String({
        maxLength: IMPORT_LIMITS.address,
        description: "Service address. Missing or blank: the row is skipped (`skipped_no_address`).",
      }),
    ),
    external_id: Type.Optional(Type.String({ maxLength: IMPORT_LIMITS.externalId })),
    customer_name: Type.Optional(
      Type.String({
        maxLength: IMPORT_LIMITS.customerName,
        description:
          "Printed on reactivation cards: a control or format character (U+0000-U+001F, U+202E…) is refused with 422 `rows[i].customer_name: contains U+…`.",
      }),
    ),
    completed_at: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "ISO-8601 date (`YYYY-MM-DD`); a time part is accepted and dropped. An empty string (an empty CRM field) is read as absent.",
      }),
    ),
  },
  { additionalProperties: false, $id: "ImportRow", title: "Import row" },
);

export const ImportRequest = Type.Object(
  {
    source: Type.Union([Type.Literal("jobs"), Type.Literal("customers")]),
    rows: Type.Array(ImportRow, { minItems: 1, maxItems: IMPORT_LIMITS.rows }),
    org_id: IgnoredOrgId,
  },
  {
    additionalProperties: false,
    $id: "ImportRequest",
    title: "Import request",
    examples: [
      {
        source: "jobs",
        rows: [
          {
            address: "742 Evergreen Terrace, Springfield, IL 62704",
            external_id: "job-0412",
            customer_name: "Homer Simpson",
            completed_at: "2024-06-03",
          },
          { address: "1313 Webfoot Walk, Duckburg, CA 90210", customer_name: "D. Duck" },
        ],
      },
    ],
  },
);
export type ImportRequest = Static<typeof ImportRequest>;

export const ImportHeaders = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({
      maxLength: IMPORT_LIMITS.idempotencyKey,
      description:
        "Optional, at most 255 characters (UTF-8 bytes are read as UTF-8), no control characters. A repeat returns the stored batch (200); a repeat while the first request runs gets 409 `import_in_progress`.",
    }),
  ),
});

export const ImportResult = Type.Object(
  {
    import_id: Type.String({ format: "uuid" }),
    staged: Type.Integer({ minimum: 0 }),
    skipped_no_address: Type.Integer({ minimum: 0 }),
    skipped_geocode_failed: Type.Integer({ minimum: 0 }),
  },
  {
    $id: "ImportResult",
    title: "Import result",
    description: "The three counts sum to the number of rows sent.",
  },
);
export type ImportResult = Static<typeof ImportResult>;

/** A staged row in the shape a CSV upload produces (read by the campaign wizard). */
export const StagedRow = Type.Object(
  {
    address: Type.String(),
    normalized_address: Type.String(),
    latitude: Type.Union([Type.Number(), Type.Null()]),
    longitude: Type.Union([Type.Number(), Type.Null()]),
    precision: Type.Union([Type.String(), Type.Null()]),
    external_id: Type.Union([Type.String(), Type.Null()]),
    customer_name: Type.Union([Type.String(), Type.Null()]),
    completed_at: Type.Union([Type.String({ format: "date" }), Type.Null()]),
  },
  { $id: "StagedImportRow" },
);
export type StagedRow = Static<typeof StagedRow>;

/** A staged row as the app's Past jobs shows it: with the job type a CSV upload may carry. */
export const PastJobRow = Type.Object(
  {
    ...StagedRow.properties,
    job_type: Type.Union([Type.String(), Type.Null()], {
      description: "From the app's CSV upload only; the developer API's import row has no job type.",
    }),
  },
  { additionalProperties: false },
);
export type PastJobRow = Static<typeof PastJobRow>;

/** A row of a batch that was not staged, as the app's batch page lists it. */
export const SkippedImportRow = Type.Object(
  {
    row_index: Type.Integer({ minimum: 0, description: "The row's place in the batch, from 0." }),
    line: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "The row's line in the uploaded file (the app's CSV upload); null for the developer API's rows.",
    }),
    address: Type.Union([Type.String(), Type.Null()]),
    customer_name: Type.Union([Type.String(), Type.Null()]),
    external_id: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Union([Type.Literal("no_address"), Type.Literal("not_found")], {
      description: "no_address: the row had none; not_found: the address was not found on the map.",
    }),
  },
  { additionalProperties: false },
);
export type SkippedImportRow = Static<typeof SkippedImportRow>;

/** Where a batch came from: the developer API's import, or the app's CSV upload. */
export const ImportOrigin = Type.Union([Type.Literal("api"), Type.Literal("app_upload")]);
export type ImportOrigin = Static<typeof ImportOrigin>;

const stagedBatchSummaryFields = {
  id: Type.String({ format: "uuid" }),
  source: Type.Union([Type.Literal("jobs"), Type.Literal("customers")]),
  origin: ImportOrigin,
  idempotency_key: Type.Union([Type.String(), Type.Null()]),
  staged: Type.Integer(),
  skipped_no_address: Type.Integer(),
  skipped_geocode_failed: Type.Integer(),
  created_at: Type.String({ format: "date-time" }),
  staged_at: Type.String({ format: "date-time" }),
};

export const StagedBatchSummary = Type.Object(stagedBatchSummaryFields, { $id: "StagedImportSummary" });
export type StagedBatchSummary = Static<typeof StagedBatchSummary>;

export const StagedBatch = Type.Object(
  { ...stagedBatchSummaryFields, rows: Type.Array(StagedRow) },
  { $id: "StagedImport" },
);
export type StagedBatch = Static<typeof StagedBatch>;
