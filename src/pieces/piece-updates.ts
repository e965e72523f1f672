import type { SQL } from "drizzle-orm";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { campaigns, mailPieces } from "../db/schema.ts";
import { normalizeAddress } from "../domain/address.ts";
import type { StandardAddress } from "../geo/address-verifier.ts";
import type { GeocodeResult } from "../geo/geocoder.ts";
import type { QueuedPiece } from "../jobs/kinds.ts";
import type { PrintReceipt } from "../print/print-provider.ts";
import { cardVersionOf, currentTemplateOf } from "./card-template-sql.ts";
import { insertCardImagesSweep } from "./draw-ahead.ts";
import { stopFollowUpsOfUnmailed } from "./follow-ups.ts";
import { type KeptImagesColumn, keptImagesSql } from "./piece-images.ts";
import { loadPieceInserted, type PieceRecord } from "./piece-record.ts";
import { sqlStatusList } from "./status-sql.ts";

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** True when the conditional UPDATE (… RETURNING id) changed a row. */
async function changedARow(db: Queryable, update: SQL): Promise<boolean> {
  return (await queryRows<{ id: string }>(db, update)).length > 0;
}

/**
 * The piece's address key, writing it first when the piece was queued without one (events leave
 * the parsing to the pipeline). Runs before suppression and before mailing, the first uses.
 */
export async function ensureAddressKey(
  db: Queryable,
  piece: { orgId: string; id: string; address: string; normalizedAddress: string | null },
): Promise<string> {
  if (piece.normalizedAddress !== null) return piece.normalizedAddress;
  const key = normalizeAddress(piece.address);
  await db.execute(
    sql`UPDATE mail_pieces SET normalized_address = ${key}
        WHERE org_id = ${piece.orgId} AND id = ${piece.id} AND normalized_address IS NULL`,
  );
  return key;
}

/**
 * Inserts the piece an event or the legacy trigger queued (carried by its job), with its address
 * key, and loads it. A retried or duplicated job finds it written and changes nothing. No conflict
 * target: two jobs inserting the same piece at once may collide on the token's unique index before
 * the primary key's, and only a conflict on an arbiter index is skipped rather than raised.
 */
export function insertQueuedPiece(
  db: Queryable,
  ids: { orgId: string; pieceId: string },
  piece: QueuedPiece,
): Promise<PieceRecord | undefined> {
  return loadPieceInserted(
    db,
    ids.orgId,
    ids.pieceId,
    sql`INSERT INTO mail_pieces (org_id, id, campaign_id, status, recipient_name, address, street, city, state, zip,
                                 normalized_address, token, properties, created_at)
        VALUES (${ids.orgId}::uuid, ${ids.pieceId}::uuid, ${piece.campaign_id}::uuid, 'queued', ${piece.recipient_name},
                ${piece.address}, ${piece.street}, ${piece.city}, ${piece.state}, ${piece.zip},
                ${normalizeAddress(piece.address)}, ${piece.token}, ${JSON.stringify(piece.properties)}::jsonb,
                ${piece.queued_at}::timestamptz)
        ON CONFLICT DO NOTHING`,
  );
}

/** The piece passed its home's rules (process-piece.ts `passHomeRules`): later cards to the home wait for it. */
export async function markHomeRulesPassed(db: Queryable, piece: { orgId: string; id: string }, now: Date) {
  await db.execute(
    sql`UPDATE mail_pieces SET home_rules_passed_at = ${at(now)}
        WHERE org_id = ${piece.orgId}::uuid AND id = ${piece.id}::uuid`,
  );
}

/**
 * How a queued piece leaves the queue: closed (suppressed, skipped by the frequency cap against
 * an earlier piece, failed, held out of its automation's mail to measure it), or set to wait (held until the end of its hold window, which it
 * enters once; awaiting approval; capped).
 */
export type QueueExit =
  | { status: "suppressed" | "skipped" | "failed" | "undeliverable"; earlierPieceId?: string | null }
  | { status: "held_out" }
  | { status: "awaiting_approval" | "capped" }
  | { status: "held"; holdUntil: Date };

/** Exits after which the piece is never mailed: its follow-ups (if it had any yet) stop with it. */
const CLOSING_EXITS = new Set<QueueExit["status"]>(["suppressed", "skipped", "failed", "undeliverable"]);

/**
 * A queued piece leaves the queue, with the reason in words; false when it was not queued (any
 * more). Whether it waits or is stopped for good, Mail's list shows its card from now on: the same
 * statement queues its organization's draw-ahead sweep (no round trip more for the pipeline).
 */
export async function moveQueuedPiece(
  db: Queryable,
  piece: { orgId: string; id: string },
  exit: QueueExit,
  reason: string,
  now: Date,
): Promise<boolean> {
  const holdUntil = exit.status === "held" ? exit.holdUntil : undefined;
  const earlierPieceId = "earlierPieceId" in exit ? exit.earlierPieceId : undefined;
  const update = sql`UPDATE mail_pieces SET status = ${exit.status}, status_reason = ${reason.slice(0, 1000)},
          status_updated_at = ${at(now)}
          ${holdUntil ? sql`, hold_until = ${at(holdUntil)}` : sql``}
          ${earlierPieceId === undefined ? sql`` : sql`, earlier_piece_id = ${earlierPieceId}::uuid`}
        WHERE org_id = ${piece.orgId}::uuid AND id = ${piece.id}::uuid AND status = 'queued'
          ${holdUntil ? sql`AND hold_until IS NULL` : sql``}
        RETURNING id`;
  const moved = await changedARow(
    db,
    sql`WITH moved AS (${update}),
          swept AS (${insertCardImagesSweep(piece.orgId, now, sql`EXISTS (SELECT 1 FROM moved)`)})
        SELECT id FROM moved`,
  );
  if (moved && CLOSING_EXITS.has(exit.status)) {
    await stopFollowUpsOfUnmailed(db, piece.orgId, [piece.id], exit.status, now);
  }
  return moved;
}

/**
 * The address a queued piece's card will print, once verified (mailingAddressOf reads it). A piece
 * coming back from a hold, an approval or a cap is not verified again.
 */
export async function recordVerifiedAddress(
  db: Queryable,
  piece: { orgId: string; id: string },
  address: StandardAddress,
): Promise<void> {
  await db.execute(
    sql`UPDATE mail_pieces SET verified_address = ${JSON.stringify(address)}::jsonb
        WHERE org_id = ${piece.orgId}::uuid AND id = ${piece.id}::uuid AND status = 'queued'`,
  );
}

/**
 * A held piece whose window has passed, or a capped piece, goes back to `queued` (once: a cancel
 * in the same instant wins or loses on the row). False when it was cancelled or is not due yet.
 */
export async function requeueWaitingPiece(
  db: Queryable,
  piece: { orgId: string; id: string },
  from: "held" | "capped",
  now: Date,
): Promise<boolean> {
  return changedARow(
    db,
    sql`UPDATE mail_pieces SET status = 'queued', status_reason = NULL, status_updated_at = ${at(now)}
        WHERE org_id = ${piece.orgId}::uuid AND id = ${piece.id}::uuid AND status = ${from}
          ${from === "held" ? sql`AND hold_until <= ${at(now)}` : sql``}
        RETURNING id`,
  );
}

/**
 * Marks the piece's card as counted in this month's caps, answering its id; none when it already
 * was (another job of the piece got there first: this one waits on the row, then counts nothing).
 * For a CTE of the caps' claim (mail-safety/spend-caps.ts), which counts only when it answers.
 */
export function claimCapMonthSql(piece: { orgId: string; id: string }, month: string): SQL {
  return sql`UPDATE mail_pieces SET cap_claimed_month = ${month}::date
        WHERE org_id = ${piece.orgId}::uuid AND id = ${piece.id}::uuid AND cap_claimed_month IS NULL
        RETURNING id`;
}

/** Statuses in which a piece waits before print (mail safety's rules) and may still be cancelled. */
export const WAITING_STATUSES = ["held", "awaiting_approval", "capped"] as const;
/** What a person may cancel: a waiting card, or a follow-up card waiting for its day. */
const CANCELLABLE = sqlStatusList([...WAITING_STATUSES, "scheduled"]);
/** WAITING_STATUSES as an SQL list. */
export const WAITING = sqlStatusList(WAITING_STATUSES);

const cancelledBy = (actor: string, now: Date) =>
  sql`status = 'cancelled', cancelled_at = ${at(now)}, cancelled_by = ${actor},
      status_reason = ${`cancelled by ${actor}`}, status_updated_at = ${at(now)}`;

/**
 * Cancels one waiting piece (or scheduled follow-up); false when it is not waiting (on its way to
 * print, or stopped). A cancelled first card takes its follow-ups with it.
 */
export async function cancelWaitingPiece(db: Queryable, pieceId: string, actor: string, now: Date) {
  const [cancelled] = await queryRows<{ org_id: string }>(
    db,
    sql`UPDATE mail_pieces SET ${cancelledBy(actor, now)}
        WHERE id = ${pieceId}::uuid AND status IN ${CANCELLABLE}
        RETURNING org_id`,
  );
  if (cancelled) await stopFollowUpsOfUnmailed(db, cancelled.org_id, [pieceId], "cancelled", now);
  return cancelled !== undefined;
}

/** Cancels every waiting piece of the org's automation; answers their ids. */
export async function cancelAutomationWaitingPieces(
  db: Queryable,
  automation: { orgId: string; automationId: string },
  actor: string,
  now: Date,
): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE mail_pieces p SET ${cancelledBy(actor, now)}
        FROM campaigns c
        WHERE p.org_id = ${automation.orgId}::uuid AND c.org_id = p.org_id AND c.id = p.campaign_id
          AND c.automation_id = ${automation.automationId}::uuid AND p.status IN ${WAITING}
        RETURNING p.id`,
  );
  const ids = rows.map((row) => row.id);
  await stopFollowUpsOfUnmailed(db, automation.orgId, ids, "cancelled", now);
  return ids;
}

/**
 * Approves pieces awaiting approval (of one automation of an org, of the given ids, or both):
 * each goes back to `queued`. Answers them with their automation.
 */
export async function approveAwaitingPieces(
  tx: Queryable,
  selection: {
    automation?: { orgId: string; automationId: string };
    pieceIds?: string[];
    /** The card version each piece's approver saw, by piece id: a piece whose card changed since stays waiting. */
    seenVersions?: Record<string, string>;
  },
  actor: string,
  now: Date,
) {
  const { automation, pieceIds, seenVersions } = selection;
  const seen = sql`${JSON.stringify(seenVersions ?? {})}::jsonb ->> p.id::text`;
  return queryRows<{ id: string; org_id: string; automation_id: string | null; test_card: boolean }>(
    tx,
    sql`UPDATE mail_pieces p SET status = 'queued', approved_at = ${at(now)}, approved_by = ${actor},
          approved_template = ${currentTemplateOf("p")}, status_reason = NULL, status_updated_at = ${at(now)}
        FROM campaigns c LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
        WHERE c.org_id = p.org_id AND c.id = p.campaign_id AND p.status = 'awaiting_approval'
          ${automation ? sql`AND p.org_id = ${automation.orgId}::uuid AND c.automation_id = ${automation.automationId}::uuid` : sql``}
          ${pieceIds ? sql`AND p.id = ANY(${sql.param(pieceIds)}::uuid[])` : sql``}
          AND (${seen} IS NULL OR ${seen} = ${cardVersionOf("p")})
        RETURNING p.id, p.org_id, c.automation_id, c.origin = 'test_card' AS test_card`,
  );
}

/** A piece taken for submission, with what is kept of its images (piece-images.ts `keptKeyOf` reads it). */
export interface SubmissionClaim {
  kept: KeptImagesColumn["kept"];
}

/**
 * Takes the piece for submission on behalf of one job. Another job for the same piece finds it
 * taken and stops (undefined); a retry of the same job (after a crash or a lost answer) takes it
 * again and resubmits under the same provider idempotency key, so the piece is mailed once. The same
 * statement reads what is kept of its images (the print draws each unless the kept one shows the card).
 */
export async function claimSubmission(
  db: Queryable,
  piece: { orgId: string; id: string },
  jobId: string,
): Promise<SubmissionClaim | undefined> {
  const rows = await queryRows<KeptImagesColumn>(
    db,
    sql`UPDATE mail_pieces SET submission_job_id = ${jobId}
        WHERE org_id = ${piece.orgId} AND id = ${piece.id} AND status = 'queued'
          AND (submission_job_id IS NULL OR submission_job_id = ${jobId})
        RETURNING ${keptImagesSql({ orgId: piece.orgId, pieceId: piece.id })}`,
  );
  return rows[0] && { kept: rows[0].kept };
}

/**
 * Records the printer's receipt; false when the piece was no longer this job's queued piece. The card
 * is printed from now on. With `sweep` (a first card's follow-ups to draw ahead, or a list thumbnail
 * the print does not keep), the same statement queues its organization's draw-ahead sweep.
 */
export async function recordSubmission(
  db: Queryable,
  piece: { orgId: string; id: string },
  receipt: { jobId: string; provider: string; receipt: PrintReceipt; now: Date; sweep: boolean },
): Promise<boolean> {
  const { jobId, provider, now } = receipt;
  const { status, providerId } = receipt.receipt;
  const submitted = sql`EXISTS (SELECT 1 FROM submitted)`;
  const rows = await queryRows<{ recorded: boolean }>(
    db,
    sql`
    WITH submitted AS (
      UPDATE mail_pieces SET status = ${status}, provider = ${provider}, provider_id = ${providerId},
        provider_status = ${status}, status_updated_at = ${at(now)},
        mailed_at = ${status === "mailed" ? at(now) : null}
      WHERE org_id = ${piece.orgId} AND id = ${piece.id} AND status = 'queued' AND submission_job_id = ${jobId}
      RETURNING id)${
        receipt.sweep
          ? sql`,
    swept AS (${insertCardImagesSweep(piece.orgId, now, submitted)})`
          : sql``
      }
    SELECT ${submitted} AS recorded`,
  );
  return rows[0]?.recorded === true;
}

export async function recordGeocode(
  db: Queryable,
  piece: { orgId: string; id: string },
  result: GeocodeResult,
) {
  if (!result.found) {
    await db.execute(sql`UPDATE mail_pieces SET geo_precision = 'not_found'
      WHERE org_id = ${piece.orgId} AND id = ${piece.id} AND latitude IS NULL`);
    return;
  }
  await db.execute(sql`
    UPDATE mail_pieces SET latitude = ${result.lat}::float8, longitude = ${result.lng}::float8,
      geo_precision = ${result.precision}
    WHERE org_id = ${piece.orgId} AND id = ${piece.id}`);
}

type PieceInsert = typeof mailPieces.$inferInsert;

/**
 * Rows per INSERT: a statement binds at most 65 535 parameters on both databases, and a piece
 * binds 14 to 18 (a 5 000-home mailing in one statement was refused with a 500).
 */
const PIECES_PER_INSERT = 1000;

function inChunks<T>(rows: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < rows.length; start += PIECES_PER_INSERT)
    chunks.push(rows.slice(start, start + PIECES_PER_INSERT));
  return chunks;
}

/**
 * A recorded mailing (mail already sent): its campaign and its pieces, inside the caller's
 * transaction (which enqueues their geocoding). Answers the inserted rows.
 */
export async function insertRecordedMailing(
  tx: Queryable,
  campaign: { orgId: string; id: string; name: string },
  pieceRows: PieceInsert[],
) {
  await tx
    .insert(campaigns)
    .values({ orgId: campaign.orgId, id: campaign.id, name: campaign.name, origin: "mailing" });
  const inserted = [];
  for (const chunk of inChunks(pieceRows))
    inserted.push(...(await tx.insert(mailPieces).values(chunk).returning()));
  return inserted;
}

/** A mailing sent now: its campaign with the card and its queued pieces, inside the caller's transaction. */
export async function insertSentMailing(
  tx: Queryable,
  campaign: { orgId: string; id: string; name: string; origin: string; template: unknown; now: Date },
  pieceRows: PieceInsert[],
): Promise<void> {
  await tx.execute(sql`
    INSERT INTO campaigns (org_id, id, name, origin, template, created_at)
    VALUES (${campaign.orgId}::uuid, ${campaign.id}::uuid, ${campaign.name}, ${campaign.origin},
            ${JSON.stringify(campaign.template)}::jsonb, ${campaign.now.toISOString()}::timestamptz)`);
  for (const chunk of inChunks(pieceRows)) await tx.insert(mailPieces).values(chunk);
}

/** A campaign an event (or the legacy trigger) queues for one automation, unique by its dedup key. */
export interface EventCampaign {
  orgId: string;
  id: string;
  name: string;
  automationId: string;
  origin: "event" | "trigger" | "test_card";
  dedupKind: string | null;
  dedupKey: string | null;
}

/** An event campaign as insertEventCampaignsText reads it from JSON (json_to_recordset). */
export const eventCampaignJsonRow = (campaign: EventCampaign) => ({
  org_id: campaign.orgId,
  id: campaign.id,
  name: campaign.name,
  automation_id: campaign.automationId,
  origin: campaign.origin,
  dedup_kind: campaign.dedupKind,
  dedup_key: campaign.dedupKey,
});

/**
 * The text of an INSERT of event campaigns read from a JSON array of eventCampaignJsonRow, for
 * the events path's group-committed statement (trigger/trigger-store.ts); `rows` is the array's
 * place in it (e.g. `$1::json`). A campaign whose dedup key is taken is left out (the unique
 * index `campaigns_dedup`); it answers the ids it wrote.
 */
export function insertEventCampaignsText(rows: string): string {
  return `INSERT INTO campaigns (org_id, id, name, automation_id, origin, dedup_kind, dedup_key)
  SELECT * FROM json_to_recordset(${rows})
    AS c(org_id uuid, id uuid, name text, automation_id uuid, origin text, dedup_kind text, dedup_key text)
  ON CONFLICT (org_id, automation_id, dedup_kind, dedup_key) WHERE dedup_key IS NOT NULL DO NOTHING
  RETURNING id`;
}

/** A neighbour campaign's queued piece, located already (rooftop: the reference address's point). */
export interface NeighbourPieceRow {
  org_id: string;
  id: string;
  campaign_id: string;
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  normalized_address: string;
  latitude: number;
  longitude: number;
  token: string;
  properties: unknown;
  created_at: string;
}

/** Inserts a neighbour campaign's pieces in one statement, inside the fan-out's transaction. */
export async function insertNeighbourPieces(tx: Queryable, pieces: NeighbourPieceRow[]): Promise<void> {
  await tx.execute(sql`
    INSERT INTO mail_pieces (org_id, id, campaign_id, status, address, street, city, state, zip, normalized_address,
                             latitude, longitude, geo_precision, token, properties, created_at)
    SELECT p.org_id, p.id, p.campaign_id, 'queued', p.address, p.street, p.city, p.state, p.zip, p.normalized_address,
           p.latitude, p.longitude, 'rooftop', p.token, p.properties, p.created_at
    FROM json_to_recordset(${JSON.stringify(pieces)}::json)
      AS p(org_id uuid, id uuid, campaign_id uuid, address text, street text, city text, state text, zip text,
           normalized_address text, latitude float8, longitude float8, token text, properties jsonb,
           created_at timestamptz)`);
}
