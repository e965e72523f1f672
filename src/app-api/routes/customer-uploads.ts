import type { Readable } from "node:stream";
import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { Value } from "typebox/value";
import { findCustomerUpload, registerCustomerUpload } from "../../customers/customer-uploads.ts";
import {
  CUSTOMERS_BATCH_LIMIT,
  checkedCustomerKey,
  type KeyedCustomerEntry,
} from "../../customers/customers.ts";
import { assertPrintable } from "../../domain/printable-text.ts";
import { countCodePoints } from "../../domain/storable-text.ts";
import { AppError } from "../../errors.ts";
import { createLoopSlicer } from "../../event-loop-slices.ts";
import {
  addressOf,
  CSV_MAX_BYTES,
  type CsvTable,
  cellOf,
  csvTooLarge,
  guessMapping,
  readCsvTable,
} from "../../imports/csv-table.ts";
import { createImportService } from "../../imports/import-service.ts";
import { prepareRows, type StagingRow } from "../../imports/rows.ts";
import { IMPORT_LIMITS, ImportResult, ImportRow } from "../../imports/schemas.ts";
import { zipOfRow } from "../../imports/zip-cell.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

/** The same file sent again while its first upload still runs, said in the screen's words, not the API's. */
function inScreenWords(error: unknown): never {
  if (error instanceof AppError && error.code === "import_in_progress") {
    throw new AppError(
      409,
      "import_in_progress",
      "This file is still being imported. Wait a moment, then look under Past jobs.",
      error.headers,
    );
  }
  throw error;
}

const CUSTOMER_FIELDS = ["street", "city", "state", "zip", "notes"] as const;
const JOB_FIELDS = [
  "street",
  "city",
  "state",
  "zip",
  "customer_name",
  "external_id",
  "completed_at",
  "job_type",
] as const;
const PREVIEW_ROWS = 5;
/** A job type is kept like the other short fields (the API's customer name): at most 200 characters. */
const JOB_TYPE_MAX = 200;
/** The developer API's limits on what one customer entry may carry. */
const ADDRESS_MAX = 500;
const NOTES_MAX = 2000;

const Column = Type.Optional(
  Type.String({ minLength: 1, maxLength: 200, description: "A header of the file." }),
);
const RequestId = Type.Optional(
  Type.String({
    format: "uuid",
    description:
      "Made once per chosen file: a retry with the same id (after a lost answer) answers 200 with the first upload's result and adds nothing again.",
  }),
);
const SkipInvalidRows = Type.Optional(
  Type.Union([Type.Literal("true"), Type.Literal("false")], {
    description:
      "false (the default): a file with any bad row is refused whole (422) and nothing is added. true: the good rows are taken as they would be alone and the answer lists the rows left out (`skipped`); a file whose rows are all bad is still refused.",
  }),
);
/** The column of each field, the upload's request id, and whether bad rows may be left out. */
const uploadQuery = <F extends string>(fields: readonly F[]) =>
  Type.Object(
    {
      ...(Object.fromEntries(fields.map((field) => [field, Column])) as Record<F, typeof Column>),
      request_id: RequestId,
      skip_invalid_rows: SkipInvalidRows,
    },
    { additionalProperties: false },
  );

const RowError = Type.Object(
  {
    line: Type.Integer({ description: "The row's line in the file (the header is line 1)." }),
    message: Type.String(),
  },
  { additionalProperties: false },
);

/** A refusal's bad rows: the first 200 listed, and how many there are. */
const RowErrors = Type.Object({
  rows: Type.Array(RowError),
  count: Type.Optional(
    Type.Integer({ description: "How many rows cannot be imported (also those past the list's cap)." }),
  ),
});

/** At most this many bad rows are listed, in a refusal and in an answer that skipped them. */
const LISTED_ROWS_MAX = 200;

/** What an upload with `skip_invalid_rows` adds to its answer: the rows left out. */
const Skipped = {
  skipped: Type.Optional(
    Type.Array(RowError, {
      maxItems: LISTED_ROWS_MAX,
      description: `With skip_invalid_rows, the rows left out with their problem (the first ${LISTED_ROWS_MAX}). Absent when no row was left out, and in a replay (a retry with the same request id answers the counts only).`,
    }),
  ),
  skipped_count: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "How many rows were left out (also those past the list's cap).",
    }),
  ),
};

/** What an upload adds to its answer when a spreadsheet had cut some of its ZIPs short. */
const ZipsRestored = {
  zip_leading_zeros_restored: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        "How many rows taken had a ZIP of 3 or 4 digits (8 for a ZIP+4), as a spreadsheet writes one it read as a number (2134 for 02134), read with its leading zeros put back. Absent when none was, and in a replay.",
    }),
  ),
};

/** The import service's answer (its counts are of the rows staged), and the rows the upload left out. */
const PastJobsUploadResult = Type.Object(
  { ...ImportResult.properties, ...Skipped, ...ZipsRestored },
  {
    description:
      "The three counts sum to the number of rows sent to the import service (the rows not skipped).",
  },
);

const CsvBody = Type.Unsafe<Readable>({
  description: `The CSV file as the request body (text/csv, at most ${CSV_MAX_BYTES} bytes, a header line first).`,
});

/** One row that cannot be taken, with its line: the upload is refused with every such row listed, unless it skips them. */
interface RowProblem {
  line: number;
  message: string;
}

function refuseRows(problems: RowProblem[]): never {
  const error = new AppError(
    422,
    "invalid_payload",
    `${problems.length} row${problems.length === 1 ? "" : "s"} cannot be imported; nothing was added. Fix ${problems.length === 1 ? "it" : "them"} and upload again.`,
  ) as AppError & { details?: unknown };
  error.details = { rows: problems.slice(0, LISTED_ROWS_MAX), count: problems.length };
  throw error;
}

/**
 * Bad rows refuse the whole file unless the upload skips them; a file with no good row is refused
 * either way (there is nothing to add). What a skipping upload adds to its answer.
 */
function settleProblems(problems: RowProblem[], goodRows: number, skip: "true" | "false" | undefined) {
  if (problems.length === 0) return {};
  if (skip !== "true" || goodRows === 0) refuseRows(problems);
  return { skipped: problems.slice(0, LISTED_ROWS_MAX), skipped_count: problems.length };
}

const messageOf = (error: unknown) =>
  error instanceof AppError ? (error.detail ?? error.code) : String(error);

function bodyOf(request: FastifyRequest): Readable {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > CSV_MAX_BYTES) throw csvTooLarge();
  if (!request.body || typeof (request.body as Readable).pipe !== "function") {
    throw new AppError(415, "unsupported_media_type", "Send the file as text/csv.");
  }
  return request.body as Readable;
}

/**
 * A record's one-line address, its ZIP cell read as a ZIP (`zipOfRow`: a leading 0 a spreadsheet
 * dropped put back, or the row refused naming its ZIP), and whether that 0 was put back.
 */
function addressOfRecord(
  table: CsvTable,
  record: CsvTable["records"][number],
  mapping: Partial<Record<string, string>>,
): { address: string; zipRestored: boolean } {
  const city = cellOf(table, record, mapping.city);
  const state = cellOf(table, record, mapping.state);
  const zip = zipOfRow(cellOf(table, record, mapping.zip), { state, city });
  const street = cellOf(table, record, mapping.street);
  return { address: addressOf({ street, city, state, zip: zip.zip }), zipRestored: zip.restored };
}

/** What an upload's answer says of the ZIPs it read with their leading 0 put back: nothing when none. */
const zipsRestored = (count: number) => (count > 0 ? { zip_leading_zeros_restored: count } : {});

function assertStreetMapped(mapping: { street?: string | undefined }) {
  if (!mapping.street)
    throw new AppError(422, "invalid_payload", "street: choose the column that holds the street");
}

/**
 * A record as the import service's row, checked by the developer API's own row schema and row
 * checks (a 422 naming the field), with the job type and the file's line only an upload carries.
 */
function pastJobRowOf(
  table: CsvTable,
  record: CsvTable["records"][number],
  mapping: Partial<Record<string, string>>,
): { row: StagingRow; zipRestored: boolean } {
  const optional = (value: string) => (value === "" ? undefined : value);
  const { address, zipRestored } = addressOfRecord(table, record, mapping);
  const row = {
    address: optional(address),
    customer_name: optional(cellOf(table, record, mapping.customer_name)),
    external_id: optional(cellOf(table, record, mapping.external_id)),
    completed_at: optional(isoFromUsDate(cellOf(table, record, mapping.completed_at))),
  };
  const clean = Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
  const jobType = optional(cellOf(table, record, mapping.job_type));
  const [schemaError] = Value.Errors(ImportRow, clean);
  if (schemaError)
    throw new AppError(
      422,
      "invalid_payload",
      `${schemaError.instancePath.slice(1) || "row"}: ${schemaError.message}`,
    );
  if (jobType !== undefined && countCodePoints(jobType) > JOB_TYPE_MAX)
    throw new AppError(422, "invalid_payload", `job_type: longer than ${JOB_TYPE_MAX} characters`);
  assertPrintable(jobType, "job_type");
  prepareRows([clean]);
  // The file's line names a row the import skips (no address, not on the map) on its batch's page.
  return {
    row: { ...clean, ...(jobType === undefined ? {} : { job_type: jobType }), line: record.line },
    zipRestored,
  };
}

/**
 * Spreadsheet exports (Jobber, QuickBooks, Excel in the US) write dates as M/D/YYYY, with or
 * without a time after them: read as YYYY-MM-DD, then checked like the API's (2/30 is refused).
 * Anything else passes through unchanged to the API's ISO-8601 rule.
 */
export function isoFromUsDate(cell: string): string {
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T].*)?$/.exec(cell);
  if (!us) return cell;
  const [, month, day, year] = us;
  return `${year}-${month!.padStart(2, "0")}-${day!.padStart(2, "0")}`;
}

/**
 * CSV uploads of the app: the suppression list (through the developer API's customers service,
 * its 1000-a-request rule and address checks) and past jobs (through the import service, with the
 * API's row checks, as a batch of origin `app_upload`; a job type column is the upload's own: the
 * developer API's import row has none). The file is parsed as it streams in, at most 1 MiB; a header-mapping step names
 * which column is the street, city, state and ZIP. A file with bad rows adds nothing and lists
 * every bad row with its line, so it can be fixed and sent again; with `skip_invalid_rows` the
 * good rows are taken and the answer lists the bad ones instead.
 */
export async function registerCustomerUploadRoutes(app: FastifyInstance, ctx: AppApiContext): Promise<void> {
  await app.register(async (scope) => {
    // The body stays a stream: the CSV reader counts its bytes and reads records as they come.
    scope.addContentTypeParser("text/csv", (_request, payload, done) => done(null, payload));
    const r = scope.withTypeProvider<TypeBoxTypeProvider>();
    const importer = createImportService({
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.logger,
      geocoder: ctx.geocoder,
      killSwitch: ctx.killSwitch,
    });

    r.post(
      "/uploads/preview",
      {
        schema: {
          operationId: "previewCsvUpload",
          summary: "Reads a CSV file's header and first rows, and guesses which column holds each field",
          tags: ["Customers"],
          querystring: Type.Object(
            { purpose: Type.Union([Type.Literal("customers"), Type.Literal("jobs")]) },
            { additionalProperties: false },
          ),
          body: CsvBody,
          response: {
            200: Type.Object(
              {
                columns: Type.Array(Type.String()),
                mapping: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])),
                rows: Type.Array(Type.Object({ line: Type.Integer(), cells: Type.Array(Type.String()) })),
                total_rows: Type.Integer(),
                max_rows: Type.Integer(),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      async (request) => {
        const purpose = request.query.purpose;
        const maxRows = purpose === "customers" ? CUSTOMERS_BATCH_LIMIT : IMPORT_LIMITS.rows;
        const table = await readCsvTable(bodyOf(request), { maxRecords: maxRows });
        return {
          columns: table.columns,
          mapping: guessMapping(table.columns, purpose === "customers" ? CUSTOMER_FIELDS : JOB_FIELDS),
          rows: table.records.slice(0, PREVIEW_ROWS),
          total_rows: table.records.length,
          max_rows: maxRows,
        };
      },
    );

    r.post(
      "/customers/upload",
      {
        schema: {
          operationId: "uploadCustomers",
          summary: `Adds a CSV file's addresses to the suppression list (at most ${CUSTOMERS_BATCH_LIMIT} rows, as the API's batch); reading them counts in the organization's address-reading time (429 rate_limited past it, with Retry-After)`,
          tags: ["Customers"],
          querystring: uploadQuery(CUSTOMER_FIELDS),
          body: CsvBody,
          response: {
            200: Type.Object(
              {
                added: Type.Integer(),
                total: Type.Integer(),
                rows: Type.Integer(),
                stopped_cards: Type.Integer({
                  description:
                    "Cards that were waiting to be mailed to the file's homes (held, awaiting approval, over a cap, or follow-up cards scheduled for a later day) and now never will be, as the one-address form's answer says. A retry with the same request id replays the first upload's count.",
                }),
                ...Skipped,
                ...ZipsRestored,
              },
              { additionalProperties: false },
            ),
            422: Type.Object({
              error: Type.Object({
                code: Type.String(),
                message: Type.String(),
                details: Type.Optional(RowErrors),
              }),
            }),
          },
        },
      },
      async (request) => {
        const { skip_invalid_rows: skipInvalid, ...mapping } = request.query;
        assertStreetMapped(mapping);
        const table = await readCsvTable(bodyOf(request), { maxRecords: CUSTOMERS_BATCH_LIMIT });
        // A retry answers what the first upload did, whatever its file says now (as the import service does).
        const orgId = sessionOf(request).orgId;
        const requestId = request.query.request_id;
        const earlier = requestId && (await findCustomerUpload(ctx.db, orgId, requestId));
        if (earlier) return earlier;
        const problems: RowProblem[] = [];
        const entries: KeyedCustomerEntry[] = [];
        let restoredZips = 0;
        const slicer = createLoopSlicer();
        for (const record of table.records) {
          // Each address is parsed here once; its key goes along so registration does not parse it again.
          await slicer.giveWay();
          // A spent budget refuses the upload (429), where a row's problem only skips the row.
          ctx.addressWork.assertLeft(orgId);
          try {
            const { address, zipRestored } = addressOfRecord(table, record, mapping);
            const notes = cellOf(table, record, mapping.notes) || undefined;
            const entry = { address, notes, field: "address" };
            if (address === "") throw new AppError(422, "invalid_payload", "address: is empty");
            if (address.length > ADDRESS_MAX)
              throw new AppError(422, "invalid_payload", `address: longer than ${ADDRESS_MAX} characters`);
            if (notes && notes.length > NOTES_MAX)
              throw new AppError(422, "invalid_payload", `notes: longer than ${NOTES_MAX} characters`);
            entries.push({
              ...entry,
              key: ctx.addressWork.spend(orgId, () => checkedCustomerKey(entry, { wholeHome: true })),
            });
            if (zipRestored) restoredZips++;
          } catch (error) {
            problems.push({ line: record.line, message: messageOf(error) });
          }
        }
        const skipped = settleProblems(problems, entries.length, skipInvalid);
        const result = await registerCustomerUpload(
          ctx.db,
          orgId,
          requestId,
          entries,
          "csv_upload",
          ctx.clock.now(),
        );
        return { ...result, ...skipped, ...zipsRestored(restoredZips) };
      },
    );

    r.post(
      "/imports/upload",
      {
        schema: {
          operationId: "uploadPastJobs",
          summary: `Stages a CSV file of past jobs as an import batch (at most ${IMPORT_LIMITS.rows} rows), through the developer API's import service; a job type column is kept for reactivation filters`,
          tags: ["Past jobs"],
          querystring: uploadQuery(JOB_FIELDS),
          body: CsvBody,
          response: {
            200: PastJobsUploadResult,
            201: PastJobsUploadResult,
            422: Type.Object({
              error: Type.Object({
                code: Type.String(),
                message: Type.String(),
                details: Type.Optional(RowErrors),
              }),
            }),
          },
        },
      },
      async (request, reply) => {
        const { skip_invalid_rows: skipInvalid, ...mapping } = request.query;
        assertStreetMapped(mapping);
        const table = await readCsvTable(bodyOf(request), { maxRecords: IMPORT_LIMITS.rows });
        const orgId = sessionOf(request).orgId;
        // A retry answers the first batch, whatever its file says now (the import service's rule).
        const replay = await importer.replayOf(orgId, request.query.request_id).catch(inScreenWords);
        if (replay) return reply.code(replay.status).send(replay.result);
        const problems: RowProblem[] = [];
        const good: StagingRow[] = [];
        let restoredZips = 0;
        for (const record of table.records) {
          try {
            const { row, zipRestored } = pastJobRowOf(table, record, mapping);
            good.push(row);
            if (zipRestored) restoredZips++;
          } catch (error) {
            problems.push({ line: record.line, message: messageOf(error).replace(/^rows\[0\]\./, "") });
          }
        }
        if (table.records.length === 0) throw new AppError(422, "invalid_payload", "The file has no rows.");
        const skipped = settleProblems(problems, good.length, skipInvalid);
        const outcome = await importer
          .importJobs(
            orgId,
            // The developer API's Idempotency-Key: a retry answers 200 with the first batch.
            request.query.request_id,
            { source: "jobs", rows: good },
            "app_upload",
          )
          .catch(inScreenWords);
        return reply
          .code(outcome.status)
          .send({ ...outcome.result, ...skipped, ...zipsRestored(restoredZips) });
      },
    );
  });
}
