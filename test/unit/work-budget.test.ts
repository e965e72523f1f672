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
  it("lets an account spend two minutes' milliseconds at once, refuses it at zero, and says when it holds a minute's again", () => {
    const { clock, work } = budgetOf(600);
    assert.equal(work("org-a", 1000), 1000);
    assert.equal(work("org-a", 250), 250, "work starts while anything is left, and is charged all it took");
    // 50 ms below zero, 650 short of a minute's 600; refilled 10 ms a second: 65 s.
    assert.equal(
      retryAfterOf(() => work("org-a", 1)),
      65,
    );
    assert.equal(work("org-b", 100), 100, "each account has its own balance");
    clock.advance(6_000);
    assert.equal(work("org-a", 600), 600, "work starts again as soon as the balance is above zero");
    // 10 ms left, then 600 spent: 590 below zero, 1190 short of a minute's.
    assert.equal(
      retryAfterOf(() => work("org-a", 1)),
      119,
    );
    clock.advance(119_000);
    assert.equal(work("org-a", 600), 600, "after waiting as told, a minute's budget");
    assert.equal(
      retryAfterOf(() => work("org-a", 1)),
      60,
    );
  });

  it("refills no further than two minutes' budget, and charges work that throws", () => {
    const { budget, clock, work, takes } = budgetOf(600);
    clock.advance(3_600_000);
    assert.equal(work("org-a", 1200), 1200);
    assert.equal(
      retryAfterOf(() => work("org-a", 1)),
      60,
      "an idle hour saved nothing beyond two minutes' 1200 ms",
    );
    clock.advance(120_000);
    assert.throws(
      () =>
        budget.spend("org-a", () => {
          takes(1900);
          throw new Error("unusable address");
        }),
      /unusable address/,
    );
    assert.equal(
      retryAfterOf(() => budget.assertLeft("org-a")),
      130,
    );
  });
});
