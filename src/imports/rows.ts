import { normalizeAddress } from "../domain/address.ts";
import { parseIsoDate } from "../domain/iso-date.ts";
import { assertPrintable } from "../domain/printable-text.ts";
import { isStorableText, UNSTORABLE_TEXT } from "../domain/storable-text.ts";
import { invalidPayload } from "../errors.ts";
import type { GeocodeResult } from "../geo/geocoder.ts";
import type { ImportRequest } from "./schemas.ts";

/**
 * A row to stage: the developer API's row, plus the job type and the file's line that only the
 * app's CSV upload carries (the spec's import row has no such fields, and the API's schema refuses them).
 */
export type StagingRow = ImportRequest["rows"][number] & { job_type?: string; line?: number };

/** A row ready to geocode: its address trimmed, its date as YYYY-MM-DD. */
export interface PreparedRow {
  index: number;
  address: string | undefined;
  externalId: string | null;
  customerName: string | null;
  completedAt: string | null;
  jobType: string | null;
  /** The row's line in the uploaded file (the app's CSV upload); null for the developer API's rows. */
  line: number | null;
}

export interface StagedRowValues {
  rowIndex: number;
  address: string;
  normalizedAddress: string;
  latitude: number;
  longitude: number;
  geoPrecision: string;
  externalId: string | null;
  customerName: string | null;
  completedAt: string | null;
  jobType: string | null;
}

/**
 * `YYYY-MM-DD`, or an ISO-8601 date-time reduced to its calendar date as written (not shifted to
 * UTC: a job completed on the 5th stays on the 5th). Undefined for anything else, including
 * impossible dates and times (2024-02-30, T25:00).
 */
export function toCalendarDate(value: string): string | undefined {
  return parseIsoDate(value)?.calendarDate;
}

/** Checks what the schema cannot (dates) and names the row in the error. */
export function prepareRows(rows: readonly StagingRow[]): PreparedRow[] {
  return rows.map((row, index) => {
    let completedAt: string | null = null;
    // A blank date is what a flow or a CSV sends for an empty CRM field: absent, not garbage.
    if (row.completed_at?.trim()) {
      const date = toCalendarDate(row.completed_at);
      if (!date)
        throw invalidPayload(
          `rows[${index}].completed_at: must be an ISO-8601 date (YYYY-MM-DD) or date-time`,
        );
      completedAt = date;
    }
    assertPrintable(row.address, `rows[${index}].address`);
    // A reactivation card prints the customer's name (the events API refuses the same characters).
    assertPrintable(row.customer_name, `rows[${index}].customer_name`);
    if (row.external_id !== undefined && !isStorableText(row.external_id))
      throw invalidPayload(`rows[${index}].external_id: ${UNSTORABLE_TEXT}`);
    const address = row.address?.trim();
    return {
      index,
      address: address ? address : undefined,
      externalId: row.external_id ?? null,
      customerName: row.customer_name ?? null,
      completedAt,
      jobType: row.job_type?.trim() || null,
      line: row.line ?? null,
    };
  });
}

/** A row not staged, kept with the batch so that the contractor can see which and why. */
export interface SkippedRow {
  row_index: number;
  line: number | null;
  address: string | null;
  customer_name: string | null;
  external_id: string | null;
  reason: "no_address" | "not_found";
}

export interface GeocodedBatch {
  staged: StagedRowValues[];
  skipped: SkippedRow[];
}

/** How many rows a batch skipped for `reason` (the batch's counts are its skipped rows'). */
export const skippedFor = (batch: GeocodedBatch, reason: SkippedRow["reason"]) =>
  batch.skipped.filter((row) => row.reason === reason).length;

/** Pairs rows with their geocoder answers (in address order); not-found rows are skipped. */
export function assembleBatch(
  rows: readonly PreparedRow[],
  answers: readonly GeocodeResult[],
): GeocodedBatch {
  const staged: StagedRowValues[] = [];
  const skipped: SkippedRow[] = [];
  let answerIndex = 0;
  const skip = (row: PreparedRow, reason: SkippedRow["reason"]) =>
    skipped.push({
      row_index: row.index,
      line: row.line,
      address: row.address ?? null,
      customer_name: row.customerName,
      external_id: row.externalId,
      reason,
    });
  for (const row of rows) {
    if (row.address === undefined) {
      skip(row, "no_address");
      continue;
    }
    const answer = answers[answerIndex++];
    if (!answer?.found) {
      skip(row, "not_found");
      continue;
    }
    staged.push({
      rowIndex: row.index,
      address: row.address,
      normalizedAddress: normalizeAddress(row.address),
      latitude: answer.lat,
      longitude: answer.lng,
      geoPrecision: answer.precision,
      externalId: row.externalId,
      customerName: row.customerName,
      completedAt: row.completedAt,
      jobType: row.jobType,
    });
  }
  return { staged, skipped };
}
