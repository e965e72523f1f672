import { lockUntilCommit, type Queryable, queryOne, sql } from "../db/database.ts";

/** The UTC day containing `now`: [00:00, next 00:00). */
export function utcDay(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { start, end: new Date(start.getTime() + 86_400_000) };
}

/** Seconds until the next 00:00 UTC (at least 1). */
export function secondsToUtcMidnight(now: Date): number {
  return Math.max(1, Math.ceil((utcDay(now).end.getTime() - now.getTime()) / 1000));
}

/** Batches this org staged in the UTC day of `now`; claims, failures and replays never count. */
export async function stagedToday(db: Queryable, orgId: string, now: Date): Promise<number> {
  const { start, end } = utcDay(now);
  const row = await queryOne<{ count: number | string }>(
    db,
    sql`SELECT count(*) AS count FROM imports
        WHERE org_id = ${orgId} AND status = 'staged'
          AND staged_at >= ${start.toISOString()}::timestamptz AND staged_at < ${end.toISOString()}::timestamptz`,
  );
  return Number(row?.count ?? 0);
}

/** Serializes quota check-and-stage per org within a transaction (released at commit). */
export async function lockOrgQuota(tx: Queryable, orgId: string): Promise<void> {
  await lockUntilCommit(tx, `import-quota:${orgId}`);
}
