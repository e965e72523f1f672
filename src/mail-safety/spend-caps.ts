/**
 * Monthly spend caps (mail safety, issue 29), per organization and per automation, in cards or
 * money (the org's cost per card). A piece claims its card from the month's counters just before
 * print with a conditional upsert per counter, in one statement and its transaction: two workers at
 * the last card of a cap wait on the counter row's lock, and the second finds the cap reached. A
 * piece past a cap is held as `capped` and comes back by a job at the start of the next month, or
 * when a cap is raised.
 */
import type { SQL } from "drizzle-orm";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { claimCapMonthSql, moveQueuedPiece, requeueWaitingPiece } from "../pieces/piece-updates.ts";
import { claimCapNotice } from "./cap-notice.ts";
import { dollars } from "./words.ts";

/** What the mail safety rules read of a piece (the pipeline's SafetyPiece has it). */
export interface SafetyPiece {
  orgId: string;
  id: string;
  /** A follow-up card's first card (issue 42): the cards of one sequence do not cap each other. */
  sequenceFirstPieceId?: string | null;
  automationId: string | null;
  createdAt: Date;
  /** Set when the piece entered its automation's hold window. */
  holdUntil: Date | null;
  approvedAt: Date | null;
}

/** The counters' automation_id of an org's own cap. */
export const ORG_SCOPE = "00000000-0000-0000-0000-000000000000";
const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

export const monthOf = (now: Date) => `${now.toISOString().slice(0, 7)}-01`;
export const nextMonthStart = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

/** The month's caps on a piece's card and its cost, and the month its card was claimed in (if it was). */
export interface Caps {
  org_cards: number | null;
  org_cents: number | null;
  automation_cards: number | null;
  automation_cents: number | null;
  cost: number;
  claimed: string | null;
}

class CapReached extends Error {
  constructor(
    readonly reason: string,
    readonly scope: string,
  ) {
    super(reason);
  }
}

const CAP_COLUMNS = sql`s.monthly_card_cap AS org_cards, s.monthly_spend_cap_cents AS org_cents,
               a.monthly_card_cap AS automation_cards, a.monthly_spend_cap_cents AS automation_cents,
               COALESCE(prof.cost_per_card_cents, 0) AS cost`;

/** The rows the caps are read from: the organization's settings `s`, the automation's `a`, the profile's cost. */
const capJoins = (scope: { orgId: string; automationId: string | null }) =>
  sql`LEFT JOIN org_mail_safety s ON s.org_id = ${scope.orgId}::uuid
        LEFT JOIN automation_mail_safety a ON a.org_id = ${scope.orgId}::uuid AND a.automation_id = ${scope.automationId ?? ORG_SCOPE}::uuid
        LEFT JOIN organization_profiles prof ON prof.org_id = ${scope.orgId}::uuid`;

/**
 * A read of the piece's Caps, with `extra` columns over the same rows (the piece `p`, its org's
 * settings `s`, its automation's `a`): for a statement that reads the caps with other rules.
 */
export function capsOfPieceSql(piece: SafetyPiece, extra: SQL): SQL {
  return sql`SELECT ${CAP_COLUMNS}, p.cap_claimed_month::text AS claimed, ${extra}
        FROM mail_pieces p
        ${capJoins(piece)}
        WHERE p.org_id = ${piece.orgId}::uuid AND p.id = ${piece.id}::uuid`;
}

/** The same read for a card not made yet (nothing claimed): of the organization, and of `automationId` when it has one. */
export function capsOfScopeSql(scope: { orgId: string; automationId: string | null }, extra: SQL): SQL {
  return sql`SELECT ${CAP_COLUMNS}, NULL AS claimed, ${extra}
        FROM (SELECT 1) one
        ${capJoins(scope)}`;
}

type CapPair = { cards: number | null; cents: number | null };

/** One more card of `cost` fits under `caps` on a counter at `cards` and `cents`: the claim's test, in SQL. */
const fitsUnderCap = (caps: CapPair, cost: number, cards: SQL, cents: SQL) =>
  sql`(${caps.cards}::int IS NULL OR ${cards} < ${caps.cards}::int)
      AND (${caps.cents}::int IS NULL OR ${cents} + ${cost}::int <= ${caps.cents}::int)`;

/**
 * Counts one card against one counter when `when` holds, unless that would pass its cap: one
 * upsert, as a CTE of the claim's statement. A month's first card inserts the row (when a card fits
 * under the cap at all); later ones update it, the cap checked on the row's latest version under
 * its lock, so two workers at the last card cannot both pass.
 */
function counterUpsert(
  key: { orgId: string; scope: string; month: string },
  caps: CapPair,
  cost: number,
  when: SQL,
): SQL {
  const fits = (cards: SQL, cents: SQL) => fitsUnderCap(caps, cost, cards, cents);
  return sql`INSERT INTO mail_cap_usage AS u (org_id, automation_id, month, cards, cents)
        SELECT ${key.orgId}::uuid, ${key.scope}::uuid, ${key.month}::date, 1, ${cost}::int
         WHERE ${when} AND ${fits(sql`0`, sql`0`)}
        ON CONFLICT (org_id, automation_id, month) DO UPDATE
          SET cards = u.cards + 1, cents = u.cents + ${cost}::int
          WHERE ${fits(sql`u.cards`, sql`u.cents`)}
        RETURNING cards`;
}

const capWords = (owner: string, caps: CapPair) =>
  caps.cards !== null && caps.cents !== null
    ? `${owner}'s monthly cap (${caps.cards} cards, ${dollars(caps.cents)}) is reached`
    : caps.cards !== null
      ? `${owner}'s monthly cap of ${caps.cards} cards is reached`
      : `${owner}'s monthly spend cap of ${dollars(caps.cents ?? 0)} is reached`;

/**
 * Claims the piece's card from this month's budget (org and automation together, or neither), on
 * the caps read with the piece's other rules at print.
 * Usage is counted even without a cap (the app shows it). False: a cap is reached and the piece
 * is now `capped`, with its job for the next month enqueued.
 */
export async function claimCapBudget(
  db: Queryable,
  piece: SafetyPiece,
  caps: Caps,
  now: Date,
): Promise<boolean> {
  if (caps.claimed !== null) return true;
  const month = monthOf(now);
  const org = { cards: caps.org_cards, cents: caps.org_cents };
  const automation = { cards: caps.automation_cards, cents: caps.automation_cents };
  const automationId = piece.automationId;
  try {
    await db.transaction(async (tx) => {
      // One statement, in lock order: the piece's claim first, conditionally (two jobs of one piece,
      // a cap raised twice or the new month's job, may both get here; the second waits on the
      // piece's row and then counts nothing), then the org's counter, then the automation's, each
      // only when the one before it counted. A cap reached throws, and the transaction undoes the rest.
      const [claim] = await queryRows<{ claimed: boolean; org: boolean; automation: boolean }>(
        tx,
        sql`WITH claimed AS (${claimCapMonthSql(piece, month)}),
             org AS (${counterUpsert({ orgId: piece.orgId, scope: ORG_SCOPE, month }, org, caps.cost, sql`EXISTS (SELECT 1 FROM claimed)`)}),
             automation AS (${
               automationId === null
                 ? sql`SELECT 1 WHERE false`
                 : counterUpsert(
                     { orgId: piece.orgId, scope: automationId, month },
                     automation,
                     caps.cost,
                     sql`EXISTS (SELECT 1 FROM org)`,
                   )
             })
            SELECT EXISTS (SELECT 1 FROM claimed) AS claimed, EXISTS (SELECT 1 FROM org) AS org,
                   EXISTS (SELECT 1 FROM automation) AS automation`,
      );
      if (!claim?.claimed) return;
      if (!claim.org) throw new CapReached(capWords("the organization", org), ORG_SCOPE);
      if (automationId !== null && !claim.automation) {
        throw new CapReached(capWords("the automation", automation), automationId);
      }
    });
    return true;
  } catch (error) {
    if (!(error instanceof CapReached)) throw error;
    await holdCapped(db, piece, { reason: error.reason, scope: error.scope, month }, now);
    return false;
  }
}

/**
 * The cap a card of the organization (and of `automationId`, when it has one) would find reached
 * if it claimed now, in the words a capped piece carries; null when it would fit. Reads only: the
 * builder's dry run asks it, the claim itself is claimCapBudget's.
 */
export async function capReachedNow(
  db: Queryable,
  scope: { orgId: string; automationId: string | null },
  caps: Omit<Caps, "claimed">,
  now: Date,
): Promise<string | null> {
  const month = monthOf(now);
  const org = { cards: caps.org_cards, cents: caps.org_cents };
  const automation = { cards: caps.automation_cards, cents: caps.automation_cents };
  const counter = (alias: string, id: string) =>
    sql`LEFT JOIN mail_cap_usage ${sql.raw(alias)} ON ${sql.raw(alias)}.org_id = ${scope.orgId}::uuid
          AND ${sql.raw(alias)}.automation_id = ${id}::uuid AND ${sql.raw(alias)}.month = ${month}::date`;
  const row = await queryOne<{ org: boolean; automation: boolean }>(
    db,
    sql`SELECT ${fitsUnderCap(org, caps.cost, sql`COALESCE(o.cards, 0)`, sql`COALESCE(o.cents, 0)`)} AS org,
               ${fitsUnderCap(automation, caps.cost, sql`COALESCE(a.cards, 0)`, sql`COALESCE(a.cents, 0)`)} AS automation
        FROM (SELECT 1) one
        ${counter("o", ORG_SCOPE)}
        ${counter("a", scope.automationId ?? ORG_SCOPE)}`,
  );
  if (row && !row.org) return capWords("the organization", org);
  if (scope.automationId !== null && row && !row.automation) return capWords("the automation", automation);
  return null;
}

/**
 * One more card of the organization (and of `automationId`) would find a cap reached now: what
 * keeps its capped cards waiting. False right after a cap was raised above this month's use, while
 * the released cards' jobs have not run yet.
 */
export async function capStillReached(
  db: Queryable,
  scope: { orgId: string; automationId: string | null },
  now: Date,
): Promise<boolean> {
  const caps = await queryOne<Omit<Caps, "claimed">>(db, capsOfScopeSql(scope, sql`1 AS one`));
  if (!caps) return false;
  return (await capReachedNow(db, scope, { ...caps, cost: Number(caps.cost) }, now)) !== null;
}

async function holdCapped(
  db: Queryable,
  piece: SafetyPiece,
  cap: { reason: string; scope: string; month: string },
  now: Date,
) {
  const { reason } = cap;
  await db.transaction(async (tx) => {
    if (!(await moveQueuedPiece(tx, piece, { status: "capped" }, reason, now))) return;
    // The new month releases it: a delayed job, no poller.
    await enqueueJob(
      tx,
      processPieceJob,
      { org_id: piece.orgId, piece_id: piece.id },
      { orgId: piece.orgId, now, runAt: nextMonthStart(now) },
    );
    await claimCapNotice(tx, { orgId: piece.orgId, ...cap, now });
  });
}

/** A capped piece tries again (its job at the new month, or after a cap was raised). */
export const releaseCappedPiece = (db: Queryable, piece: SafetyPiece, now: Date): Promise<boolean> =>
  requeueWaitingPiece(db, piece, "capped", now);

/**
 * After a cap was raised: a job for each capped piece of the org (or of one automation), oldest
 * piece first (one millisecond apart, so workers take them in that order).
 */
export async function retryCappedPieces(
  db: Queryable,
  scope: { orgId: string; automationId?: string },
  now: Date,
) {
  const pieces = await queryRows<{ id: string }>(
    db,
    sql`SELECT p.id FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
        WHERE p.org_id = ${scope.orgId}::uuid AND p.status = 'capped'
          ${scope.automationId ? sql`AND c.automation_id = ${scope.automationId}::uuid` : sql``}
          -- One retry at a time: a piece with a job due before its new month's job has one.
          AND NOT EXISTS (
            SELECT 1 FROM jobs j
            WHERE j.org_id = p.org_id AND j.kind = ${processPieceJob.name} AND j.status = 'pending'
              AND j.payload->>'piece_id' = p.id::text AND j.run_at < ${at(nextMonthStart(now))})
        ORDER BY p.created_at, p.id`,
  );
  for (const [index, piece] of pieces.entries()) {
    await enqueueJob(
      db,
      processPieceJob,
      { org_id: scope.orgId, piece_id: piece.id },
      { orgId: scope.orgId, now, runAt: new Date(now.getTime() + index) },
    );
  }
}
