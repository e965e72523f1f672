import { createHmac, timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock.ts";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";
import { AppError, invalidJson, unreadableBody } from "../errors.ts";
import { cardReturned, dateFollowUps, stopFollowUps } from "./follow-ups.ts";

/** A signed request older or newer than this is a replay (or a badly wrong clock). */
export const LOB_SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Lob's webhook signature: `Lob-Signature` is the hex HMAC-SHA256, keyed with the webhook's
 * secret, of `<Lob-Signature-Timestamp>.<raw body>`. The timestamp is digits (Unix time; a
 * 13-digit value is read as milliseconds); drift over 300 s is refused.
 */
export function verifyLobSignature(input: {
  secret: string;
  signature: string | undefined;
  timestamp: string | undefined;
  rawBody: Buffer;
  now: Date;
}): boolean {
  const { signature, timestamp } = input;
  if (!signature || !timestamp || !/^\d{1,16}$/.test(timestamp) || !/^[0-9a-f]{64}$/i.test(signature))
    return false;
  const value = Number(timestamp);
  const sentAtMs = timestamp.length >= 13 ? value : value * 1000;
  if (Math.abs(input.now.getTime() - sentAtMs) > LOB_SIGNATURE_TOLERANCE_SECONDS * 1000) return false;
  const expected = createHmac("sha256", input.secret).update(`${timestamp}.`).update(input.rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}

export function signLobPayload(secret: string, timestamp: string, rawBody: Buffer): string {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
}

/** Lob's postcard tracking events and the piece status each one means. */
const TRACKING_STATUS: Record<string, PieceStatus> = {
  "postcard.mailed": "mailed",
  "postcard.in_transit": "in_transit",
  "postcard.in_local_area": "in_transit",
  "postcard.processed_for_delivery": "in_transit",
  "postcard.re-routed": "in_transit",
  "postcard.delivered": "delivered",
  "postcard.returned_to_sender": "returned",
};

/** Statuses a tracking event may move a piece from: events only move it forward. */
const EARLIER: Record<string, PieceStatus[]> = {
  mailed: ["submitted"],
  in_transit: ["submitted", "mailed"],
  delivered: ["submitted", "mailed", "in_transit"],
  returned: ["submitted", "mailed", "in_transit"],
};

export interface LobEventResult {
  received: true;
  event_type: string;
  piece_id: string | null;
  status: PieceStatus | null;
}

interface LobEvent {
  event_type?: { id?: unknown };
  body?: { id?: unknown };
  date_created?: unknown;
}

function parseEvent(rawBody: Buffer): { type: string; postcardId: string; occurredAt: Date | null } {
  let event: LobEvent;
  try {
    event = JSON.parse(rawBody.toString("utf8")) as LobEvent;
  } catch {
    throw invalidJson("the body is not valid JSON");
  }
  const type = event?.event_type?.id;
  const postcardId = event?.body?.id;
  if (typeof type !== "string" || typeof postcardId !== "string") {
    throw unreadableBody("event_type.id and body.id are required");
  }
  const occurred = typeof event.date_created === "string" ? new Date(event.date_created) : null;
  return { type, postcardId, occurredAt: occurred && !Number.isNaN(occurred.getTime()) ? occurred : null };
}

interface MovedPiece {
  id: string;
  org_id: string;
  mailed_at: Date | string;
  sequence_step: number | null;
}

/**
 * The printer's news for the piece's sequence: a returned card stops its follow-ups (where its
 * automation says so); the real mail date moves the days of the first card's follow-ups.
 */
async function followTheSequence(db: Queryable, piece: MovedPiece, status: string, now: Date) {
  const card = { orgId: piece.org_id, pieceId: piece.id };
  if (status === "returned") await stopFollowUps(db, card, [cardReturned(piece.sequence_step, now)], now);
  else if (piece.sequence_step === null) {
    await dateFollowUps(db, { orgId: piece.org_id, id: piece.id }, new Date(piece.mailed_at), now, false);
  }
}

/**
 * Applies one verified tracking event. Replays and out-of-order events are harmless: a piece
 * only moves forward, and `mailed_at` is set once (by the first event that shows it mailed).
 */
export async function applyLobEvent(
  deps: { db: Queryable; clock: Clock },
  rawBody: Buffer,
  headers: { signature: string | undefined; timestamp: string | undefined },
  secret: string | undefined,
): Promise<LobEventResult> {
  if (!secret) throw new AppError(503, "webhook_not_configured", "LOB_WEBHOOK_SECRET is not set");
  const now = deps.clock.now();
  // A signature, not a bearer scheme: no WWW-Authenticate.
  if (!verifyLobSignature({ secret, ...headers, rawBody, now })) throw new AppError(401, "unauthorized");
  const event = parseEvent(rawBody);
  const status = TRACKING_STATUS[event.type];
  if (!status) return { received: true, event_type: event.type, piece_id: null, status: null };
  const mailedAt = (event.occurredAt ?? now).toISOString();
  const from = sql.join(
    EARLIER[status]!.map((earlier) => sql`${earlier}`),
    sql`, `,
  );
  const moved = await queryRows<MovedPiece>(
    deps.db,
    sql`UPDATE mail_pieces SET status = ${status}, provider_status = ${event.type},
          status_updated_at = ${now.toISOString()}::timestamptz,
          mailed_at = COALESCE(mailed_at, ${mailedAt}::timestamptz)
        WHERE provider = 'lob' AND provider_id = ${event.postcardId} AND status IN (${from})
        RETURNING id, org_id, mailed_at, sequence_step`,
  );
  for (const piece of moved) await followTheSequence(deps.db, piece, status, now);
  const [piece] = moved.length
    ? moved
    : await queryRows<{ id: string }>(
        deps.db,
        sql`SELECT id FROM mail_pieces WHERE provider = 'lob' AND provider_id = ${event.postcardId}`,
      );
  return {
    received: true,
    event_type: event.type,
    piece_id: piece?.id ?? null,
    status: moved.length ? status : null,
  };
}
