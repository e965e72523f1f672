import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { AppError, notFound } from "../errors.ts";
import { processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import {
  approveAwaitingPieces,
  cancelAutomationWaitingPieces,
  cancelWaitingPiece,
  WAITING,
  type WAITING_STATUSES,
} from "../pieces/piece-updates.ts";

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** What the operator API shows of a piece's way through the mail safety rules. */
export interface PieceSafetyView {
  id: string;
  org_id: string;
  automation_id: string | null;
  status: string;
  status_reason: string | null;
  earlier_piece_id: string | null;
  hold_until: string | null;
  approved_at: string | null;
  approved_by: string | null;
  cancelled_at: string | null;
  cancelled_by: string | null;
  mailed_at: string | null;
  created_at: string;
  /** A follow-up card's step (1-3) and the day it is due (sequences, issue 42); null on a first card. */
  sequence_step: number | null;
  scheduled_for: string | null;
}

type Timestamp = Date | string | null;
type ViewRow = Omit<
  PieceSafetyView,
  "hold_until" | "approved_at" | "cancelled_at" | "mailed_at" | "created_at" | "scheduled_for"
> & {
  scheduled_for: Timestamp;
  hold_until: Timestamp;
  approved_at: Timestamp;
  cancelled_at: Timestamp;
  mailed_at: Timestamp;
  created_at: Date | string;
};

const iso = (value: Timestamp) => (value === null ? null : new Date(value).toISOString());
const toView = (row: ViewRow): PieceSafetyView => ({
  ...row,
  hold_until: iso(row.hold_until),
  approved_at: iso(row.approved_at),
  cancelled_at: iso(row.cancelled_at),
  mailed_at: iso(row.mailed_at),
  created_at: new Date(row.created_at).toISOString(),
  scheduled_for: iso(row.scheduled_for),
});

const VIEW_SELECT = sql`
  SELECT p.id, p.org_id, c.automation_id, p.status, p.status_reason, p.earlier_piece_id, p.hold_until,
         p.approved_at, p.approved_by, p.cancelled_at, p.cancelled_by, p.mailed_at, p.created_at,
         p.sequence_step, p.scheduled_for
  FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id`;

export async function getPieceSafetyView(db: Queryable, pieceId: string): Promise<PieceSafetyView> {
  const row = await queryOne<ViewRow>(db, sql`${VIEW_SELECT} WHERE p.id = ${pieceId}::uuid`);
  if (!row) throw notFound("piece not found");
  return toView(row);
}

async function automationOrg(db: Queryable, automationId: string): Promise<string> {
  const row = await queryOne<{ org_id: string }>(
    db,
    sql`SELECT org_id FROM automations WHERE id = ${automationId}::uuid`,
  );
  if (!row) throw notFound("automation not found");
  return row.org_id;
}

/** An automation's pieces waiting before print (all waiting statuses, or one), oldest first. */
export async function listWaitingPieces(
  db: Queryable,
  automationId: string,
  status: (typeof WAITING_STATUSES)[number] | undefined,
  limit: number,
): Promise<PieceSafetyView[]> {
  const orgId = await automationOrg(db, automationId);
  const rows = await queryRows<ViewRow>(
    db,
    sql`${VIEW_SELECT}
        WHERE p.org_id = ${orgId}::uuid AND c.automation_id = ${automationId}::uuid
          AND ${status ? sql`p.status = ${status}` : sql`p.status IN ${WAITING}`}
        ORDER BY p.created_at, p.id LIMIT ${limit}`,
  );
  return rows.map(toView);
}

/** Cancels one waiting piece; a piece already on its way to print (or stopped) is 409. */
export async function cancelPiece(db: Queryable, pieceId: string, actor: string, now: Date) {
  const cancelled = await cancelWaitingPiece(db, pieceId, actor, now);
  const piece = await getPieceSafetyView(db, pieceId);
  if (!cancelled) {
    throw new AppError(
      409,
      "not_cancellable",
      `the card is ${piece.status.replaceAll("_", " ")}: only a held, capped, unapproved or scheduled card can be cancelled`,
    );
  }
  return piece;
}

/** Cancels every piece of an automation that waits before print; answers their ids. */
export async function cancelWaitingPieces(db: Queryable, automationId: string, actor: string, now: Date) {
  const orgId = await automationOrg(db, automationId);
  return cancelAutomationWaitingPieces(db, { orgId, automationId }, actor, now);
}

/**
 * Approves pieces awaiting approval (the given ones, or every one of the automation): each goes
 * back to `queued` with a job of its own, in one transaction. Each approval counts towards the
 * automation's `auto_approve_after` (a test card's does not); reaching it switches the automation
 * to automatic.
 */
export async function approvePieces(
  db: Queryable,
  selection:
    | { automationId: string; pieceIds?: string[] }
    | { pieceIds: string[]; seenVersions?: Record<string, string> },
  actor: string,
  now: Date,
): Promise<string[]> {
  const automation =
    "automationId" in selection
      ? { orgId: await automationOrg(db, selection.automationId), automationId: selection.automationId }
      : undefined;
  return db.transaction(async (tx) => {
    const approved = await approveAwaitingPieces(
      tx,
      {
        automation,
        pieceIds: selection.pieceIds,
        seenVersions: "seenVersions" in selection ? selection.seenVersions : undefined,
      },
      actor,
      now,
    );
    const perAutomation = new Map<string, { orgId: string; count: number }>();
    for (const piece of approved) {
      await enqueueJob(
        tx,
        processPieceJob,
        { org_id: piece.org_id, piece_id: piece.id },
        { orgId: piece.org_id, now },
      );
      // An owner approving their own test cards has reviewed no customer's card yet.
      if (piece.automation_id === null || piece.test_card) continue;
      const entry = perAutomation.get(piece.automation_id) ?? { orgId: piece.org_id, count: 0 };
      entry.count++;
      perAutomation.set(piece.automation_id, entry);
    }
    for (const [automationId, { orgId: automationOrgId, count }] of perAutomation) {
      await tx.execute(sql`
        UPDATE automation_mail_safety SET approved_count = approved_count + ${count}::int,
          approval_required = approval_required
            AND NOT (auto_approve_after IS NOT NULL AND approved_count + ${count}::int >= auto_approve_after),
          updated_at = ${at(now)}
        WHERE org_id = ${automationOrgId}::uuid AND automation_id = ${automationId}::uuid`);
    }
    return approved.map((piece) => piece.id);
  });
}
