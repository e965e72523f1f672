import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cardWonHeadline, dealsOnThisCard, dealWords } from "../../web/src/pages/Leads/card-won.ts";
import { formatCalendarDay } from "../../web/src/ui/format.ts";

const crmDeal = {
  deal_name: "Roof replacement",
  amount: 18500,
  closed_on: "2026-12-06",
  on_this_card: true,
  reported_by: "crm" as const,
};
const markedDeal = {
  deal_name: "Ned Flanders",
  amount: 900,
  closed_on: "2026-11-20",
  on_this_card: true,
  reported_by: "another_lead" as const,
};
const nextDoor = { ...crmDeal, deal_name: "Same home, other card", on_this_card: false };

describe("a lead's page when a won deal is credited to its card", () => {
  test("only the deals on the lead's own card count it won", () => {
    assert.deepEqual(dealsOnThisCard({ home_won_deals: [nextDoor, crmDeal] }), [crmDeal]);
    assert.deepEqual(dealsOnThisCard({ home_won_deals: [nextDoor] }), []);
  });

  test("the CRM's deal: the CRM reported the job won, on its day", () => {
    const day = formatCalendarDay("2026-12-06");
    assert.equal(cardWonHeadline([crmDeal]), `Your CRM reported this job won on ${day}.`);
    assert.equal(cardWonHeadline([markedDeal, crmDeal]), `Your CRM reported this job won on ${day}.`);
    assert.equal(cardWonHeadline([{ ...crmDeal, closed_on: null }]), "Your CRM reported this job won.");
  });

  test("another lead's deal is not said to be the CRM's", () => {
    assert.equal(
      cardWonHeadline([markedDeal]),
      `This job is already recorded won on ${formatCalendarDay("2026-11-20")}, from another lead of the same card.`,
    );
  });

  test("a deal in words: its name, amount and day", () => {
    assert.equal(dealWords(crmDeal), `Roof replacement, $18,500, won on ${formatCalendarDay("2026-12-06")}`);
    assert.equal(dealWords({ ...crmDeal, deal_name: null, amount: null, closed_on: null }), "A won deal, —");
  });
});
