// Mail's list shows each card's front as a small thumbnail (THUMBNAIL_WIDTH). A printed card's is drawn with its print
// files (process-piece.ts). Those of the list's other cards on its first page (waiting, stopped before
// print, a first card's scheduled follow-ups) are drawn ahead, by the organization's sweep, queued
// when a card leaves the queue (to wait, or stopped for good) or goes to the printer (piece-updates.ts:
// a first card's follow-ups are written just before it waits or prints), so the list's first look reads
// them from piece_images instead of drawing 50 cards on request. The sweep also draws a printed card's
// when none is kept (printed before thumbnails were drawn at print, with the placeholder standing in
// for a failed imagery provider, or its thumbnail not kept).

import type { Logger } from "pino";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { handleJob, type RegisteredJob } from "../jobs/job-kind.ts";
import { drawCardImagesJob } from "../jobs/kinds.ts";
import { loadCardSender } from "../orgs/card-sender.ts";
import type { CardSender } from "../render/compose.ts";
import { checkCardImage } from "./current-card-image.ts";
import { imageName, LIST_THUMBNAIL } from "./piece-images.ts";
import type { ProofDeps } from "./piece-proof.ts";
import { PRINTED_STATUSES, sqlStatusList } from "./status-sql.ts";

/** Cards one sweep looks at: a page of Mail's list, newest first, as the list shows them. */
export const CARDS_PER_SWEEP = 50;

/**
 * Cards of Mail's list the sweep passes over: a queued one is on its way through the pipeline, which
 * may still locate it (a new picture) and prints it within moments (drawn with its print files); a
 * failed one may have failed at drawing, and would be tried again by every sweep (the list draws it
 * when someone looks).
 */
const NOT_DRAWN_AHEAD = sqlStatusList(["queued", "failed"]);
const PRINTED = sqlStatusList(PRINTED_STATUSES);

interface ListedCard {
  id: string;
  printed: boolean;
  kept: boolean;
  kept_key: string | null;
}

/**
 * The organization's newest cards but those passed over, in the order of Mail's list, with whether their
 * front thumbnail is kept and the key it was kept with.
 */
function newestCards(db: Queryable, orgId: string): Promise<ListedCard[]> {
  return queryRows<ListedCard>(
    db,
    sql`SELECT p.id, p.status IN ${PRINTED} AS printed, i.piece_id IS NOT NULL AS kept, i.card_key AS kept_key
          FROM mail_pieces p
          LEFT JOIN piece_images i
            ON i.org_id = p.org_id AND i.piece_id = p.id AND i.image = ${imageName(LIST_THUMBNAIL.side, LIST_THUMBNAIL.size)}
         WHERE p.org_id = ${orgId}::uuid AND p.status NOT IN ${NOT_DRAWN_AHEAD}
         ORDER BY p.created_at DESC, p.id DESC
         LIMIT ${CARDS_PER_SWEEP}`,
  );
}

/** Draws and keeps the card's thumbnail unless the one kept is final or drawn from the card as it is now. */
async function drawAhead(
  deps: ProofDeps,
  orgId: string,
  sender: CardSender,
  listed: ListedCard,
): Promise<boolean> {
  const check = await checkCardImage(
    deps,
    { orgId, pieceId: listed.id, ...LIST_THUMBNAIL },
    { printed: listed.printed, keptKey: listed.kept ? listed.kept_key : undefined },
    sender,
  );
  if (check.current) return false;
  await check.drawAndKeep();
  return true;
}

/**
 * The sweep: each of the organization's newest cards whose thumbnail is missing or, for a card not
 * printed, was drawn from another card (the profile or the template changed since), one at a time: it
 * takes one render thread, never the pool. A card that cannot be drawn is left for the list to draw.
 */
export function drawCardImagesHandler(deps: ProofDeps & { logger: Logger }): RegisteredJob {
  return handleJob(drawCardImagesJob, async ({ org_id: orgId }, context) => {
    const log = deps.logger.child({ jobId: context.jobId, orgId });
    let drawn = 0;
    // Every card shows the same profile: read once for the sweep.
    const sender = await loadCardSender(deps.db, orgId);
    for (const listed of await newestCards(deps.db, orgId)) {
      if (context.signal.aborted) break;
      try {
        if (await drawAhead(deps, orgId, sender, listed)) drawn++;
      } catch (error) {
        log.warn({ err: error, pieceId: listed.id }, "a card's thumbnail was not drawn ahead");
      }
    }
    log.info({ drawn }, "cards' thumbnails drawn ahead");
  });
}
