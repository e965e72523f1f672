import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { correctForCoordinatedOmission, percentile } from "../../bench/lib/load.ts";

describe("bench: coordinated-omission correction of a paced run", () => {
  it("adds, for an answer slower than the interval, the latencies of the requests it held back", () => {
    assert.deepEqual(
      correctForCoordinatedOmission([2, 10], 3).sort((a, b) => a - b),
      [2, 4, 7, 10],
    );
  });

  it("leaves a run whose answers all beat the interval as measured", () => {
    assert.deepEqual(correctForCoordinatedOmission([1, 2, 2.9], 3), [1, 2, 2.9]);
  });

  it("weights one stall by the requests due during it, not by every millisecond of it", () => {
    // 990 quick answers and one 40 ms stall on a connection paced every 3.15 ms: 12 held back.
    const measured = [...Array.from({ length: 990 }, () => 2), 40];
    const corrected = correctForCoordinatedOmission(measured, 3.15);
    assert.equal(corrected.length, 990 + 1 + 11);
    assert.equal(percentile(corrected, 0.99), 8.5);
    // autocannon's own correction assumes 1 ms whatever the rate: 39 held back, p99 more than twice.
    assert.equal(percentile(correctForCoordinatedOmission(measured, 1), 0.99), 20);
  });
});
