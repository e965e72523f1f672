import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { experimentFigures } from "../../src/attribution/experiment.ts";
import {
  experimentResult,
  groupsInWords,
  untilResultInWords,
} from "../../web/src/pages/Revenue/experiment-words.ts";
import { formatDay } from "../../web/src/ui/format.ts";

const figures = (mailed: [number, number], holdout: [number, number]) =>
  experimentFigures({
    holdoutPercent: 50,
    startedAt: new Date("2026-11-02T12:00:00Z"),
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
      "Homes that got the card bought 2.4× as often (most likely between 1.3× and 4.3×)",
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

  test("says how each group did since the holdout began, and since when", () => {
    assert.equal(
      groupsInWords(figures([24, 40], [10, 40])),
      `Since ${formatDay("2026-11-02T12:00:00Z")}, when this automation began holding homes out: 24 of 40 homes mailed since then bought (60 %); 10 of 40 held-out homes (25 %).`,
    );
  });

  test("with homes mailed since the holdout began but none held out yet, says so rather than 0 of 0", () => {
    const words = groupsInWords(figures([3, 9], [0, 0]));
    assert.doesNotMatch(words, /0 of 0/);
    assert.match(
      words,
      /: 3 of 9 homes mailed since then bought \(33\.3 %\); no home has been held out yet \(about 50 in 100 will be\)\.$/,
    );
  });

  test("counts one home as one home, not one homes", () => {
    assert.match(
      groupsInWords(figures([1, 1], [0, 1])),
      /: 1 of 1 home mailed since then bought \(100 %\); 0 of 1 held-out home \(0 %\)\.$/,
    );
  });

  test("with the holdout on but no home mailed or held out since, says there is nothing to compare yet, not 0 of 0", () => {
    const words = groupsInWords(figures([0, 0], [0, 0]));
    assert.doesNotMatch(words, /0 of 0/);
    assert.equal(
      words,
      `This automation began holding homes out on ${formatDay("2026-11-02T12:00:00Z")}. No home has been mailed or held out since, so there is nothing to compare yet; the cards it mailed before then are not part of it.`,
    );
  });

  test("before any home is held out, says the comparison starts with the first one instead of 0 of 0 homes", () => {
    const words = groupsInWords({ ...figures([0, 0], [0, 0]), started_at: null });
    assert.doesNotMatch(words, /0 of 0/);
    assert.match(words, /^No home has been held out yet\. The comparison starts with the first home/);
  });

  test("while too early, says what a result needs and how long it takes at the pace so far", () => {
    const thirtyDaysIn = new Date("2026-12-02T12:00:00Z");
    // 3 held-out homes bought in 30 days: 7 more take about 70 days, the mailed group's 6 of 10 less.
    assert.equal(
      untilResultInWords(figures([6, 40], [3, 40]), thirtyDaysIn),
      "A result shows once the mailed homes and the held-out homes have each bought at least 10 times, and the difference between them is too large to be chance: at the pace so far (3 held-out homes bought in 30 days), in about 10 weeks.",
    );
    assert.match(
      untilResultInWords(figures([6, 40], [0, 40]), thirtyDaysIn),
      /\. No held-out home has bought yet, so how long that takes cannot be told\.$/,
    );
    assert.match(
      untilResultInWords(figures([12, 100], [10, 100]), thirtyDaysIn),
      /: both have; the difference is not clear yet\.$/,
    );
    assert.doesNotMatch(
      untilResultInWords(figures([6, 40], [3, 40]), new Date("2026-11-05T12:00:00Z")),
      /pace/,
      "under a week of history, no pace is guessed",
    );
  });
});
