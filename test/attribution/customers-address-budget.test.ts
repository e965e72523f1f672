import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { createAppTestContext, inviteAndAccept } from "../app-api/helpers.ts";
import { createOrg } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { gluedUnitWordsAddress } from "../helpers/hostile-addresses.ts";
import { count, customers } from "./helpers.ts";

/** Well past the budget below wherever it runs: 40 addresses of 5-30 ms each. */
const hostileBatch = (from: number) =>
  Array.from({ length: 40 }, (_, index) => gluedUnitWordsAddress(from + index));
const ordinary = ["1 Elm St, Springfield, IL 62701", "2 Elm St, Springfield, IL 62701"];

describe(`customers: each organization's time reading addresses is budgeted (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-06-30T12:00:00Z");
  before(async () => {
    // 30 ms a minute: a few ordinary batches' worth, so hostile text spends it at once.
    ctx = await createAppTestContext({ clock, config: { addressWorkMsPerMinute: 30 } });
  });
  after(async () => ctx.close());

  it("refuses a batch of costly addresses with 429 and Retry-After, writes none of it, and takes the org's batches again once the budget refills", async () => {
    const sender = await createOrg(ctx);
    const bystander = await createOrg(ctx);
    const refused = await customers(ctx, sender.key, { addresses: [...ordinary, ...hostileBatch(100)] });
    assert.equal(refused.status, 429, refused.text);
    // The customers endpoint's error style (spec: Errors, attribution family), as its rate limit answers.
    assert.equal(refused.body.error, "Too many requests");
    assert.match(
      refused.body.detail,
      /Reading addresses for this organization took more time than its budget allows/,
    );
    const retryAfter = Number(refused.headers["retry-after"]);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1,
      `Retry-After ${refused.headers["retry-after"]}`,
    );
    assert.equal(await count(ctx, "customers", sender.orgId), 0, "nothing of a refused batch is registered");

    const stillSpent = await customers(ctx, sender.key, { addresses: ordinary });
    assert.equal(stillSpent.status, 429, "the org's next batch waits for the budget too");
    const otherOrg = await customers(ctx, bystander.key, { addresses: ordinary });
    assert.equal(otherOrg.status, 200, "another organization's budget is its own");
    assert.deepEqual(otherOrg.body, { added: 2, total: 2 });

    clock.advance(retryAfter * 1000);
    const afterWait = await customers(ctx, sender.key, { addresses: ordinary });
    assert.equal(afterWait.status, 200, afterWait.text);
    assert.deepEqual(afterWait.body, { added: 2, total: 2 });
  });

  it("refuses the app's CSV upload the same way once the org's budget is spent, and says so in words", async () => {
    const org = await createOrg(ctx);
    const owner = await inviteAndAccept(ctx, org.orgId, "budget-owner@example.com", "owner");
    const file = `street\r\n${hostileBatch(500)
      .map((address) => `"${address.replaceAll('"', '""')}"`)
      .join("\r\n")}\r\n`;
    const refused = await owner.browser.request("POST", "/app/api/v1/customers/upload?street=street", {
      payload: file,
      headers: { "content-type": "text/csv" },
    });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.error.code, "rate_limited");
    assert.match(refused.body.error.message, /retry after \d+ s/);
    assert.ok(Number(refused.headers["retry-after"]) >= 1);
    assert.equal(await count(ctx, "customers", org.orgId), 0);
    const form = await owner.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "7 Birch Ct, Austin, TX 78703" },
    });
    assert.equal(form.status, 200, "one address typed in the app is not a batch and is not budgeted");
  });
});
