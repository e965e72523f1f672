import { formatDateTime, formatDay } from "../../ui/format.ts";

/** Before its first card goes to print (waiting for approval, a hold, a cap), a follow-up's day is an estimate. */
const FIRST_CARD_WAITING: readonly string[] = ["queued", "held", "awaiting_approval", "capped"];

/**
 * A scheduled follow-up's due words on its page: ", due Dec 16, 2026, 9:00 AM", or, while its first
 * card still waits, that the day is an estimate and why: its days count from the first card's going
 * to print, and a firm day beside a first card awaiting approval read as a promise.
 */
export function followUpDue(
  scheduledFor: string,
  firstCard: { status: string; label: string } | undefined,
): string {
  if (!firstCard || !FIRST_CARD_WAITING.includes(firstCard.status))
    return `, due ${formatDateTime(scheduledFor)}`;
  return `, due about ${formatDay(scheduledFor)}: its days count from when the first card goes to print, and the first card is ${firstCard.label.toLowerCase()}`;
}
