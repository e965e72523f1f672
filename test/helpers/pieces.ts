import { type Queryable, queryRows, sql } from "../../src/db/database.ts";
import { processPieceJob } from "../../src/jobs/kinds.ts";
import { insertQueuedPiece } from "../../src/pieces/piece-updates.ts";

type PiecePayload = { org_id: string; piece_id: string; piece?: Parameters<typeof insertQueuedPiece>[2] };

/**
 * What a worker's first step does for every pending piece job: insert the piece the job carries
 * (events and the legacy trigger queue a campaign and its job; the job writes the piece). For
 * tests that look at a queued piece before any worker mails it.
 */
export async function insertPendingPieces(db: Queryable): Promise<void> {
  const jobs = await queryRows<{ payload: PiecePayload | string }>(
    db,
    sql`SELECT payload FROM jobs WHERE kind = ${processPieceJob.name} AND status = 'pending' ORDER BY created_at`,
  );
  for (const job of jobs) {
    const payload = typeof job.payload === "string" ? (JSON.parse(job.payload) as PiecePayload) : job.payload;
    if (payload.piece) {
      await insertQueuedPiece(db, { orgId: payload.org_id, pieceId: payload.piece_id }, payload.piece);
    }
  }
}
