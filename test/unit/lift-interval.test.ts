import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { experimentFigures } from "../../src/attribution/experiment.ts";
import { riskRatio } from "../../src/domain/lift-interval.ts";

const close = (actual: number | undefined, expected: number, digits = 9) =>
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) < 10 ** -digits,
    `${actual} is not ${expected} to ${digits} places`,
  );

describe("the risk ratio's 95 % interval (Katz log method)", () => {
  // Published worked examples of the Katz method (Katz et al., Biometrics 34 (1978) 469-474),
  // as SciPy documents them for scipy.stats.contingency.relative_risk and its confidence_interval.
  const published = [
    {
      source: "SciPy RelativeRiskResult.confidence_interval example",
      mailed: { conversions: 10, homes: 75 },
      holdout: { conversions: 12, homes: 225 },
      ratio: 2.5,
      low: 1.1261564003469628,
      high: 5.549850800541033,
    },
    {
      source: "SciPy relative_risk example (Evans County: high CAT and coronary heart disease)",
      mailed: { conversions: 27, homes: 122 },
      holdout: { conversions: 44, homes: 487 },
      ratio: 2.4495156482861398,
      low: 1.5836990926700116,
      high: 3.7886786315466354,
    },
  ];
  for (const example of published) {
    it(`matches the ${example.source}`, () => {
      const interval = riskRatio(example.mailed, example.holdout);
      close(interval?.ratio, example.ratio);
      close(interval?.low, example.low);
      close(interval?.high, example.high);
    });
  }

  it("puts 24 of 40 mailed homes against 10 of 40 held out at 2.4× (1.3× to 4.3×)", () => {
    const interval = riskRatio({ conversions: 24, homes: 40 }, { conversions: 10, homes: 40 });
    close(interval?.ratio, 2.4);
    assert.equal(interval?.low.toFixed(1), "1.3");
    assert.equal(interval?.high.toFixed(1), "4.3");
  });

  it("is undefined without homes or without a conversion in either group", () => {
    for (const [mailed, holdout] of [
      [
        { conversions: 0, homes: 0 },
        { conversions: 1, homes: 10 },
      ],
      [
        { conversions: 1, homes: 10 },
        { conversions: 0, homes: 0 },
      ],
      [
        { conversions: 5, homes: 10 },
        { conversions: 0, homes: 10 },
      ],
      [
        { conversions: 0, homes: 10 },
        { conversions: 5, homes: 10 },
      ],
      [
        { conversions: 11, homes: 10 },
        { conversions: 5, homes: 10 },
      ],
    ] as const) {
      assert.equal(riskRatio(mailed, holdout), undefined, JSON.stringify({ mailed, holdout }));
    }
  });

  it("is 1, with an interval symmetric around it on the log scale, when both groups convert alike", () => {
    const interval = riskRatio({ conversions: 20, homes: 100 }, { conversions: 20, homes: 100 });
    close(interval?.ratio, 1);
    assert.ok(interval!.low < 1 && interval!.high > 1);
    close(interval!.low * interval!.high, 1);
  });
});

describe("an experiment's figures", () => {
  const counts = {
    holdoutPercent: 50,
    startedAt: new Date("2026-11-02T15:04:00Z"),
    mailedHomes: 40,
    holdoutHomes: 40,
    mailedConversions: 24,
    holdoutConversions: 10,
    mailedRevenue: 24 * 5000,
  };

  it("derive rates, lift, its interval and what the mail added", () => {
    assert.deepEqual(experimentFigures(counts), {
      holdout_percent: 50,
      started_at: "2026-11-02T15:04:00.000Z",
      mailed_homes: 40,
      holdout_homes: 40,
      mailed_conversions: 24,
      holdout_conversions: 10,
      mailed_rate: 0.6,
      holdout_rate: 0.25,
      lift: 1.4,
      lift_ci95_low: 0.3259,
      lift_ci95_high: 3.3444,
      // 24 − 0.25 × 40 = 14 deals the mail added, at the mailed group's $5,000 average.
      incremental_conversions: 14,
      incremental_revenue: 70000,
    });
  });

  it("leave lift and interval null with no holdout conversion, and the increment counts every mailed deal", () => {
    const figures = experimentFigures({ ...counts, holdoutConversions: 0 });
    assert.equal(figures.holdout_rate, 0);
    assert.equal(figures.lift, null);
    assert.equal(figures.lift_ci95_low, null);
    assert.equal(figures.lift_ci95_high, null);
    assert.equal(figures.incremental_conversions, 24);
    assert.equal(figures.incremental_revenue, 120000);
  });

  it("leave lift at −100 % without an interval when no mailed home converted", () => {
    const figures = experimentFigures({ ...counts, mailedConversions: 0, mailedRevenue: 0 });
    assert.equal(figures.lift, -1);
    assert.equal(figures.lift_ci95_low, null);
    assert.equal(figures.incremental_conversions, -10);
    assert.equal(figures.incremental_revenue, null, "no mailed deal to value the increment by");
  });

  it("leave every rate-based figure null before any home is held out", () => {
    const figures = experimentFigures({ ...counts, holdoutHomes: 0, holdoutConversions: 0 });
    assert.equal(figures.holdout_rate, null);
    assert.equal(figures.lift, null);
    assert.equal(figures.incremental_conversions, null);
    assert.equal(figures.incremental_revenue, null);
  });
});
