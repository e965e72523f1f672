import { type Queryable, queryRows, sql } from "../db/database.ts";

export const JOB_STATUSES = ["pending", "running", "done", "failed"] as const;

export interface JobView {
  id: string;
  org_id: string | null;
  kind: string;
  payload: unknown;
  status: (typeof JOB_STATUSES)[number];
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  run_at: string;
  created_at: string;
  updated_at: string;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** Jobs newest first, by status and kind; failed ones carry their reason in `last_error`. */
export async function listJobs(
  db: Queryable,
  filter: { status?: JobView["status"] | undefined; kind?: string | undefined; limit: number },
): Promise<JobView[]> {
  const conditions = [
    filter.status ? sql`status = ${filter.status}` : sql`TRUE`,
    filter.kind ? sql`kind = ${filter.kind}` : sql`TRUE`,
  ];
  const rows = await queryRows<
    Omit<JobView, "run_at" | "created_at" | "updated_at"> & {
      run_at: Date | string;
      created_at: Date | string;
      updated_at: Date | string;
    }
  >(
    db,
    sql`SELECT id, org_id, kind, payload, status, attempts, max_attempts, last_error, run_at, created_at, updated_at
        FROM jobs WHERE ${sql.join(conditions, sql` AND `)}
        ORDER BY updated_at DESC, id LIMIT ${filter.limit}`,
  );
  return rows.map((row) => ({
    ...row,
    payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
    run_at: iso(row.run_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}
