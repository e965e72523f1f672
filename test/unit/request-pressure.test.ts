import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRequestPressure } from "../../src/http/request-pressure.ts";

describe("request pressure (the default start's API, seen by its job worker)", () => {
  const at = (start: number) => {
    let now = start;
    return {
      now: () => now,
      advance(ms: number) {
        now += ms;
      },
    };
  };

  it("is busy from the configured rate over the window, and quiet again once requests stop", () => {
    const clock = at(1_000_000);
    const pressure = createRequestPressure({ busyAtPerSecond: 200, windowMs: 250, now: clock.now });
    assert.equal(pressure.isBusy(), false);
    // 40 requests in 200 ms: 200 a second over a 250 ms window needs 50.
    for (let index = 0; index < 40; index++) {
      pressure.noteRequest();
      clock.advance(5);
    }
    assert.equal(pressure.isBusy(), false, "160 a second is not busy");
    for (let index = 0; index < 20; index++) {
      pressure.noteRequest();
      clock.advance(2);
    }
    assert.equal(pressure.isBusy(), true, "60 requests within 240 ms is busy");
    clock.advance(300);
    assert.equal(pressure.isBusy(), false, "partly counted once the window moved on");
    clock.advance(1_000);
    assert.equal(pressure.isBusy(), false, "quiet after a second without requests");
  });

  it("keeps counting across window boundaries at a steady rate", () => {
    const clock = at(0);
    const pressure = createRequestPressure({ busyAtPerSecond: 200, windowMs: 250, now: clock.now });
    // 1000 requests a second for two seconds: busy at every check, whatever the window's phase.
    for (let index = 0; index < 2000; index++) {
      pressure.noteRequest();
      clock.advance(1);
      if (index > 300 && index % 37 === 0) assert.equal(pressure.isBusy(), true, `at ${clock.now()} ms`);
    }
  });
});
