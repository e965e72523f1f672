import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { typedDollars } from "../../web/src/ui/number-rules.ts";

describe("a typed job amount, as the lead page reads it", () => {
  test("digits, thousands commas, cents and a dollar sign are read as written", () => {
    for (const [typed, dollars] of [
      ["12500", 12500],
      ["12,500", 12500],
      ["$12,500.50", 12500.5],
      ["$ 1,234,567.8", 1234567.8],
      [" 850 ", 850],
    ] as const) {
      assert.equal(typedDollars(typed), dollars, typed);
    }
  });

  test("the k shorthand is thousands, not the digits before it", () => {
    assert.equal(typedDollars("24k"), 24000);
    assert.equal(typedDollars("12.5K"), 12500);
    assert.equal(typedDollars("$9.25 k"), 9250);
  });

  test("anything else is refused, never read loosely", () => {
    for (const typed of [
      "24.000",
      "24,5",
      "1,23",
      "24m",
      "twelve",
      "12 500",
      "12.5.0",
      "-500",
      "1e4",
      "k",
      "",
    ]) {
      assert.equal(typedDollars(typed), null, typed);
    }
  });
});
