import { and, asc, desc, eq } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { importRows, imports } from "../db/schema.ts";
import { notFound } from "../errors.ts";
import type { StagedBatch, StagedBatchSummary, StagedRow } from "./schemas.ts";

type ImportRecord = typeof imports.$inferSelect;

function toSummary(row: ImportRecord): StagedBatchSummary {
  return {
    id: row.id,
    source: row.source,
    idempotency_key: row.idempotencyKey,
    staged: row.staged,
    skipped_no_address: row.skippedNoAddress,
    skipped_geocode_failed: row.skippedGeocodeFailed,
    created_at: row.createdAt.toISOString(),
    staged_at: (row.stagedAt ?? row.createdAt).toISOString(),
  };
}

/** The org's staged batches, newest first (claims still processing are not batches yet). */
export async function listStagedBatches(db: Queryable, orgId: string): Promise<StagedBatchSummary[]> {
  const rows = await db
    .select()
    .from(imports)
    .where(and(eq(imports.orgId, orgId), eq(imports.status, "staged")))
    .orderBy(desc(imports.stagedAt), desc(imports.id))
    .limit(500);
  return rows.map(toSummary);
}

/** One staged batch with its rows, in the shape a CSV upload produces. */
export async function getStagedBatch(db: Queryable, orgId: string, importId: string): Promise<StagedBatch> {
  const [batch] = await db
    .select()
    .from(imports)
    .where(and(eq(imports.orgId, orgId), eq(imports.id, importId), eq(imports.status, "staged")));
  if (!batch) throw notFound("import not found");
  const rows = await db
    .select()
    .from(importRows)
    .where(and(eq(importRows.orgId, orgId), eq(importRows.importId, importId)))
    .orderBy(asc(importRows.rowIndex));
  return {
    ...toSummary(batch),
    rows: rows.map(
      (row): StagedRow => ({
        address: row.address,
        normalized_address: row.normalizedAddress,
        latitude: row.latitude,
        longitude: row.longitude,
        precision: row.geoPrecision,
        external_id: row.externalId,
        customer_name: row.customerName,
        completed_at: row.completedAt,
      }),
    ),
  };
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

/**
 * A cell that starts with = + - @ (or a tab or CR), at the start or after a semicolon or a tab
 * (where a spreadsheet set to split on them starts a cell), gets a ' in front so it is never run
 * as a formula.
 */
const FORMULA_START = /(^|[;\t])(?=[=+\-@\t\r])/g;

/** RFC 4180 field, defused against formula injection; a field with a semicolon or tab is quoted too. */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string") text = text.replace(FORMULA_START, "$1'");
  return /[",;\t\r\n']/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The batch's rows as CSV with a header line. */
export function stagedRowsToCsv(rows: readonly StagedRow[]): string {
  const lines = [STAGED_ROW_COLUMNS.join(",")];
  for (const row of rows) lines.push(STAGED_ROW_COLUMNS.map((column) => csvField(row[column])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
