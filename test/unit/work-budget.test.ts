import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { AppError } from "../../src/errors.ts";
import { createWorkBudget } from "../../src/limits/work-budget.ts";

/** A budget whose work takes exactly what the test says (a fake stopwatch), on a fixed clock. */
function budgetOf(msPerMinute: number) {
  const clock = fixedClock("2026-06-30T12:00:00Z");
  let stopwatch = 0;
  const budget = createWorkBudget({
    msPerMinute,
    clock,
    work: "Reading addresses",
    elapsedMs: () => stopwatch,
  });
  const takes = (ms: number) => {
    stopwatch += ms;
  };
  const work = (account: string, ms: number) =>
    budget.spend(account, () => {
      takes(ms);
      return ms;
    });
  return { budget, clock, work, takes };
}

const retryAfterOf = (attempt: () => unknown) => {
  try {
    attempt();
  } catch (error) {
    assert.ok(error instanceof AppError && error.status === 429, String(error));
    return Number(error.headers?.["retry-after"]);
  }
  assert.fail("not refused");
};

describe("work budget", () => {
  it("lets an account spend its minute's milliseconds, refuses it at zero, and says when its budget is whole again", () => {
    const { clock, work } = budgetOf(600);
    assert.equal(work("org-a", 500), 500);
    assert.equal(work("org-a", 250), 250, "work starts while anything is left, and is charged all it took");
    // 150 ms short of zero, 750 of a whole budget; 600 ms a minute refill 10 ms a second: 75 s.
    assert.equal(
      retryAfterOf(() => work("org-a", 1)),
      75,
    );
    assert.equal(work("org-b", 100), 100, "each account has its own balance");
    clock.advance(16_000);
    assert.equal(work("org-a", 600), 600, "work starts again as soon as the balance is above zero");
    // 10 ms left, then 600 spent: 590 below zero, 1190 short of whole.
    assert.equal(
      retryAfterOf(() => work("org-a", 1)),
      119,
    );
    clock.advance(119_000);
    assert.equal(work("org-a", 600), 600, "after waiting as told, a whole minute's budget");
  });

  it("refills no further than one minute's budget, and charges work that throws", () => {
    const { budget, clock, work, takes } = budgetOf(600);
    clock.advance(3_600_000);
    assert.equal(work("org-a", 600), 600);
    assert.equal(
      retryAfterOf(() => work("org-a", 1)),
      60,
      "an idle hour saved nothing beyond the minute's 600 ms",
    );
    clock.advance(60_000);
    assert.throws(
      () =>
        budget.spend("org-a", () => {
          takes(700);
          throw new Error("unusable address");
        }),
      /unusable address/,
    );
    assert.equal(
      retryAfterOf(() => budget.assertLeft("org-a")),
      70,
    );
  });
});
