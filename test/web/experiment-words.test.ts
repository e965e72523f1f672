import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { experimentFigures } from "../../src/attribution/experiment.ts";
import { experimentResult, groupsInWords } from "../../web/src/pages/Revenue/experiment-words.ts";

const figures = (mailed: [number, number], holdout: [number, number]) =>
  experimentFigures({
    holdoutPercent: 50,
    mailedConversions: mailed[0],
    mailedHomes: mailed[1],
    holdoutConversions: holdout[0],
    holdoutHomes: holdout[1],
    mailedRevenue: mailed[0] * 1000,
  });

describe("the Revenue screen's holdout result in words", () => {
  test("states the ratio and its 95 % range once both groups have 10 deals and the range excludes no effect", () => {
    assert.equal(
      experimentResult(figures([24, 40], [10, 40])),
      "Homes that got the card bought 2.4× as often (95 %: 1.3× to 4.3×)",
    );
  });

  test("is too early to tell with fewer than 10 deals in either group, however large the lift", () => {
    assert.equal(experimentResult(figures([9, 20], [1, 200])), undefined);
    assert.equal(experimentResult(figures([60, 100], [9, 100])), undefined);
  });

  test("is too early to tell while the range includes no effect", () => {
    const close = figures([12, 100], [10, 100]);
    assert.ok(close.lift_ci95_low! < 0 && close.lift_ci95_high! > 0);
    assert.equal(experimentResult(close), undefined);
  });

  test("says how each group did", () => {
    assert.equal(
      groupsInWords(figures([24, 40], [10, 40])),
      "Since the first held-out home: 24 of 40 mailed homes bought (60 %); 10 of 40 held-out homes (25 %).",
    );
  });
});
