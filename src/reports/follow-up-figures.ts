// What became of each automation's follow-up cards, read from `follow_up_figures`, which triggers
// keep as pieces change (migrations/0620_follow_up_figures.sql): a few rows per automation and
// step at any volume of mail.
import { type Queryable, queryRows, sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";
import { STOP_CONDITIONS, type StopCondition } from "../domain/stop-conditions.ts";
import { WAITING_STATUSES } from "../pieces/piece-updates.ts";
import { isPrinted } from "../pieces/status-sql.ts";

/** Follow-up cards by what became of them. */
export interface FollowUpCounts {
  /** Waiting for their day (`scheduled`). */
  scheduled: number;
  /** Their day came; on their way through the mail safety rules (queued, held, awaiting approval, capped). */
  waiting: number;
  sentToPrint: number;
  /** Stopped because the home answered first (a stop condition of the automation), by the answer. */
  stoppedByAnswer: Record<StopCondition, number>;
  /** Not sent otherwise: cancelled by a person, first card not mailed, step removed, automation turned off, suppressed, skipped, undeliverable, failed. */
  notSent: number;
}

export interface AutomationFollowUps {
  total: FollowUpCounts;
  /** By step, named by its delay in days. */
  byStepDelay: Map<number, FollowUpCounts>;
}

const ON_THEIR_WAY: ReadonlySet<PieceStatus> = new Set(["queued", ...WAITING_STATUSES]);
const isStopCondition = (value: string): value is StopCondition =>
  (STOP_CONDITIONS as readonly string[]).includes(value);

export const noFollowUps = (): FollowUpCounts => ({
  scheduled: 0,
  waiting: 0,
  sentToPrint: 0,
  stoppedByAnswer: { lead: 0, won_deal: 0, opt_out: 0, customer: 0, returned: 0 },
  notSent: 0,
});

function add(counts: FollowUpCounts, status: PieceStatus, stoppedBy: string, cards: number) {
  if (status === "scheduled") counts.scheduled += cards;
  else if (ON_THEIR_WAY.has(status)) counts.waiting += cards;
  else if (isPrinted(status)) counts.sentToPrint += cards;
  else if (status === "cancelled" && isStopCondition(stoppedBy)) counts.stoppedByAnswer[stoppedBy] += cards;
  else counts.notSent += cards;
}

/** Every automation's follow-up cards in the organization, by automation id. */
export async function followUpFigures(
  db: Queryable,
  orgId: string,
): Promise<Map<string, AutomationFollowUps>> {
  const rows = await queryRows<{
    automation_id: string;
    step_delay: number;
    status: PieceStatus;
    stopped_by: string;
    cards: string | number;
  }>(
    db,
    sql`SELECT automation_id, step_delay, status, stopped_by, sum(cards) AS cards FROM follow_up_figures
        WHERE org_id = ${orgId}::uuid
        GROUP BY automation_id, step_delay, status, stopped_by HAVING sum(cards) <> 0`,
  );
  const figures = new Map<string, AutomationFollowUps>();
  for (const row of rows) {
    let automation = figures.get(row.automation_id);
    if (!automation) {
      automation = { total: noFollowUps(), byStepDelay: new Map() };
      figures.set(row.automation_id, automation);
    }
    const delay = Number(row.step_delay);
    let step = automation.byStepDelay.get(delay);
    if (!step) {
      step = noFollowUps();
      automation.byStepDelay.set(delay, step);
    }
    const cards = Number(row.cards);
    add(automation.total, row.status, row.stopped_by, cards);
    add(step, row.status, row.stopped_by, cards);
  }
  return figures;
}
