import type { Logger } from "pino";
import { type Queryable, sql } from "../db/database.ts";

const monthOf = (at: Date) => `${at.toISOString().slice(0, 7)}-01`;

/**
 * Counts one view of a piece's landing page in its UTC month. A failed count is logged, never
 * shown: the homeowner's page matters more than the statistic.
 */
export async function recordLandingVisit(
  deps: { db: Queryable; logger: Logger },
  piece: { orgId: string; pieceId: string },
  at: Date,
): Promise<void> {
  try {
    await deps.db.execute(
      sql`INSERT INTO landing_visits (org_id, piece_id, month, visits)
          VALUES (${piece.orgId}::uuid, ${piece.pieceId}::uuid, ${monthOf(at)}::date, 1)
          ON CONFLICT (org_id, piece_id, month) DO UPDATE SET visits = landing_visits.visits + 1`,
    );
  } catch (error) {
    deps.logger.warn({ err: error, orgId: piece.orgId }, "landing visit not counted");
  }
}
