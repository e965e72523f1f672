// Mail's list shows each card's front as a 320 px thumbnail. A waiting card's is drawn ahead, when
// the card starts to wait (piece-updates.ts queues its organization's sweep), so the list's first
// look reads it from piece_images instead of drawing 50 cards on request.

import type { Logger } from "pino";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { handleJob, type RegisteredJob } from "../jobs/job-kind.ts";
import { drawWaitingCardsJob } from "../jobs/kinds.ts";
import { cardKey } from "./card-key.ts";
import { imageName, keepPieceImage } from "./piece-images.ts";
import { drawCardSide, type ProofDeps, proofCard } from "./piece-proof.ts";
import { WAITING } from "./piece-updates.ts";

/** Cards one sweep looks at: a page of Mail's list, newest first, as the list shows them. */
export const CARDS_PER_SWEEP = 50;

const THUMBNAIL = { side: "front", size: "thumbnail" } as const;

interface WaitingCard {
  id: string;
  kept_key: string | null;
}

/** The organization's newest waiting cards with the key their front thumbnail was kept with, if any. */
function newestWaitingCards(db: Queryable, orgId: string): Promise<WaitingCard[]> {
  return queryRows<WaitingCard>(
    db,
    sql`SELECT p.id, i.card_key AS kept_key
          FROM mail_pieces p
          LEFT JOIN piece_images i
            ON i.org_id = p.org_id AND i.piece_id = p.id AND i.image = ${imageName(THUMBNAIL.side, THUMBNAIL.size)}
         WHERE p.org_id = ${orgId}::uuid AND p.status IN ${WAITING}
         ORDER BY p.created_at DESC, p.id DESC
         LIMIT ${CARDS_PER_SWEEP}`,
  );
}

/** Draws and keeps the card's thumbnail unless the one kept was drawn from the card as it is now. */
async function drawAhead(deps: ProofDeps, orgId: string, waiting: WaitingCard): Promise<boolean> {
  const card = await proofCard(deps, waiting.id);
  const key = cardKey(card);
  if (waiting.kept_key === key) return false;
  const png = await drawCardSide(deps.renderer, card, THUMBNAIL.side, THUMBNAIL.size);
  await keepPieceImage(deps.db, { orgId, pieceId: waiting.id, ...THUMBNAIL }, png, key);
  return true;
}

/**
 * The sweep: each of the organization's newest waiting cards whose thumbnail is missing or was
 * drawn from another card (the profile or the template changed since), one at a time: it takes
 * one render thread, never the pool. A card that cannot be drawn is left for the list to draw.
 */
export function drawWaitingCardsHandler(deps: ProofDeps & { logger: Logger }): RegisteredJob {
  return handleJob(drawWaitingCardsJob, async ({ org_id: orgId }, context) => {
    const log = deps.logger.child({ jobId: context.jobId, orgId });
    let drawn = 0;
    for (const waiting of await newestWaitingCards(deps.db, orgId)) {
      if (context.signal.aborted) break;
      try {
        if (await drawAhead(deps, orgId, waiting)) drawn++;
      } catch (error) {
        log.warn({ err: error, pieceId: waiting.id }, "a waiting card's thumbnail was not drawn ahead");
      }
    }
    log.info({ drawn }, "waiting cards drawn ahead");
  });
}
