import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createAutomation, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { boundAutomation, countRows, envelope, sendEvent } from "./helpers.ts";

// On PostgreSQL (TEST_DATABASE_URL) the 50 requests really run on parallel connections and
// only the unique index can keep them apart; PGlite serializes them but must agree.
describe(`POST /api/v1/events: concurrent replays (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  it("queues exactly one campaign for 50 identical requests in parallel; 49 report duplicate", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
    const body = envelope({ dedup_id: "race-1" });
    const responses = await Promise.all(Array.from({ length: 50 }, () => sendEvent(ctx, org.key, body)));
    assert.deepEqual(
      responses.map((response) => response.status),
      Array(50).fill(202),
    );
    const reasons = responses.map((response) => response.body.outcomes[0].reason);
    assert.equal(reasons.filter((reason) => reason === "queued").length, 1);
    assert.equal(reasons.filter((reason) => reason === "duplicate").length, 49);
    assert.equal(responses.filter((response) => response.body.duplicate === true).length, 49);
    assert.ok(responses.every((response) => response.body.outcomes[0].automation_id === automation.id));
    const counts = await countRows(ctx, org.orgId);
    assert.equal(counts.campaigns, 1);
    assert.equal(counts.jobs, 1, "one pipeline job, which writes the one piece");
    assert.equal(counts.connections, 1);
    assert.equal(counts.webhook_log, 0);
  });

  it("keeps two automations independent under the same race: one queued each", async () => {
    const org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, boundAutomation("deal.won", { name: "a" }));
    await createAutomation(ctx, org.orgId, boundAutomation("deal.won", { name: "b" }));
    const body = envelope({ event_type: "deal.won", object_type: "deal", dedup_id: "race-2" });
    const responses = await Promise.all(Array.from({ length: 20 }, () => sendEvent(ctx, org.key, body)));
    const queued = responses.flatMap((response) =>
      response.body.outcomes.filter((outcome: any) => outcome.reason === "queued"),
    );
    assert.deepEqual(queued.map((outcome: any) => outcome.name).sort(), ["a", "b"]);
    assert.equal((await countRows(ctx, org.orgId)).campaigns, 2);
  });
});
