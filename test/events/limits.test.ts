import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { admin, createAutomation, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, TEST_REDIS_URL, type TestContext } from "../helpers/harness.ts";
import { boundAutomation, countRows, envelope, NOTHING_WRITTEN, sendEvent } from "./helpers.ts";

const limiters = [
  { label: "in-process counter", memoryLimiter: true },
  {
    label: TEST_REDIS_URL ? "Redis counter" : "default counter (in-process without REDIS_URL)",
    memoryLimiter: false,
  },
];

for (const { label, memoryLimiter } of limiters) {
  describe(`POST /api/v1/events: 120 per org per minute, ${label} (${databaseLabel})`, () => {
    let ctx: TestContext;
    // 12:00:10 UTC: the fixed window ends at 12:01:00, but the events Retry-After is always 60.
    const clock = fixedClock("2026-11-22T12:00:10Z");
    before(async () => {
      ctx = await createTestContext({ clock, memoryLimiter });
    });
    after(async () => ctx.close());

    it("lets exactly 120 concurrent events through and answers the rest 429 with Retry-After 60; dry runs count", async () => {
      const org = await createOrg(ctx);
      await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
      const responses = await Promise.all(
        Array.from({ length: 125 }, (_, i) => sendEvent(ctx, org.key, envelope({ dry_run: i % 10 !== 0 }))),
      );
      const statuses = responses.map((response) => response.status);
      const unexpected = responses.filter((response) => ![202, 429].includes(response.status));
      assert.deepEqual(
        unexpected.map((response) => `${response.status} ${response.text}`),
        [],
      );
      assert.equal(statuses.filter((status) => status === 202).length, 120);
      const limited = responses.filter((response) => response.status === 429);
      assert.equal(limited.length, 5);
      for (const response of limited) {
        assert.equal(response.body.error, "rate_limited");
        assert.equal(response.headers["retry-after"], "60");
      }
    });

    it("counts per organization and starts afresh on the minute boundary", async () => {
      const busy = await createOrg(ctx);
      const quiet = await createOrg(ctx);
      clock.set("2026-11-22T12:05:30Z");
      await Promise.all(
        Array.from({ length: 120 }, () => sendEvent(ctx, busy.key, envelope({ dry_run: true }))),
      );
      assert.equal((await sendEvent(ctx, busy.key, envelope())).status, 429);
      assert.equal((await sendEvent(ctx, quiet.key, envelope())).status, 202);
      clock.set("2026-11-22T12:06:00Z");
      assert.equal((await sendEvent(ctx, busy.key, envelope())).status, 202);
    });

    it("writes nothing for a rate-limited event", async () => {
      const org = await createOrg(ctx);
      clock.set("2026-11-22T12:10:00Z");
      await Promise.all(
        Array.from({ length: 120 }, () => sendEvent(ctx, org.key, envelope({ dry_run: true }))),
      );
      const limited = await sendEvent(ctx, org.key, envelope());
      assert.equal(limited.status, 429);
      assert.equal((await countRows(ctx, org.orgId)).connections, 0);
    });
  });
}

describe(`POST /api/v1/events: platform kill switch (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ clock: fixedClock("2026-11-22T12:00:10Z") });
  });
  after(async () => ctx.close());

  it("answers 503 automations_disabled with Retry-After 300 while paused, writing nothing, live or dry", async () => {
    const org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    try {
      assert.deepEqual((await admin(ctx, "GET", "/kill-switch")).body, { paused: true }, "readable back");
      for (const dryRun of [false, true]) {
        const response = await sendEvent(ctx, org.key, envelope({ dry_run: dryRun }));
        assert.equal(response.status, 503);
        assert.equal(response.body.error, "automations_disabled");
        assert.equal(response.headers["retry-after"], "300");
      }
      assert.deepEqual(await countRows(ctx, org.orgId), NOTHING_WRITTEN);
    } finally {
      await admin(ctx, "PUT", "/kill-switch", { paused: false });
    }
    const resumed = await sendEvent(ctx, org.key, envelope());
    assert.equal(resumed.status, 202);
    assert.equal(resumed.body.outcomes[0].reason, "queued");
  });
});
