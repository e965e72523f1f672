import type { Lead } from "../../api/leads.ts";
import { formatCalendarDay, money } from "../../ui/format.ts";

/** A won deal Revenue has at the lead's home or on its card (app API: a lead's `home_won_deals`). */
export type HomeWonDeal = Lead["home_won_deals"][number];

/** "Gutter replacement, $4,250, won on Dec 6, 2026". */
export const dealWords = (deal: HomeWonDeal): string =>
  [
    deal.deal_name ?? "A won deal",
    money(deal.amount),
    ...(deal.closed_on ? [`won on ${formatCalendarDay(deal.closed_on)}`] : []),
  ].join(", ");

/** The won deals credited to the card the lead answered: the job is counted already. */
export const dealsOnThisCard = (lead: Pick<Lead, "home_won_deals">): HomeWonDeal[] =>
  lead.home_won_deals.filter((deal) => deal.on_this_card);

/**
 * What a lead's page says of the won deals credited to its card (newest first): the CRM's ("Your
 * CRM reported this job won on Dec 6, 2026."), or another lead's of the same card marked won here.
 */
export function cardWonHeadline(deals: readonly HomeWonDeal[]): string {
  const reported = deals.find((deal) => deal.reported_by === "crm");
  const shown = reported ?? deals[0];
  const day = shown?.closed_on ? ` on ${formatCalendarDay(shown.closed_on)}` : "";
  return reported
    ? `Your CRM reported this job won${day}.`
    : `This job is already recorded won${day}, from another lead of the same card.`;
}
