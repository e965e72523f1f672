/**
 * The pipeline's mail safety rules (issue 29), run by a piece's job before it may print: the
 * do-not-mail list, the per-home frequency cap, the automation's hold window and approval mode.
 * Each rule either lets the piece go on or moves it out of `queued` with its reason; a held or
 * approved piece comes back through a job of its own.
 */
import type { SQL } from "drizzle-orm";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { STREET_CANDIDATES, sameHome, streetOfKey } from "../domain/same-home.ts";
import { processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { moveQueuedPiece, requeueWaitingPiece, WAITING_STATUSES } from "../pieces/piece-updates.ts";
import type { Gate, HomeFacts, SafetyGates } from "../pieces/process-piece.ts";
import { sqlStatusList } from "../pieces/status-sql.ts";
import { OPTED_OUT_REASON } from "./do-not-mail.ts";
import { DEFAULT_FREQUENCY_CAP_DAYS, verificationLevelOrDefault } from "./settings.ts";
import {
  type Caps,
  capsOfPieceSql,
  claimCapBudget,
  releaseCappedPiece,
  type SafetyPiece,
} from "./spend-caps.ts";
import { utcDay, utcMinute } from "./words.ts";

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
 * `since` (an instant, or an SQL expression of one): printed, or still able to print, dated from
 * its mail date, else from when it was queued. The one rule for the pipeline (below) and for the
 * neighbour fan-out, which leaves such homes out when it chooses them.
 */
export const countsInFrequencyWindow = (since: Date | SQL) =>
  sql`(status IN ${PRINTED} OR status IN ${MAY_STILL_PRINT}) AND COALESCE(mailed_at, created_at) > ${since instanceof Date ? at(since) : since}`;

/** A piece on the home's street that counts against the frequency window (homeFacts), as JSON. */
interface EarlierCandidate {
  id: string;
  normalized_address: string;
  mailed_at: string | null;
  status: string;
  created_at: string;
}

interface HomeFactsRow {
  customers: string[];
  opted_out: string[];
  cap_days: number;
  level: string | null;
  earlier: EarlierCandidate[] | null;
}

/** Whether the piece passed its home's rules before (false for a piece with no row: the builder's sample). */
const passedAlready = (piece: SafetyPiece) =>
  sql`COALESCE((SELECT home_rules_passed_at IS NOT NULL FROM mail_pieces
                WHERE org_id = ${piece.orgId}::uuid AND id = ${piece.id}::uuid), false)`;

/**
 * What the rules before print know of the piece's home and organization, read in one statement
 * (each was a statement of its own, ~1 ms of the embedded database's CPU a card): customers and
 * do-not-mail entries on the home's street (`sameHome` picks the home's own among them), the
 * org's frequency cap and address verification level, and the earlier piece to the home inside
 * the cap's window: a printed or waiting one, one past its own home rules (the pipeline reads these
 * under the home's lock and marks a piece that passes: process-piece.ts `passHomeRules`), or,
 * for a piece that has not passed yet, one still queued before it. So of two pieces racing for one
 * home, the first to be decided is the home's card. The cards of the piece's own sequence do not
 * count: a follow-up is mailed days after its first card on purpose (docs/sequences.md).
 */
export async function homeFacts(
  db: Queryable,
  piece: SafetyPiece,
  addressKey: string,
  now: Date,
): Promise<HomeFacts> {
  const street = streetOfKey(addressKey);
  const row = await queryOne<HomeFactsRow>(
    db,
    sql`SELECT
          ARRAY(SELECT normalized_address FROM customers
                WHERE org_id = ${piece.orgId}::uuid AND split_part(normalized_address, ', ', 1) = ${street}) AS customers,
          ARRAY(SELECT normalized_address FROM do_not_mail
                WHERE org_id = ${piece.orgId}::uuid AND split_part(normalized_address, ', ', 1) = ${street}) AS opted_out,
          settings.cap_days, settings.level, earlier.candidates AS earlier
        FROM (SELECT COALESCE(max(frequency_cap_days), ${DEFAULT_FREQUENCY_CAP_DAYS}::int) AS cap_days,
                     max(address_verification) AS level
              FROM org_mail_safety WHERE org_id = ${piece.orgId}::uuid) settings
        LEFT JOIN LATERAL (
          SELECT json_agg(json_build_object('id', c.id, 'normalized_address', c.normalized_address,
                   'mailed_at', c.mailed_at, 'status', c.status, 'created_at', c.created_at)
                 ORDER BY COALESCE(c.mailed_at, c.created_at) DESC, c.created_at DESC) AS candidates
          FROM (SELECT id, normalized_address, mailed_at, status, created_at FROM mail_pieces
          WHERE org_id = ${piece.orgId}::uuid AND id <> ${piece.id}::uuid
            -- The pieces on the home's street: sameHome keeps the home's own below, written with or
            -- without its city or ZIP or with a neighbourhood's name, as customer suppression reads it.
            AND split_part(normalized_address, ', ', 1) = ${street}
            -- Days of exactly 24 hours, as the neighbour fan-out counts them (not the session time zone's).
            AND ${countsInFrequencyWindow(sql`${at(now)} - make_interval(hours => settings.cap_days * 24)`)}
            AND COALESCE(sequence_first_piece_id, id) <> ${piece.sequenceFirstPieceId ?? piece.id}::uuid
            -- Printed, waiting, or past its home's rules (the first to decide); or else queued before
            -- it, unless this piece passed its rules already (a retry must not wait for one that waits for it).
            AND (status <> 'queued' OR home_rules_passed_at IS NOT NULL
                 OR (NOT ${passedAlready(piece)} AND (created_at, id) < (${at(piece.createdAt)}, ${piece.id}::uuid)))
          ORDER BY COALESCE(mailed_at, created_at) DESC, created_at DESC LIMIT ${STREET_CANDIDATES}) c
        ) earlier ON settings.cap_days > 0`,
  );
  const ofThisHome = (keys: string[] | undefined) => (keys ?? []).some((key) => sameHome(key, addressKey));
  const earlier = (row?.earlier ?? []).find((candidate) =>
    sameHome(candidate.normalized_address, addressKey),
  );
  return {
    registeredCustomer: ofThisHome(row?.customers),
    optedOut: ofThisHome(row?.opted_out),
    frequencyCapDays: row?.cap_days ?? DEFAULT_FREQUENCY_CAP_DAYS,
    earlierPiece: earlier
      ? {
          id: earlier.id,
          mailedAt: earlier.mailed_at === null ? null : new Date(earlier.mailed_at),
          undecided: earlier.status === "queued",
          queuedAt: new Date(earlier.created_at),
        }
      : null,
    verificationLevel: verificationLevelOrDefault(row?.level ?? null),
  };
}

/** Why the home's rules stop a piece: the status it takes, the earlier piece it yields to, its reason. */
export type HomeStop =
  | { status: "suppressed"; rule: "do_not_mail"; earlierPieceId: null; reason: string }
  | { status: "skipped"; rule: "frequency_cap"; earlierPieceId: string; reason: string };

/**
 * The do-not-mail list, then the frequency cap, decided on the home's facts (homeFacts): null when
 * neither stops the piece. The pipeline's homeRules acts on it; the builder's dry run only says it.
 */
export function homeStop(facts: HomeFacts): HomeStop | null {
  if (facts.optedOut) {
    return { status: "suppressed", rule: "do_not_mail", earlierPieceId: null, reason: OPTED_OUT_REASON };
  }
  const earlier = facts.earlierPiece;
  if (!earlier) return null;
  return {
    status: "skipped",
    rule: "frequency_cap",
    earlierPieceId: earlier.id,
    reason: frequencyCapReason(facts.frequencyCapDays, earlier.mailedAt),
  };
}

/** How long a piece waits for an undecided earlier card to its home: as long as that one has waited, 5 s to 5 min. */
export function waitForEarlierCard(earlierQueuedAt: Date, now: Date): number {
  return Math.min(Math.max(now.getTime() - earlierQueuedAt.getTime(), 5_000), 5 * 60_000);
}

/**
 * The home asked for no more mail, or got a card too recently (`facts` from homeFacts): the piece
 * never prints. An earlier card still undecided (two automations queued cards to one home at once)
 * is waited for: if it is held out, undeliverable or suppressed, the home is not left without one.
 */
export async function homeRules(
  db: Queryable,
  piece: SafetyPiece,
  facts: HomeFacts,
  now: Date,
): Promise<Gate> {
  const stop = homeStop(facts);
  if (!stop) return GO;
  if (stop.rule === "frequency_cap" && facts.earlierPiece?.undecided) {
    const runAt = new Date(now.getTime() + waitForEarlierCard(facts.earlierPiece.queuedAt, now));
    await enqueueJob(
      db,
      processPieceJob,
      { org_id: piece.orgId, piece_id: piece.id },
      { orgId: piece.orgId, now, runAt },
    );
    return { go: false, outcome: "waiting for an earlier card to the home to be decided" };
  }
  await moveQueuedPiece(
    db,
    piece,
    { status: stop.status, earlierPieceId: stop.earlierPieceId },
    stop.reason,
    now,
  );
  return {
    go: false,
    outcome: stop.status === "suppressed" ? "suppressed: on the do-not-mail list" : "skipped: frequency cap",
  };
}

/**
 * What a piece's last rules before print read, in one statement: its automation's hold window and
 * approval mode (a card no automation sends, a reactivation mailing, waits the organization's hold
 * window for mailings and needs no approval), and the month's caps on it. Undefined when the piece
 * is gone.
 */
export interface PrintRules extends Caps {
  hold_minutes: number;
  approval_required: boolean;
}

/** PrintRules' own columns over capsOf*Sql's rows: an automation's hold and approval, or a mailing's hold. */
export const printRulesColumns = (ofAutomation: boolean) =>
  sql`${ofAutomation ? sql`COALESCE(a.hold_minutes, 0)` : sql`COALESCE(s.mailing_hold_minutes, 0)`} AS hold_minutes,
      ${ofAutomation ? sql`COALESCE(a.approval_required, false)` : sql`false`} AS approval_required`;

function printRules(db: Queryable, piece: SafetyPiece): Promise<PrintRules | undefined> {
  return queryOne<PrintRules>(db, capsOfPieceSql(piece, printRulesColumns(piece.automationId !== null)));
}

/** A held piece whose window has passed goes back to `queued`; false when cancelled or not due yet. */
export const releaseHeldPiece = (db: Queryable, piece: SafetyPiece, now: Date): Promise<boolean> =>
  requeueWaitingPiece(db, piece, "held", now);

export const AWAITING_APPROVAL_REASON =
  "waiting for a member to approve it (the automation requires approval)";

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
 * Which of the automation's waits a piece enters next: its hold window (once), then its approval
 * mode (until approved); null when it waits for neither. The pipeline's automationGates acts on it;
 * the builder's dry run only says it.
 */
export function automationWait(
  rules: Pick<PrintRules, "hold_minutes" | "approval_required">,
  piece: Pick<SafetyPiece, "holdUntil" | "approvedAt">,
): "held" | "awaiting_approval" | null {
  if (rules.hold_minutes > 0 && piece.holdUntil === null) return "held";
  if (rules.approval_required && piece.approvedAt === null) return "awaiting_approval";
  return null;
}

/**
 * The automation's hold window, then its approval mode. A piece enters the hold window once: its
 * job for the end of the window is enqueued in the same transaction (the job queue's run_at), so
 * no poller is needed and a crash cannot strand it.
 */
async function automationGates(
  db: Queryable,
  piece: SafetyPiece,
  rules: PrintRules,
  now: Date,
): Promise<Gate> {
  const wait = automationWait(rules, piece);
  if (wait === "held") {
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
  if (wait === "awaiting_approval") {
    await moveQueuedPiece(db, piece, { status: "awaiting_approval" }, AWAITING_APPROVAL_REASON, now);
    return { go: false, outcome: "awaiting approval" };
  }
  return GO;
}

/**
 * The last rules before print, on one read of them: the automation's hold window and approval mode,
 * then the month's caps, from which the card is claimed (capped when a cap is reached).
 */
export async function printGates(db: Queryable, piece: SafetyPiece, now: Date): Promise<Gate> {
  const rules = await printRules(db, piece);
  if (!rules) return GO; // gone: the print's claim of the piece finds nothing to print
  const waits = await automationGates(db, piece, rules, now);
  if (!waits.go) return waits;
  return (await claimCapBudget(db, piece, rules, now))
    ? GO
    : { go: false, outcome: "capped: a monthly cap is reached" };
}

/** The rules the pipeline runs before print (pieces/process-piece.ts takes them as a dependency). */
export const mailSafetyGates: SafetyGates = {
  releaseHeldPiece,
  releaseCappedPiece,
  homeFacts,
  homeRules,
  printGates,
};
