import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createBoundAutomationCache } from "../../src/automations/automation-cache.ts";
import { fixedClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { admin, createAutomation, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { boundAutomation, envelope, sendEvent } from "./helpers.ts";

describe(`bound automations are cached briefly (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-11-22T12:00:00Z");
  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  it("sees an operator change through this process at once", async () => {
    const org = await createOrg(ctx);
    const first = await sendEvent(ctx, org.key, envelope());
    assert.equal(first.body.matched_automations, 0);
    const automation = await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
    assert.equal((await sendEvent(ctx, org.key, envelope())).body.matched_automations, 1);
    await admin(ctx, "PATCH", `/automations/${automation.id}`, { enabled: false });
    assert.equal((await sendEvent(ctx, org.key, envelope())).body.matched_automations, 0);
  });

  it("sees a change made elsewhere (another instance) once the second has passed", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
    const cache = createBoundAutomationCache({ db: ctx.database.db, clock });
    assert.equal((await cache.find(org.orgId, "job.completed")).length, 1);
    await ctx.database.db.execute(sql`UPDATE automations SET enabled = false WHERE id = ${automation.id}`);
    assert.equal((await cache.find(org.orgId, "job.completed")).length, 1, "still cached");
    clock.advance(1_001);
    assert.equal((await cache.find(org.orgId, "job.completed")).length, 0);
  });
});
