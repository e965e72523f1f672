import type { SQL } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { drawWaitingCardsJob } from "../jobs/kinds.ts";
import { insertJobUnlessPending, newJobRow } from "../jobs/queue.ts";

/**
 * How long an organization's sweep waits before it runs: the cards of a burst (200 cards entering
 * approval at once) start to wait within seconds of each other and are drawn by one sweep, after
 * the pipeline's own work on them.
 */
const SWEEP_DELAY_MS = 10_000;

/**
 * An INSERT of the organization's draw-ahead sweep (drawWaitingCardsJob) unless one is pending
 * already, when `when` holds (an SQL condition: a piece moved).
 */
export function insertWaitingCardsSweep(orgId: string, now: Date, when?: SQL): SQL {
  const runAt = new Date(now.getTime() + SWEEP_DELAY_MS);
  return insertJobUnlessPending(
    newJobRow(drawWaitingCardsJob, { org_id: orgId }, { orgId, now, runAt }),
    when,
  );
}

/** Asks for the organization's waiting cards to be drawn again (its profile changed), in the caller's transaction. */
export async function sweepWaitingCards(db: Queryable, orgId: string, now: Date): Promise<void> {
  await db.execute(insertWaitingCardsSweep(orgId, now));
}
