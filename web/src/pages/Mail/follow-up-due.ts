import { formatDateTime, formatDay } from "../../ui/format.ts";

/** Before its first card goes to print (waiting for approval, a hold, a cap), a follow-up's day is an estimate. */
const FIRST_CARD_WAITING: readonly string[] = ["queued", "held", "awaiting_approval", "capped"];

/** True while a sequence's first card, in this status, has not gone to print: its follow-ups' days are estimates. */
export const firstCardWaits = (status: string | undefined): boolean =>
  status !== undefined && FIRST_CARD_WAITING.includes(status);

/**
 * A scheduled follow-up's due words on its page: ", due Dec 16, 2026, 9:00 AM", or, while its first
 * card still waits, that the day is an estimate and why: its days count from the first card's going
 * to print, and a firm day beside a first card awaiting approval read as a promise.
 */
export function followUpDue(
  scheduledFor: string,
  firstCard: { status: string; label: string } | undefined,
): string {
  if (!firstCard || !firstCardWaits(firstCard.status)) return `, due ${formatDateTime(scheduledFor)}`;
  return `, due about ${formatDay(scheduledFor)}: its days count from when the first card goes to print, and the first card is ${firstCard.label.toLowerCase()}`;
}

/**
 * When a card was mailed, as Mail's list and a card's page say it; for a follow-up still scheduled,
 * the day it is due ("Not yet, due Dec 19, 2026": a day, as its time follows the first card's
 * mailing), said as an estimate while its first card has not gone to print ("Not yet, due about Dec
 * 19, 2026"), as the follow-up's own page says. `firstCardStatus`: the status of the sequence's first
 * card, undefined when not known (the day is then said as the server dates it).
 */
export function mailedOrDueWords(
  piece: { status: string; mailed_at: string | null; scheduled_for: string | null },
  firstCardStatus: string | undefined,
): string {
  if (piece.status !== "scheduled" || !piece.scheduled_for) return formatDateTime(piece.mailed_at);
  const about = firstCardWaits(firstCardStatus) ? "about " : "";
  return `Not yet, due ${about}${formatDay(piece.scheduled_for)}`;
}

/** A card's day on a sequence's list of cards: "Due Dec 19, 2026", or "Due about …" while the first card waits. */
export function sequenceCardDue(scheduledFor: string, firstCardStatus: string | undefined): string {
  return `Due ${firstCardWaits(firstCardStatus) ? "about " : ""}${formatDay(scheduledFor)}`;
}
