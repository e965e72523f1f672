import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cardsLeft } from "../../src/mail-safety/org-controls.ts";
import { cardsWaitingForCap } from "../../web/src/modules/mail-safety/cap-countdown.ts";

const use = (over: Partial<Parameters<typeof cardsLeft>[0]>) => ({
  monthly_card_cap: null,
  monthly_spend_cap_cents: null,
  cards: 0,
  cents: 0,
  ...over,
});

describe("how many more cards the monthly caps let through", () => {
  test("by cards, by money at the cost per card (what does not fit a whole card is no card), or none", () => {
    assert.equal(cardsLeft(use({ monthly_card_cap: 50, cards: 48 }), 85), 2);
    assert.equal(cardsLeft(use({ monthly_spend_cap_cents: 10_000, cents: 9_945 }), 85), 0, "$99.45 of $100");
    assert.equal(cardsLeft(use({ monthly_spend_cap_cents: 10_000, cents: 9_000 }), 85), 11);
    assert.equal(
      cardsLeft(use({ monthly_card_cap: 5, monthly_spend_cap_cents: 10_000, cents: 9_000 }), 85),
      5,
    );
    assert.equal(cardsLeft(use({ monthly_card_cap: 1, cards: 3 }), 85), 0, "never below none");
    assert.equal(cardsLeft(use({}), 85), null, "no cap");
    assert.equal(
      cardsLeft(use({ monthly_spend_cap_cents: 100, cents: 0 }), 0),
      null,
      "no cost: money binds nothing",
    );
  });
});

describe("cards approved together that would wait for a cap", () => {
  const card = (automation_id: string | null) => ({ automation_id });
  const safety = (
    orgLeft: number | null,
    automations: { id: string; left: number | null; paused?: boolean }[],
  ) => ({
    organization: { ...use({}), cards_left: orgLeft },
    automations: automations.map((automation) => ({
      ...use({}),
      automation_id: automation.id,
      name: automation.id,
      paused_by_cap: automation.paused ?? false,
      cards_left: automation.left,
    })),
  });

  test("the organization's room is counted down over the cards, in order", () => {
    assert.equal(
      cardsWaitingForCap(safety(2, []), [card("a"), card("a"), card("b"), card(null), card("a")]),
      3,
    );
    assert.equal(cardsWaitingForCap(safety(null, []), [card("a"), card(null)]), 0, "no cap");
    assert.equal(cardsWaitingForCap(undefined, [card("a")]), 0, "not known yet");
  });

  test("an automation's own room, or its pause, holds its cards only; a held card takes no place", () => {
    assert.equal(
      cardsWaitingForCap(safety(3, [{ id: "a", left: 1 }]), [card("a"), card("a"), card("b"), card("b")]),
      1,
      "the second of a waits; b takes the org's last two places",
    );
    assert.equal(
      cardsWaitingForCap(safety(null, [{ id: "a", left: 5, paused: true }]), [card("a"), card("b")]),
      1,
    );
  });
});
