import type { PieceStatus } from "../db/schema.ts";

/**
 * Statuses of a piece that went to the printer or the post: only these have a page. A queued piece
 * has no card yet; a suppressed or failed one was never mailed (its token may still be known to
 * the contractor's systems, and the page would show a stranger's name and street).
 */
const PIECE_STATUSES_WITH_A_PAGE: ReadonlySet<PieceStatus> = new Set([
  "submitted",
  "mailed",
  "in_transit",
  "delivered",
  "returned",
]);

const DAY_MS = 86_400_000;

export interface PageLifetimeFacts {
  status: PieceStatus;
  mailedAt: Date | null;
  statusUpdatedAt: Date | null;
  createdAt: Date;
}

/**
 * When a piece's page closes, or null when it has no page (not printed yet, or never mailed). The
 * lifetime starts at `mailed_at`; a piece the printer accepted but has not yet reported mailed
 * (`submitted`) counts from its submission (its last status change), so a vendor that never
 * confirms cannot keep a page open forever.
 */
export function landingPageClosesAt(piece: PageLifetimeFacts, ttlDays: number): Date | null {
  if (!PIECE_STATUSES_WITH_A_PAGE.has(piece.status)) return null;
  const start = piece.mailedAt ?? piece.statusUpdatedAt ?? piece.createdAt;
  return new Date(start.getTime() + ttlDays * DAY_MS);
}

/** Whether a piece's landing page is open now: mailed (or with the printer), and not expired. */
export function hasOpenLandingPage(piece: PageLifetimeFacts, now: Date, ttlDays: number): boolean {
  const closesAt = landingPageClosesAt(piece, ttlDays);
  return closesAt !== null && now.getTime() < closesAt.getTime();
}
