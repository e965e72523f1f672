import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { AppError, notFound } from "../errors.ts";
import { processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** Statuses in which a piece waits before print and may still be cancelled. */
export const WAITING_STATUSES = ["held", "awaiting_approval", "capped"] as const;
const WAITING = sql`('held', 'awaiting_approval', 'capped')`;

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
}

type Timestamp = Date | string | null;
type ViewRow = Omit<
  PieceSafetyView,
  "hold_until" | "approved_at" | "cancelled_at" | "mailed_at" | "created_at"
> & {
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
});

const VIEW_SELECT = sql`
  SELECT p.id, p.org_id, c.automation_id, p.status, p.status_reason, p.earlier_piece_id, p.hold_until,
         p.approved_at, p.approved_by, p.cancelled_at, p.cancelled_by, p.mailed_at, p.created_at
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
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE mail_pieces SET status = 'cancelled', cancelled_at = ${at(now)}, cancelled_by = ${actor},
          status_reason = ${`cancelled by ${actor}`}, status_updated_at = ${at(now)}
        WHERE id = ${pieceId}::uuid AND status IN ${WAITING}
        RETURNING id`,
  );
  const piece = await getPieceSafetyView(db, pieceId);
  if (rows.length === 0) {
    throw new AppError(
      409,
      "not_cancellable",
      `the card is ${piece.status.replaceAll("_", " ")}: only a held, capped or unapproved card can be cancelled`,
    );
  }
  return piece;
}

/** Cancels every piece of an automation that waits before print; answers their ids. */
export async function cancelWaitingPieces(db: Queryable, automationId: string, actor: string, now: Date) {
  const orgId = await automationOrg(db, automationId);
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE mail_pieces p SET status = 'cancelled', cancelled_at = ${at(now)}, cancelled_by = ${actor},
          status_reason = ${`cancelled by ${actor}`}, status_updated_at = ${at(now)}
        FROM campaigns c
        WHERE p.org_id = ${orgId}::uuid AND c.org_id = p.org_id AND c.id = p.campaign_id
          AND c.automation_id = ${automationId}::uuid AND p.status IN ${WAITING}
        RETURNING p.id`,
  );
  return rows.map((row) => row.id);
}

/**
 * Approves pieces awaiting approval (the given ones, or every one of the automation): each goes
 * back to `queued` with a job of its own, in one transaction. Each approval counts towards the
 * automation's `auto_approve_after`; reaching it switches the automation to automatic.
 */
export async function approvePieces(
  db: Queryable,
  selection: { automationId: string; pieceIds?: string[] } | { pieceIds: string[] },
  actor: string,
  now: Date,
): Promise<string[]> {
  const orgId = "automationId" in selection ? await automationOrg(db, selection.automationId) : undefined;
  return db.transaction(async (tx) => {
    const approved = await queryRows<{ id: string; org_id: string; automation_id: string | null }>(
      tx,
      sql`UPDATE mail_pieces p SET status = 'queued', approved_at = ${at(now)}, approved_by = ${actor},
            status_reason = NULL, status_updated_at = ${at(now)}
          FROM campaigns c
          WHERE c.org_id = p.org_id AND c.id = p.campaign_id AND p.status = 'awaiting_approval'
            ${orgId ? sql`AND p.org_id = ${orgId}::uuid AND c.automation_id = ${(selection as { automationId: string }).automationId}::uuid` : sql``}
            ${selection.pieceIds ? sql`AND p.id = ANY(${sql.param(selection.pieceIds)}::uuid[])` : sql``}
          RETURNING p.id, p.org_id, c.automation_id`,
    );
    const perAutomation = new Map<string, { orgId: string; count: number }>();
    for (const piece of approved) {
      await enqueueJob(
        tx,
        processPieceJob,
        { org_id: piece.org_id, piece_id: piece.id },
        { orgId: piece.org_id, now },
      );
      if (piece.automation_id === null) continue;
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
