/**
 * The pipeline's mail safety rules (issue 29), run by a piece's job before it may print: the
 * do-not-mail list, the per-home frequency cap, the automation's hold window and approval mode.
 * Each rule either lets the piece go on or moves it out of `queued` with its reason; a held or
 * approved piece comes back through a job of its own.
 */
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { moveQueuedPiece, requeueWaitingPiece, WAITING_STATUSES } from "../pieces/piece-updates.ts";
import type { Gate, SafetyGates } from "../pieces/process-piece.ts";
import { sqlStatusList } from "../pieces/status-sql.ts";
import { isOnDoNotMailList, OPTED_OUT_REASON } from "./do-not-mail.ts";
import { frequencyCapDays, verificationLevel } from "./settings.ts";
import { claimCapBudget, releaseCappedPiece, type SafetyPiece } from "./spend-caps.ts";
import { utcDay, utcMinute } from "./words.ts";

const DAY_MS = 86_400_000;
const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** Statuses of a piece that went to print (or was recorded as mailed). */
const PRINTED = sql`('submitted', 'mailed', 'in_transit', 'delivered', 'returned')`;
/** Statuses of a piece that may still print: queued, or waiting under a mail safety rule. */
const MAY_STILL_PRINT = sqlStatusList(["queued", ...WAITING_STATUSES]);

const GO: Gate = { go: true };

/** The earlier piece is the skipped one's `earlier_piece_id` (the app links it); no id in words. */
export const frequencyCapReason = (days: number, mailedAt: Date | null) =>
  `the home got a card within the last ${days} days${mailedAt ? ` (mailed ${utcDay(mailedAt)})` : " (another card to it is already queued or printing)"}`;

/**
 * A piece of `mail_pieces` that counts against the org's per-home frequency window opened at
 * `since`: printed, or still able to print, dated from its mail date, else from when it was
 * queued. The one rule for the pipeline (below) and for the neighbour fan-out, which leaves such
 * homes out when it chooses them.
 */
export const countsInFrequencyWindow = (since: Date) =>
  sql`(status IN ${PRINTED} OR status IN ${MAY_STILL_PRINT}) AND COALESCE(mailed_at, created_at) > ${at(since)}`;

/**
 * The earlier piece to the same home inside the org's frequency window: a printed one, or one
 * still waiting that was queued before this one (so of two pieces racing for one home, exactly
 * the later is skipped). The cards of the piece's own sequence do not count: a follow-up is
 * mailed days after its first card on purpose (docs/sequences.md).
 */
async function earlierPieceToHome(db: Queryable, piece: SafetyPiece, addressKey: string, since: Date) {
  return queryOne<{ id: string; mailed_at: Date | string | null }>(
    db,
    sql`SELECT id, mailed_at FROM mail_pieces
        WHERE org_id = ${piece.orgId}::uuid AND normalized_address = ${addressKey} AND id <> ${piece.id}::uuid
          AND ${countsInFrequencyWindow(since)}
          AND COALESCE(sequence_first_piece_id, id) <> ${piece.sequenceFirstPieceId ?? piece.id}::uuid
          AND (status IN ${PRINTED} OR (created_at, id) < (${at(piece.createdAt)}, ${piece.id}::uuid))
        ORDER BY COALESCE(mailed_at, created_at) DESC, created_at DESC LIMIT 1`,
  );
}

/** The home asked for no more mail, or got a card too recently: the piece never prints. */
export async function homeRules(
  db: Queryable,
  piece: SafetyPiece,
  addressKey: string,
  now: Date,
): Promise<Gate> {
  if (await isOnDoNotMailList(db, piece.orgId, addressKey)) {
    await moveQueuedPiece(db, piece, { status: "suppressed", earlierPieceId: null }, OPTED_OUT_REASON, now);
    return { go: false, outcome: "suppressed: on the do-not-mail list" };
  }
  const days = await frequencyCapDays(db, piece.orgId);
  if (days === 0) return GO;
  const earlier = await earlierPieceToHome(db, piece, addressKey, new Date(now.getTime() - days * DAY_MS));
  if (!earlier) return GO;
  await moveQueuedPiece(
    db,
    piece,
    { status: "skipped", earlierPieceId: earlier.id },
    frequencyCapReason(days, earlier.mailed_at === null ? null : new Date(earlier.mailed_at)),
    now,
  );
  return { go: false, outcome: "skipped: frequency cap" };
}

interface AutomationRules {
  hold_minutes: number;
  approval_required: boolean;
}

/**
 * The automation's hold window and approval mode; a card no automation sends (a reactivation
 * mailing) waits the organization's hold window for mailings and needs no approval.
 */
async function automationRules(db: Queryable, piece: SafetyPiece): Promise<AutomationRules> {
  if (piece.automationId === null) {
    const org = await queryOne<{ hold_minutes: number }>(
      db,
      sql`SELECT mailing_hold_minutes AS hold_minutes FROM org_mail_safety WHERE org_id = ${piece.orgId}::uuid`,
    );
    return { hold_minutes: org?.hold_minutes ?? 0, approval_required: false };
  }
  const row = await queryOne<AutomationRules>(
    db,
    sql`SELECT hold_minutes, approval_required FROM automation_mail_safety
        WHERE org_id = ${piece.orgId}::uuid AND automation_id = ${piece.automationId}::uuid`,
  );
  return row ?? { hold_minutes: 0, approval_required: false };
}

/** A held piece whose window has passed goes back to `queued`; false when cancelled or not due yet. */
export const releaseHeldPiece = (db: Queryable, piece: SafetyPiece, now: Date): Promise<boolean> =>
  requeueWaitingPiece(db, piece, "held", now);

const AWAITING_APPROVAL_REASON = "waiting for a member to approve it (the automation requires approval)";

/** A held piece's reason in words: the window's length and its end, to the minute (UTC). */
export function holdReason(holdMinutes: number, until: Date, whose = "the automation's"): string {
  const hours = holdMinutes / 60;
  const length = Number.isInteger(hours)
    ? `${hours}-hour`
    : holdMinutes < 60
      ? `${holdMinutes}-minute`
      : `${Math.floor(hours)} h ${holdMinutes % 60} min`;
  return `held for ${whose} ${length} hold window, until ${utcMinute(until)}; it can be cancelled until then`;
}

/**
 * The automation's hold window, then its approval mode. A piece enters the hold window once: its
 * job for the end of the window is enqueued in the same transaction (the job queue's run_at), so
 * no poller is needed and a crash cannot strand it.
 */
export async function automationGates(db: Queryable, piece: SafetyPiece, now: Date): Promise<Gate> {
  const rules = await automationRules(db, piece);
  if (rules.hold_minutes > 0 && piece.holdUntil === null) {
    const until = new Date(now.getTime() + rules.hold_minutes * 60_000);
    await db.transaction(async (tx) => {
      const reason = holdReason(
        rules.hold_minutes,
        until,
        piece.automationId === null ? "the organization's mailing" : undefined,
      );
      if (!(await moveQueuedPiece(tx, piece, { status: "held", holdUntil: until }, reason, now))) return;
      await enqueueJob(
        tx,
        processPieceJob,
        { org_id: piece.orgId, piece_id: piece.id },
        { orgId: piece.orgId, now, runAt: until },
      );
    });
    return { go: false, outcome: "held" };
  }
  if (rules.approval_required && piece.approvedAt === null) {
    await moveQueuedPiece(db, piece, { status: "awaiting_approval" }, AWAITING_APPROVAL_REASON, now);
    return { go: false, outcome: "awaiting approval" };
  }
  return GO;
}

/** The rules the pipeline runs before print (pieces/process-piece.ts takes them as a dependency). */
export const mailSafetyGates: SafetyGates = {
  releaseHeldPiece,
  releaseCappedPiece,
  verificationLevel,
  homeRules,
  automationGates,
  claimCapBudget,
};
