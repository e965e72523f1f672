import type { ApprovalCard, MailSafety } from "../../api/mail-safety.ts";

/** A counter with no room left this month: its caps let no more card through. */
export const usedUp = (use: { cards_left: number | null }) => use.cards_left === 0;

/**
 * How many of `cards`, approved together, would wait for a monthly cap: each takes a place under the
 * organization's caps and its automation's while one is left (the counters' `cards_left`, by the
 * claim's own rule), in the order they are approved. The claim itself is the server's, at print.
 */
export function cardsWaitingForCap(
  safety: Pick<MailSafety, "organization" | "automations"> | undefined,
  cards: readonly Pick<ApprovalCard, "automation_id">[],
): number {
  if (!safety) return 0;
  let orgLeft = safety.organization.cards_left ?? Number.POSITIVE_INFINITY;
  const automationLeft = new Map(
    safety.automations.map((automation) => [
      automation.automation_id,
      automation.paused_by_cap ? 0 : (automation.cards_left ?? Number.POSITIVE_INFINITY),
    ]),
  );
  let waiting = 0;
  for (const card of cards) {
    const own = card.automation_id ? automationLeft.get(card.automation_id) : undefined;
    if (orgLeft <= 0 || own === 0) {
      waiting += 1;
      continue;
    }
    orgLeft -= 1;
    if (own !== undefined && card.automation_id) automationLeft.set(card.automation_id, own - 1);
  }
  return waiting;
}
