import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { seedDemoOnFirstRun } from "../../src/bootstrap.ts";
import { admin } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

describe(`app API: the first-run checklist and the demo key (${databaseLabel})`, () => {
  let ctx: TestContext;
  let owner: SignedInUser;
  let printedKey: string;

  before(async () => {
    // An empty database, as a first start finds it. The seed runs only on the embedded database; it
    // is told it runs on one here, so PostgreSQL's run checks the same rows.
    ctx = await createAppTestContext({ memoryLimiter: true });
    const lines: string[] = [];
    await seedDemoOnFirstRun(
      ctx.database.db,
      { ...ctx.config, databaseUrl: undefined },
      pino({ level: "silent" }),
      ctx.mailer,
      (line) => lines.push(line.trim()),
    );
    printedKey = lines.find((line) => line.startsWith("ak_")) ?? "";
    assert.ok(printedKey, `the demo key is printed: ${lines.join("\n")}`);
    const orgs = await admin(ctx, "GET", "/orgs");
    assert.equal(orgs.status, 200, orgs.text);
    assert.equal(orgs.body.orgs.length, 1);
    owner = await inviteAndAccept(ctx, orgs.body.orgs[0].org_id, "owner-demo-key@example.com", "owner");
  });
  after(() => ctx.close());

  const apiKeyStepDone = async () => {
    const steps = await owner.browser.request("GET", "/app/api/v1/first-steps");
    assert.equal(steps.status, 200, steps.text);
    return steps.body.api_key as boolean;
  };

  test("the demo key a first start makes is listed, but unused it does not tick 'get an API key'", async () => {
    const keys = await owner.browser.request("GET", "/app/api/v1/keys");
    assert.deepEqual(
      keys.body.keys.map((key: { name: string; demo: boolean }) => [key.name, key.demo]),
      [["demo", true]],
      "it is marked as the demo key, for the app to say what it is",
    );
    assert.equal(await apiKeyStepDone(), false);
  });

  test("a key the contractor creates ticks it, even one they name 'demo'", async () => {
    const created = await owner.browser.request("POST", "/app/api/v1/keys", { body: { name: "demo" } });
    assert.equal(created.status, 201, created.text);
    const listed = (await owner.browser.request("GET", "/app/api/v1/keys")).body.keys;
    assert.equal(
      listed.find((key: { id: string }) => key.id === created.body.id).demo,
      false,
      "named demo, not the demo key",
    );
    assert.equal(await apiKeyStepDone(), true);
    const revoked = await owner.browser.request("DELETE", `/app/api/v1/keys/${created.body.id}`);
    assert.equal(revoked.status, 204, revoked.text);
    assert.equal(await apiKeyStepDone(), false, "the demo key alone again");
  });

  test("the demo key ticks it once something uses it (the printed curl, a CRM sending events)", async () => {
    const me = await ctx.app.inject({
      method: "GET",
      url: "/api/v1/me",
      headers: { authorization: `Bearer ${printedKey}` },
    });
    assert.equal(me.statusCode, 200, me.body);
    // The key's use is recorded after the answer, off the request's path.
    let done = await apiKeyStepDone();
    for (let waited = 0; !done && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      done = await apiKeyStepDone();
    }
    assert.equal(done, true);
  });
});
