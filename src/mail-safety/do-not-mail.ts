import { type Queryable, queryRows, sql } from "../db/database.ts";
import { optedOut, stopFollowUps } from "../pieces/follow-ups.ts";

export const OPTED_OUT_REASON = "the home opted out of mail from its landing page (do-not-mail list)";

export interface DoNotMailEntry {
  normalized_address: string;
  reason: "opted_out";
  piece_id: string | null;
  created_at: string;
}

/** The home is on the org's do-not-mail list: the same key, or the same home written with less of its locality. */
export async function listDoNotMail(db: Queryable, orgId: string, limit: number): Promise<DoNotMailEntry[]> {
  const rows = await queryRows<Omit<DoNotMailEntry, "created_at"> & { created_at: Date | string }>(
    db,
    sql`SELECT normalized_address, reason, piece_id, created_at FROM do_not_mail
        WHERE org_id = ${orgId}::uuid ORDER BY created_at DESC, normalized_address LIMIT ${limit}`,
  );
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));
}

/** The opt-out of a landing page: its piece's home joins the org's do-not-mail list. */
export async function optOutPieceHome(db: Queryable, input: { orgId: string; pieceId: string; now: Date }) {
  await db.execute(sql`
    INSERT INTO do_not_mail (org_id, normalized_address, reason, piece_id, created_at)
    SELECT org_id, normalized_address, 'opted_out', id, ${input.now.toISOString()}::timestamptz
    FROM mail_pieces
    WHERE org_id = ${input.orgId}::uuid AND id = ${input.pieceId}::uuid AND normalized_address IS NOT NULL
    ON CONFLICT (org_id, normalized_address) DO NOTHING`);
  await stopFollowUps(
    db,
    { orgId: input.orgId, homeOfPieceId: input.pieceId },
    [optedOut(input.now)],
    input.now,
  );
}
