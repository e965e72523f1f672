import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { call, createOrg } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

describe(`app API: Customers (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let member: SignedInUser;
  let otherOwner: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await createOrg(ctx);
    member = await inviteAndAccept(ctx, org.orgId, "member-customers@example.com", "member");
    const other = await createOrg(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "other-customers@example.com", "owner");
    const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: {
        addresses: ["742 Evergreen Terrace, Springfield, IL 62704", "1313 Webfoot Walk, Duckburg, CA 90210"],
      },
    });
    assert.equal(registered.status, 200, registered.text);
  });
  after(() => ctx.close());

  test("a member adds one customer through the API's customers service, and finds it by search", async () => {
    const added = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "12 Oak Lane, Austin, TX 78701", notes: "service plan" },
    });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body, { added: 1, total: 3, stopped_cards: 0 });
    const again = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "12 Oak Ln, Austin, TX 78701" },
    });
    assert.deepEqual(again.body, { added: 0, total: 3, stopped_cards: 0 }, "the same home once");
    const found = await member.browser.request("GET", "/app/api/v1/customers?q=oak");
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.customers.length, 1);
    assert.equal(found.body.customers[0].source, "app");
    assert.equal(found.body.customers[0].notes, "service plan");
    assert.equal(found.body.total, 3);
    const all = await member.browser.request("GET", "/app/api/v1/customers");
    assert.equal(all.body.customers.length, 3);
    const wildcard = await member.browser.request("GET", "/app/api/v1/customers?q=%25");
    assert.equal(wildcard.body.customers.length, 0, "% is a character, not a wildcard");
  });

  test("an address a card cannot print is refused with the API's rule; a member cannot remove one", async () => {
    const refused = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "12 Main St\u202e, Austin, TX 78701" },
    });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.error.code, "invalid_payload");
    assert.match(refused.body.error.message, /address/);
    const removal = await member.browser.request(
      "DELETE",
      "/app/api/v1/customers?normalized_address=742%20evergreen%20ter%2C%20springfield%2C%20il%2062704",
    );
    assert.equal(removal.status, 403, "taking a home off the list is an owner's");
  });

  test("an address that is not one whole home (no city or ZIP, or no street) is refused on its field", async () => {
    for (const address of ["12 Oak St", "Springfield, TX 78701", "Main St, Austin, TX 78701"]) {
      const refused = await member.browser.request("POST", "/app/api/v1/customers", { body: { address } });
      assert.equal(refused.status, 422, `${address}: ${refused.text}`);
      assert.equal(refused.body.error.code, "invalid_payload");
      assert.match(refused.body.error.message, /^address: /);
    }
    const whole = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "14 Oak St 78701" },
    });
    assert.equal(whole.status, 200, "a street and a ZIP name one home");
  });

  test("an address with a ZIP that does not exist is refused on its field: a typo on the list would never match", async () => {
    for (const [address, words] of [
      ["5 Fake Rd, Nowhere, ZZ 00000", /^address: ZIP 00000 does not exist$/],
      ["7 Oak St, Springfield, IL 99999", /^address: ZIP 99999 does not exist$/],
    ] as const) {
      const refused = await member.browser.request("POST", "/app/api/v1/customers", { body: { address } });
      assert.equal(refused.status, 422, `${address}: ${refused.text}`);
      assert.match(refused.body.error.message, words);
    }
    const none = await member.browser.request("GET", "/app/api/v1/customers?q=Fake");
    assert.equal(none.body.customers.length, 0);
    // The developer API's customers endpoint keeps its contract: any usable address.
    const viaApi = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "5 Fake Rd, Nowhere, ZZ 00000" },
    });
    assert.equal(viaApi.status, 200, viaApi.text);
  });

  test("a cursor that is not one the list gave, or names no real time, is a 422, never a 500", async () => {
    const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of [
      "not-a-cursor",
      cursorOf(["2024-02-30T10:00:00Z", "x"]),
      cursorOf(["0000-01-01T00:00:00Z", "x"]),
      cursorOf([1, 2]),
    ]) {
      const page = await member.browser.request("GET", `/app/api/v1/customers?cursor=${cursor}`);
      assert.equal(page.status, 422, `${cursor}: ${page.text}`);
      assert.match(page.body.error.message, /cursor/);
    }
  });

  test("another organization never sees these customers", async () => {
    const theirs = await otherOwner.browser.request("GET", "/app/api/v1/customers?q=Evergreen");
    assert.deepEqual(theirs.body, { customers: [], total: 0, next_cursor: null });
    assert.equal((await ctx.app.inject({ method: "GET", url: "/app/api/v1/customers" })).statusCode, 401);
  });
});
