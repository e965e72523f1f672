/**
 * The progress of reference-address uploads (table `reference_address_uploads`): one row per
 * upload, written as it loads, read by the operator API. A row stays `running` only while a
 * process keeps its heartbeat fresh; a process that died leaves it to be marked `failed`.
 */
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import type { AddressFileFormat, LoadReport } from "./load-addresses.ts";

/** How often a running upload's heartbeat is written. */
export const HEARTBEAT_MS = 5_000;
/** A running upload whose heartbeat is older than this belongs to a process that stopped. */
export const STALE_HEARTBEAT_MS = 60_000;

export const ReferenceAddressUpload = Type.Object(
  {
    upload_id: Type.String({ format: "uuid" }),
    status: Type.Union(
      // The values of the table's CHECK (migrations/0370_reference_address_uploads.sql).
      [Type.Literal("running"), Type.Literal("done"), Type.Literal("failed")],
      {
        description:
          "running: receiving or loading (or waiting for another upload's load to finish); done; failed (see error).",
      },
    ),
    format: Type.Union([Type.Literal("csv"), Type.Literal("geojson"), Type.Null()], {
      description: "CSV or GeoJSON lines, once known.",
    }),
    bytes_received: Type.Integer(),
    rows_read: Type.Integer({ description: "Records read so far (the CSV header is not one)." }),
    rows_added: Type.Integer({ description: "New homes written." }),
    rows_present: Type.Integer({ description: "Accepted rows whose home was already loaded." }),
    rows_rejected: Type.Integer(),
    rejected_by_reason: Type.Record(Type.String(), Type.Integer(), {
      description: 'Rejected rows per reason, e.g. {"bad coordinates": 3}.',
    }),
    error: Type.Optional(Type.String({ description: "Why a failed upload failed, in a sentence." })),
    created_at: Type.String({ format: "date-time" }),
    finished_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type ReferenceAddressUpload = Static<typeof ReferenceAddressUpload>;
type UploadStatus = ReferenceAddressUpload["status"];

interface UploadRow {
  id: string;
  status: UploadStatus;
  format: AddressFileFormat | null;
  bytes_received: number | string;
  rows_read: number | string;
  rows_added: number | string;
  rows_present: number | string;
  rows_rejected: number | string;
  rejected_by_reason: Record<string, number>;
  error: string | null;
  created_at: Date | string;
  finished_at: Date | string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();

function viewOf(row: UploadRow): ReferenceAddressUpload {
  return {
    upload_id: row.id,
    status: row.status,
    format: row.format,
    bytes_received: Number(row.bytes_received),
    rows_read: Number(row.rows_read),
    rows_added: Number(row.rows_added),
    rows_present: Number(row.rows_present),
    rows_rejected: Number(row.rows_rejected),
    rejected_by_reason: row.rejected_by_reason ?? {},
    ...(row.error ? { error: row.error } : {}),
    created_at: iso(row.created_at),
    finished_at: row.finished_at ? iso(row.finished_at) : null,
  };
}

const COLUMNS = sql`id, status, format, bytes_received, rows_read, rows_added, rows_present, rows_rejected,
  rejected_by_reason, error, created_at, finished_at`;

export async function insertUpload(db: Queryable, id: string, now: Date): Promise<void> {
  await db.execute(sql`INSERT INTO reference_address_uploads (id, status, created_at, heartbeat_at)
    VALUES (${id}, 'running', ${now.toISOString()}, ${now.toISOString()})`);
}

export async function recordReceived(
  db: Queryable,
  id: string,
  received: { bytes: number; format: AddressFileFormat },
  now: Date,
): Promise<void> {
  await db.execute(sql`UPDATE reference_address_uploads
    SET bytes_received = ${received.bytes}, format = ${received.format}, heartbeat_at = ${now.toISOString()}
    WHERE id = ${id} AND status = 'running'`);
}

/** The running totals of a load, and the heartbeat. */
export async function recordProgress(
  db: Queryable,
  id: string,
  report: LoadReport,
  now: Date,
): Promise<void> {
  await db.execute(sql`UPDATE reference_address_uploads
    SET rows_read = ${report.rows}, rows_added = ${report.added}, rows_present = ${report.duplicates},
        rows_rejected = ${report.rejected}, rejected_by_reason = ${JSON.stringify(report.rejectedByReason)}::jsonb,
        heartbeat_at = ${now.toISOString()}
    WHERE id = ${id} AND status = 'running'`);
}

export async function recordHeartbeat(db: Queryable, id: string, now: Date): Promise<void> {
  await db.execute(sql`UPDATE reference_address_uploads SET heartbeat_at = ${now.toISOString()}
    WHERE id = ${id} AND status = 'running'`);
}

export async function recordDone(db: Queryable, id: string, report: LoadReport, now: Date): Promise<void> {
  await recordProgress(db, id, report, now);
  await db.execute(sql`UPDATE reference_address_uploads SET status = 'done', finished_at = ${now.toISOString()}
    WHERE id = ${id} AND status = 'running'`);
}

export async function recordFailed(db: Queryable, id: string, error: string, now: Date): Promise<void> {
  await db.execute(sql`UPDATE reference_address_uploads
    SET status = 'failed', error = ${error}, finished_at = ${now.toISOString()}
    WHERE id = ${id} AND status = 'running'`);
}

export const ABANDONED =
  "The server stopped before this upload finished. The homes loaded until then stay; upload the file again to load the rest (homes already loaded are skipped).";

/**
 * Marks uploads no process is working on as failed, and returns their ids: every running one
 * (`all`: the embedded database at start, which one process holds) or those whose heartbeat
 * stopped (PostgreSQL, where other processes may be loading).
 */
export async function failAbandonedUploads(
  db: Queryable,
  options: { all: boolean; now: Date },
): Promise<string[]> {
  const staleBefore = new Date(options.now.getTime() - STALE_HEARTBEAT_MS).toISOString();
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE reference_address_uploads
      SET status = 'failed', error = ${ABANDONED}, finished_at = ${options.now.toISOString()}
      WHERE status = 'running' AND (${options.all}::boolean OR heartbeat_at < ${staleBefore}::timestamptz)
      RETURNING id`,
  );
  return rows.map((row) => row.id);
}

export async function findUpload(db: Queryable, id: string): Promise<ReferenceAddressUpload | undefined> {
  const [row] = await queryRows<UploadRow>(
    db,
    sql`SELECT ${COLUMNS} FROM reference_address_uploads WHERE id = ${id}`,
  );
  return row ? viewOf(row) : undefined;
}

export async function listUploads(db: Queryable, limit: number): Promise<ReferenceAddressUpload[]> {
  const rows = await queryRows<UploadRow>(
    db,
    sql`SELECT ${COLUMNS} FROM reference_address_uploads ORDER BY created_at DESC, id LIMIT ${limit}`,
  );
  return rows.map(viewOf);
}
