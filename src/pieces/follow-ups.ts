/**
 * Follow-up cards (issue 42): an automation with steps gives each first card its follow-ups as
 * pieces of the same campaign, `scheduled` from the first card's first pass through the pipeline,
 * due `delay_days` after the first card's mailing (docs/sequences.md). The due follow-up is taken
 * out of `scheduled` by its job with a conditional UPDATE, and an answer of the home stops it with
 * another: whichever commits first wins the row, so a card is never both stopped and printed.
 */
import type { SQL } from "drizzle-orm";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";
import { keyParts, keysOfSameHome } from "../domain/same-home.ts";
import type { FollowUpStop, StopCondition } from "../domain/stop-conditions.ts";
import { processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { stepOfFollowUp } from "./card-template-sql.ts";
import type { FollowUpEnd, PieceRecord } from "./piece-record.ts";
import { isPrinted, PRINTED_STATUSES, sqlStatusList } from "./status-sql.ts";

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;
const DAY = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", day: "numeric" });
/** "Nov 30" (UTC), as a contractor reads a stop's reason. */
export const shortDay = (date: Date) => DAY.format(date);

const MAX_FOLLOW_UPS = 3;
/** A first card in these was handed to the printer: its follow-ups may go when due. */
const PRINTED = sqlStatusList(PRINTED_STATUSES);
/** A first card in these may still print: its follow-ups wait for it. */
const MAY_STILL_PRINT: readonly PieceStatus[] = ["queued", "held", "awaiting_approval", "capped"];
/**
 * A follow-up in these can still be stopped: waiting for its day, or on its way through the mail
 * safety rules but not yet taken for print (`submission_job_id` is set in the same row when it is).
 */
const STOPPABLE = sqlStatusList(["scheduled", ...MAY_STILL_PRINT]);

/** Ordinals of the cards of a sequence as its reasons name them. */
const ORDINALS = ["first", "second", "third", "fourth"];
export const cardOrdinal = (step: number | null) => ORDINALS[step ?? 0] ?? "a";

/**
 * The first card's follow-ups, written once (the unique index on the sequence makes a second pass
 * a no-op), each `scheduled` for its delay counted from now until the first card's mailing dates it.
 * An automation turned off writes none (its first card, queued before, still goes). One that slipped
 * past the save's stop is still dated at the first card's print, so its job stops it on its day.
 */
export async function scheduleFollowUps(
  db: Queryable,
  first: PieceRecord,
  now: Date,
  newLandingToken: () => string,
): Promise<void> {
  if (first.sequenceStep !== null || first.automationFollowUps === 0) return;
  const tokens = Array.from({ length: MAX_FOLLOW_UPS }, () => newLandingToken());
  await db.execute(sql`
    INSERT INTO mail_pieces (org_id, id, campaign_id, status, status_reason, recipient_name, address, street, city,
                             state, zip, normalized_address, latitude, longitude, geo_precision, token, properties,
                             created_at, status_updated_at, sequence_step, sequence_first_piece_id, scheduled_for,
                             sequence_step_delay)
    SELECT p.org_id, gen_random_uuid(), p.campaign_id, 'scheduled',
           'follow-up card ' || s.n || ': mailed ' || (s.step ->> 'delay_days') || ' days after the first card, unless the home answers first',
           p.recipient_name, p.address, p.street, p.city, p.state, p.zip, p.normalized_address, p.latitude,
           p.longitude, p.geo_precision, (${sql.param(tokens)}::text[])[s.n::int], p.properties, ${at(now)}, ${at(now)},
           s.n, p.id, ${at(now)} + (s.step ->> 'delay_days')::int * interval '1 day',
           (s.step ->> 'delay_days')::smallint
    FROM mail_pieces p
    JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
    CROSS JOIN LATERAL jsonb_array_elements(a.steps) WITH ORDINALITY AS s(step, n)
    WHERE p.org_id = ${first.orgId}::uuid AND p.id = ${first.id}::uuid AND s.n <= ${MAX_FOLLOW_UPS} AND a.enabled
    ON CONFLICT DO NOTHING`);
}

/**
 * The first card's mailing dates its follow-ups: each is due its delay after `mailedAt`. At the
 * hand-over to the printer (`withJobs`) each gets the job that takes it out of `scheduled` on its
 * day, in the caller's transaction; a later, exact mail date (the printer's) only moves the day,
 * and the job, finding it early, waits again.
 */
export async function dateFollowUps(
  db: Queryable,
  first: { orgId: string; id: string },
  mailedAt: Date,
  now: Date,
  withJobs: boolean,
): Promise<void> {
  const dated = await queryRows<{ id: string; scheduled_for: Date | string }>(
    db,
    sql`UPDATE mail_pieces f SET scheduled_for = ${at(mailedAt)} + f.sequence_step_delay * interval '1 day'
        FROM campaigns c, automations a
        WHERE f.org_id = ${first.orgId}::uuid AND f.sequence_first_piece_id = ${first.id}::uuid
          AND f.status = 'scheduled' AND c.org_id = f.org_id AND c.id = f.campaign_id
          AND a.org_id = c.org_id AND a.id = c.automation_id AND ${stepOfFollowUp("f")} IS NOT NULL
        RETURNING f.id, f.scheduled_for`,
  );
  if (!withJobs) return;
  for (const followUp of dated) {
    await enqueueJob(
      db,
      processPieceJob,
      { org_id: first.orgId, piece_id: followUp.id },
      { orgId: first.orgId, now, runAt: new Date(followUp.scheduled_for) },
    );
  }
}

const STEP_REMOVED: Stop = {
  reason: "Stopped: the automation no longer has this follow-up card",
  by: "step_removed",
};
const automationTurnedOff = (now: Date): Stop => ({
  reason: `Stopped: the automation was turned off on ${shortDay(now)}`,
  by: "automation_off",
});

/**
 * A follow-up whose step the automation no longer has (removed, or moved to another day) never
 * prints, in whatever state it waits (scheduled, held, awaiting approval, capped, queued): its card
 * is gone, and the default card must not go in its place. Nor does one whose automation is turned
 * off: "off" means no card is mailed. False when it was already taken for print.
 */
export const stopEndedFollowUp = (
  db: Queryable,
  piece: { orgId: string; id: string },
  end: FollowUpEnd,
  now: Date,
) => stopFollowUpRow(db, piece, end === "step_removed" ? STEP_REMOVED : automationTurnedOff(now), now);

/**
 * An automation was saved: its waiting follow-ups that the save ends stop at once (those whose
 * step it no longer has; all of them when it is turned off), so the app never lists as scheduled a
 * card that will not print. Their jobs would stop them only on their day; stopEndedFollowUp stays
 * for one a worker wrote or took meanwhile. In batches, each committed on its own: a big
 * automation's thousands of follow-ups (each row updating its roll-ups) never hold their locks
 * against the workers for the whole stop.
 */
export async function stopFollowUpsEndedBySave(
  db: Queryable,
  automation: { orgId: string; id: string },
  now: Date,
): Promise<void> {
  const stepGone = sql`${stepOfFollowUp("f")} IS NULL`;
  const off = automationTurnedOff(now);
  const waiting = sql`f.status IN ${STOPPABLE} AND f.submission_job_id IS NULL`;
  for (;;) {
    const stopped = await queryRows<{ id: string }>(
      db,
      sql`UPDATE mail_pieces f SET ${stoppedBy({ reason: sql`ended.reason`, by: sql`ended.stop` }, now)}
          FROM (SELECT f.id,
                       CASE WHEN ${stepGone} THEN ${STEP_REMOVED.reason} ELSE ${off.reason} END AS reason,
                       CASE WHEN ${stepGone} THEN ${STEP_REMOVED.by} ELSE ${off.by} END AS stop
                FROM mail_pieces f
                JOIN campaigns c ON c.org_id = f.org_id AND c.id = f.campaign_id
                JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
                WHERE f.org_id = ${automation.orgId}::uuid AND a.id = ${automation.id}::uuid AND ${waiting}
                  AND f.sequence_step IS NOT NULL AND (${stepGone} OR NOT a.enabled)
                LIMIT ${SAVE_STOP_BATCH}) ended
          WHERE f.org_id = ${automation.orgId}::uuid AND f.id = ended.id AND ${waiting}
          RETURNING f.id`,
    );
    if (stopped.length < SAVE_STOP_BATCH) return;
  }
}

const SAVE_STOP_BATCH = 500;

/** What became of a follow-up its job found `scheduled`. */
export type FollowUpRelease = "released" | "waiting" | "stopped";

/**
 * A follow-up's job on its day: the piece goes back to `queued` (and on through the mail safety
 * rules like any card) when its first card was handed to the printer and its day has come. Early
 * (the printer's mail date moved the day), it waits for a job at the new day; a first card that
 * will never be mailed stops it; a first card still waiting leaves it to the first card's print. A
 * follow-up whose step is gone or whose automation is off never gets here: its job stops it first (stopEndedFollowUp).
 */
export async function releaseDueFollowUp(
  db: Queryable,
  piece: PieceRecord,
  now: Date,
): Promise<FollowUpRelease> {
  const released = await queryOne<{ id: string }>(
    db,
    sql`UPDATE mail_pieces f SET status = 'queued', status_reason = NULL, status_updated_at = ${at(now)}
        FROM mail_pieces fc
        WHERE f.org_id = ${piece.orgId}::uuid AND f.id = ${piece.id}::uuid AND f.status = 'scheduled'
          AND f.scheduled_for <= ${at(now)}
          AND fc.org_id = f.org_id AND fc.id = f.sequence_first_piece_id AND fc.status IN ${PRINTED}
        RETURNING f.id`,
  );
  if (released) return "released";
  const state = await queryOne<{
    status: PieceStatus;
    scheduled_for: Date | string | null;
    first_status: PieceStatus;
  }>(
    db,
    sql`SELECT f.status, f.scheduled_for, fc.status AS first_status
        FROM mail_pieces f JOIN mail_pieces fc ON fc.org_id = f.org_id AND fc.id = f.sequence_first_piece_id
        WHERE f.org_id = ${piece.orgId}::uuid AND f.id = ${piece.id}::uuid`,
  );
  if (state?.status !== "scheduled") return "stopped";
  if (MAY_STILL_PRINT.includes(state.first_status)) return "waiting";
  if (!isPrinted(state.first_status)) {
    const stopped = await stopFollowUpRow(db, piece, firstNotMailed(state.first_status), now);
    return stopped ? "stopped" : "waiting";
  }
  await enqueueJob(
    db,
    processPieceJob,
    { org_id: piece.orgId, piece_id: piece.id },
    { orgId: piece.orgId, now, runAt: new Date(state.scheduled_for ?? now) },
  );
  return "waiting";
}

/** A follow-up's stop: its reason in words and what stopped it (an SQL CASE when several answers may). */
interface Stop {
  reason: SQL | string;
  by: SQL | FollowUpStop;
}

const firstNotMailed = (status: string): Stop => ({
  reason: `Stopped: the first card was not mailed (${status.replaceAll("_", " ")}), so its follow-ups are not either`,
  by: "first_card_not_mailed",
});

const stoppedBy = (stop: Stop, now: Date) =>
  sql`status = 'cancelled', cancelled_at = ${at(now)}, cancelled_by = 'sequence', status_reason = ${stop.reason},
      stopped_by = ${stop.by}, status_updated_at = ${at(now)}`;

async function stopFollowUpRow(db: Queryable, piece: { orgId: string; id: string }, stop: Stop, now: Date) {
  const row = await queryOne<{ id: string }>(
    db,
    sql`UPDATE mail_pieces SET ${stoppedBy(stop, now)}
        WHERE org_id = ${piece.orgId}::uuid AND id = ${piece.id}::uuid AND status IN ${STOPPABLE}
          AND submission_job_id IS NULL
        RETURNING id`,
  );
  return row !== undefined;
}

/**
 * First cards that closed without being mailed (suppressed, skipped, undeliverable, failed,
 * cancelled) take their follow-ups with them.
 */
export async function stopFollowUpsOfUnmailed(
  db: Queryable,
  orgId: string,
  firstIds: readonly string[],
  status: PieceStatus,
  now: Date,
): Promise<void> {
  if (firstIds.length === 0) return;
  await db.execute(
    sql`UPDATE mail_pieces SET ${stoppedBy(firstNotMailed(status), now)}
        WHERE org_id = ${orgId}::uuid AND sequence_first_piece_id = ANY(${sql.param(firstIds)}::uuid[])
          AND status IN ${STOPPABLE} AND submission_job_id IS NULL`,
  );
}

/** An answer of the home: the condition it meets and its reason in words. */
export interface HomeAnswer {
  condition: StopCondition;
  reason: string;
}

/** The answers, in words: "Stopped: Lee Stopper answered the first card on Nov 30". */
export const answeredCard = (name: string, step: number | null, now: Date): HomeAnswer => ({
  condition: "lead",
  reason: `Stopped: ${name || "the home"} answered the ${cardOrdinal(step)} card on ${shortDay(now)}`,
});
export const wonDeal = (now: Date): HomeAnswer => ({
  condition: "won_deal",
  reason: `Stopped: a deal was won at the home on ${shortDay(now)}`,
});
export const optedOut = (now: Date): HomeAnswer => ({
  condition: "opt_out",
  reason: `Stopped: the home asked for no more mail on ${shortDay(now)}`,
});
export const becameCustomer = (now: Date): HomeAnswer => ({
  condition: "customer",
  reason: `Stopped: the home became a customer on ${shortDay(now)}`,
});
export const cardReturned = (step: number | null, now: Date): HomeAnswer => ({
  condition: "returned",
  reason: `Stopped: the printer returned the ${cardOrdinal(step)} card on ${shortDay(now)}`,
});

/**
 * Whose follow-ups an answer stops: the sequence of one card (a lead, a return), every sequence
 * to the home of one card (an opt-out from its page), or every sequence to these homes.
 */
export type AnswerScope =
  | { orgId: string; pieceId: string }
  | { orgId: string; homeOfPieceId: string }
  | { orgId: string; addressKeys: string[] };

/**
 * Stops the follow-ups an answer of the home concerns, where their automation's `stop_when` names
 * one of the answer's conditions (the first named gives the reason). Answers the stopped pieces.
 */
export async function stopFollowUps(
  db: Queryable,
  scope: AnswerScope,
  answers: readonly HomeAnswer[],
  now: Date,
): Promise<string[]> {
  if (answers.length === 0 || ("addressKeys" in scope && scope.addressKeys.length === 0)) return [];
  const homeKeys =
    "pieceId" in scope
      ? []
      : "homeOfPieceId" in scope
        ? await homeKeysOfPiece(db, scope.orgId, scope.homeOfPieceId)
        : sameHomeKeys(scope.addressKeys);
  const meets = (answer: HomeAnswer) => sql`a.stop_when @> ${JSON.stringify([answer.condition])}::jsonb`;
  const firstMet = (of: (answer: HomeAnswer) => string) =>
    sql`CASE ${sql.join(
      answers.map((answer) => sql`WHEN ${meets(answer)} THEN ${of(answer)}`),
      sql` `,
    )} END`;
  const stop = { reason: firstMet((answer) => answer.reason), by: firstMet((answer) => answer.condition) };
  const target =
    "pieceId" in scope
      ? sql`f.sequence_first_piece_id = (SELECT COALESCE(sequence_first_piece_id, id) FROM mail_pieces
                                         WHERE org_id = ${scope.orgId}::uuid AND id = ${scope.pieceId}::uuid)`
      : sql`f.normalized_address = ANY(${sql.param(homeKeys)}::text[])`;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE mail_pieces f SET ${stoppedBy(stop, now)}
        FROM campaigns c, automations a
        WHERE f.org_id = ${scope.orgId}::uuid AND ${target} AND f.sequence_first_piece_id IS NOT NULL
          AND f.status IN ${STOPPABLE} AND f.submission_job_id IS NULL
          AND c.org_id = f.org_id AND c.id = f.campaign_id AND a.org_id = c.org_id AND a.id = c.automation_id
          AND (${sql.join(answers.map(meets), sql` OR `)})
        RETURNING f.id`,
  );
  return rows.map((row) => row.id);
}

/**
 * Every key the homes may be stored under: the home written with or without its city or ZIP is
 * one home (domain/same-home.ts), as customer suppression and the do-not-mail list match it. A
 * customer registered as "748 Evergreen Ter, 62704" (or a won deal there, attributed to the card)
 * stopped nothing while the follow-ups were keyed with Springfield. A key with a ZIP has at most
 * three others; one without has two for each ZIP of its city (381 for Houston, ~2 ms to list), so
 * a batch (customers, up to 1000) expands only its keys with a ZIP: its ZIP-less homes stop the
 * follow-ups keyed as they are written, and the rest are suppressed as customers on their day.
 */
export function sameHomeKeys(keys: readonly string[]): string[] {
  const expand = (key: string) =>
    keys.length === 1 || keyParts(key).zip !== "" ? keysOfSameHome(key) : [key];
  return [...new Set(keys.flatMap(expand))];
}

async function homeKeysOfPiece(db: Queryable, orgId: string, pieceId: string): Promise<string[]> {
  const piece = await queryOne<{ normalized_address: string | null }>(
    db,
    sql`SELECT normalized_address FROM mail_pieces WHERE org_id = ${orgId}::uuid AND id = ${pieceId}::uuid`,
  );
  return piece?.normalized_address ? sameHomeKeys([piece.normalized_address]) : [];
}

/** A lead from a card of a sequence stops the sequence's follow-ups (where its automation says so). */
export async function stopSequenceOnLead(
  db: Queryable,
  lead: { orgId: string; pieceId: string; name: string },
  now: Date,
): Promise<string[]> {
  const card = await queryOne<{ sequence_step: number | null }>(
    db,
    sql`SELECT sequence_step FROM mail_pieces WHERE org_id = ${lead.orgId}::uuid AND id = ${lead.pieceId}::uuid`,
  );
  if (!card) return [];
  return stopFollowUps(db, lead, [answeredCard(lead.name, card.sequence_step, now)], now);
}
