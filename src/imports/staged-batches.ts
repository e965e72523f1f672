import { type Queryable, queryRows, sql } from "../db/database.ts";
import { csvCell } from "../domain/csv-cell.ts";
import { notFound } from "../errors.ts";
import type {
  ImportOrigin,
  PastJobRow,
  SkippedImportRow,
  StagedBatch,
  StagedBatchSummary,
  StagedRow,
} from "./schemas.ts";

interface ImportRecord {
  id: string;
  source: "jobs" | "customers";
  origin: ImportOrigin;
  idempotency_key: string | null;
  staged: number;
  skipped_no_address: number;
  skipped_geocode_failed: number;
  created_at: string | Date;
  staged_at: string | Date | null;
}

const iso = (value: string | Date) => new Date(value).toISOString();

function toSummary(row: ImportRecord): StagedBatchSummary {
  return {
    id: row.id,
    source: row.source,
    origin: row.origin,
    idempotency_key: row.idempotency_key,
    staged: row.staged,
    skipped_no_address: row.skipped_no_address,
    skipped_geocode_failed: row.skipped_geocode_failed,
    created_at: iso(row.created_at),
    staged_at: iso(row.staged_at ?? row.created_at),
  };
}

const SUMMARY_COLUMNS = sql`id, source, origin, idempotency_key, staged, skipped_no_address,
  skipped_geocode_failed, created_at, staged_at`;

/** The org's staged batches, newest first (claims still processing are not batches yet). */
export async function listStagedBatches(db: Queryable, orgId: string): Promise<StagedBatchSummary[]> {
  const rows = await queryRows<ImportRecord>(
    db,
    sql`SELECT ${SUMMARY_COLUMNS} FROM imports
        WHERE org_id = ${orgId}::uuid AND status = 'staged'
        ORDER BY staged_at DESC, id DESC LIMIT 500`,
  );
  return rows.map(toSummary);
}

/**
 * One staged batch with its rows (each with its job type), in row order, and the rows it skipped
 * (null for a batch from before they were kept).
 */
export async function getPastJobBatch(
  db: Queryable,
  orgId: string,
  importId: string,
): Promise<StagedBatchSummary & { rows: PastJobRow[]; skipped_rows: SkippedImportRow[] | null }> {
  const [batch] = await queryRows<ImportRecord & { skipped_rows: SkippedImportRow[] | null }>(
    db,
    sql`SELECT ${SUMMARY_COLUMNS}, skipped_rows FROM imports
        WHERE org_id = ${orgId}::uuid AND id = ${importId}::uuid AND status = 'staged'`,
  );
  if (!batch) throw notFound("import not found");
  const rows = await queryRows<PastJobRow>(
    db,
    sql`SELECT address, normalized_address, latitude, longitude, geo_precision AS precision, external_id,
               customer_name, to_char(completed_at, 'YYYY-MM-DD') AS completed_at, job_type
        FROM import_rows WHERE org_id = ${orgId}::uuid AND import_id = ${importId}::uuid
        ORDER BY row_index`,
  );
  return { ...toSummary(batch), rows, skipped_rows: batch.skipped_rows };
}

/** One staged batch with its rows, in the shape a CSV upload produces (the operator's view: no job type). */
export async function getStagedBatch(db: Queryable, orgId: string, importId: string): Promise<StagedBatch> {
  const { skipped_rows: _skipped, ...batch } = await getPastJobBatch(db, orgId, importId);
  return { ...batch, rows: batch.rows.map(({ job_type: _jobType, ...row }): StagedRow => row) };
}

export const STAGED_ROW_COLUMNS = [
  "address",
  "normalized_address",
  "latitude",
  "longitude",
  "precision",
  "external_id",
  "customer_name",
  "completed_at",
] as const satisfies readonly (keyof StagedRow)[];

/** The batch's rows as CSV with a header line. */
export function stagedRowsToCsv(rows: readonly StagedRow[]): string {
  const lines = [STAGED_ROW_COLUMNS.join(",")];
  for (const row of rows) lines.push(STAGED_ROW_COLUMNS.map((column) => csvCell(row[column])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
