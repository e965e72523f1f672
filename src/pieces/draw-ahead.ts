import type { SQL } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { drawCardImagesJob } from "../jobs/kinds.ts";
import { insertJobUnlessPending, newJobRow } from "../jobs/queue.ts";

/**
 * How long an organization's sweep waits before it runs: the cards of a burst (200 cards entering
 * approval, or going to the printer, at once) move within seconds of each other and are drawn by
 * one sweep, after the pipeline's own work on them.
 */
const SWEEP_DELAY_MS = 10_000;

/**
 * An INSERT of the organization's draw-ahead sweep (drawCardImagesJob) unless one is pending
 * already, when `when` holds (an SQL condition: a piece started to wait or went to the printer).
 */
export function insertCardImagesSweep(orgId: string, now: Date, when?: SQL): SQL {
  const runAt = new Date(now.getTime() + SWEEP_DELAY_MS);
  return insertJobUnlessPending(newJobRow(drawCardImagesJob, { org_id: orgId }, { orgId, now, runAt }), when);
}

/** Asks for the organization's cards to be drawn again (its profile changed: waiting cards show it), in the caller's transaction. */
export async function sweepCardImages(db: Queryable, orgId: string, now: Date): Promise<void> {
  await db.execute(insertCardImagesSweep(orgId, now));
}
