import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { admin, call, createOrg, issueKey } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { customers } from "./helpers.ts";

describe(`POST /api/v1/customers/webhook (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-06-30T12:00:00Z");
  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  it("registers a single address with notes, upserting on the normalized address", async () => {
    const org = await createOrg(ctx);
    const first = await customers(ctx, org.key, {
      address: "12 Oak Street, Springfield, IL 62701",
      notes: "VIP",
    });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { added: 1, total: 1 });
    const again = await customers(ctx, org.key, { address: "12 OAK ST Springfield IL 62701-4444" });
    assert.deepEqual(again.body, { added: 0, total: 1 });
    const listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/customers`)).body.customers;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].notes, "VIP", "a repeat without notes keeps them");
    assert.equal(listed[0].source, "webhook");
  });

  it("registers a batch of strings and {address, notes} objects; added counts new addresses only", async () => {
    const org = await createOrg(ctx);
    await customers(ctx, org.key, { address: "1 First St, Springfield, IL 62701" });
    const response = await customers(ctx, org.key, {
      addresses: [
        "1 First Street, Springfield, IL 62701",
        { address: "2 Second St, Springfield, IL 62701", notes: "gate code 1234" },
        "3 Third St, Springfield, IL 62701",
        "3 THIRD ST., SPRINGFIELD IL 62701",
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { added: 2, total: 3 });
  });

  it("keeps the same street in two towns apart when no state is written", async () => {
    const org = await createOrg(ctx);
    const chicago = await customers(ctx, org.key, { address: "50 Main St, Chicago 60601" });
    assert.deepEqual(chicago.body, { added: 1, total: 1 });
    const springfield = await customers(ctx, org.key, { address: "50 Main St, Springfield 62704" });
    assert.deepEqual(springfield.body, { added: 1, total: 2 });
    const sameHome = await customers(ctx, org.key, { address: "50 Main St, Chicago, IL 60601" });
    assert.deepEqual(sameHome.body, { added: 0, total: 2 });
  });

  it("registers a street whose name opens with a street type once, however the type is written", async () => {
    const org = await createOrg(ctx);
    const first = await customers(ctx, org.key, { address: "2 Avenue of the Americas, New York, NY 10036" });
    assert.deepEqual(first.body, { added: 1, total: 1 });
    const again = await customers(ctx, org.key, {
      addresses: [
        "2 Ave of the Americas, New York NY 10036",
        "2 Ave. of the Americas, New York, NY 10036-1234",
      ],
    });
    assert.deepEqual(again.body, { added: 0, total: 1 });
    const otherAvenue = await customers(ctx, org.key, { address: "2 Ave A, New York, NY 10009" });
    assert.deepEqual(otherAvenue.body, { added: 1, total: 2 });
  });

  it("registers a home on a street without a type before a town ending like one once, with or without commas", async () => {
    const org = await createOrg(ctx);
    const first = await customers(ctx, org.key, { address: "100 Broadway, Long Beach, CA 90802" });
    assert.deepEqual(first.body, { added: 1, total: 1 });
    const again = await customers(ctx, org.key, {
      addresses: ["100 Broadway Long Beach CA 90802", "100 Broadway, Long Beach CA 90802"],
    });
    assert.deepEqual(again.body, { added: 0, total: 1 });
    const otherTown = await customers(ctx, org.key, { address: "100 Broadway, New York, NY 10006" });
    assert.deepEqual(otherTown.body, { added: 1, total: 2 });
  });

  it("keeps organizations apart", async () => {
    const a = await createOrg(ctx);
    const b = await createOrg(ctx);
    await customers(ctx, a.key, { address: "5 Elm St, Springfield, IL 62701" });
    const response = await customers(ctx, b.key, { address: "5 Elm St, Springfield, IL 62701" });
    assert.deepEqual(response.body, { added: 1, total: 1 });
  });

  it("accepts 1000 addresses and rejects 1001 with 422", async () => {
    const org = await createOrg(ctx);
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => `${i + 1} Maple Ave, Springfield, IL 62701`);
    const over = await customers(ctx, org.key, { addresses: batch(1001) });
    assert.equal(over.status, 422);
    assert.equal(over.body.error, "invalid_payload");
    assert.match(over.body.detail, /^addresses/);
    const full = await customers(ctx, org.key, { addresses: batch(1000) });
    assert.equal(full.status, 200, full.text);
    assert.deepEqual(full.body, { added: 1000, total: 1000 });
  });

  it("counts an address sent beside a full batch against the 1000 limit: 422, nothing registered", async () => {
    const org = await createOrg(ctx);
    const batch = Array.from({ length: 1000 }, (_, i) => `${i + 1} Cedar Ave, Springfield, IL 62701`);
    const over = await customers(ctx, org.key, {
      address: "5000 Extra St, Springfield, IL 62701",
      addresses: batch,
    });
    assert.equal(over.status, 422, over.text);
    assert.equal(over.body.error, "invalid_payload");
    assert.match(over.body.detail, /^addresses: must NOT have more than 1000 items/);
    const listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/customers`)).body.customers;
    assert.equal(listed.length, 0, "a refused batch registers nothing");
    const within = await customers(ctx, org.key, {
      address: "5000 Extra St, Springfield, IL 62701",
      addresses: batch.slice(0, 999),
    });
    assert.equal(within.status, 200, within.text);
    assert.deepEqual(within.body, { added: 1000, total: 1000 });
  });

  it("rejects bad entries naming them, and a body with no address", async () => {
    const org = await createOrg(ctx);
    const empty = await customers(ctx, org.key, { addresses: ["1 Main St, Springfield, IL", ""] });
    assert.equal(empty.status, 422);
    assert.match(empty.body.detail, /^addresses\[1\]/);
    const wrong = await customers(ctx, org.key, { addresses: [42] });
    assert.equal(wrong.status, 422);
    assert.match(wrong.body.detail, /^addresses\[0\]/);
    const noAddressField = await customers(ctx, org.key, { addresses: [{ notes: "gate code 12" }] });
    assert.equal(noAddressField.status, 422);
    assert.equal(noAddressField.body.detail, "addresses[0].address: is required");
    const none = await customers(ctx, org.key, { notes: "no address" });
    assert.equal(none.status, 400);
    assert.deepEqual(none.body, { error: "No address found in payload" });
    // Blank counts as missing, as on conversions and tracking lead.
    for (const address of ["", "   "]) {
      const blank = await customers(ctx, org.key, { address });
      assert.equal(blank.status, 400, JSON.stringify(address));
      assert.deepEqual(blank.body, { error: "No address found in payload" });
    }
    const unusable = await customers(ctx, org.key, { address: " ,,, " });
    assert.equal(unusable.status, 422);
    assert.match(unusable.body.detail, /^address/);
  });

  it("refuses text with no letter or digit like a blank entry, single or batch, naming it", async () => {
    const org = await createOrg(ctx);
    const usable = "1 Main St, Springfield, IL 62701";
    const cases: [unknown, string][] = [
      [{ address: "!!!" }, "address"],
      [{ address: "---" }, "address"],
      [{ addresses: [usable, "???"] }, "addresses[1]"],
      [{ addresses: [usable, "  "] }, "addresses[1]"],
      [{ addresses: [{ address: "-- / --", notes: "x" }] }, "addresses[0].address"],
    ];
    for (const [body, field] of cases) {
      const response = await customers(ctx, org.key, body);
      assert.equal(response.status, 422, JSON.stringify(body));
      assert.deepEqual(response.body, {
        error: "invalid_payload",
        detail: `${field}: is not a usable address`,
      });
    }
    assert.deepEqual((await customers(ctx, org.key, { addresses: [] })).body, { added: 0, total: 0 });
  });

  it("reads null as absent in optional fields; a null address is missing", async () => {
    const org = await createOrg(ctx);
    const single = await customers(ctx, org.key, {
      address: "7 Birch St, Springfield, IL 62701",
      notes: null,
    });
    assert.equal(single.status, 200, single.text);
    const batch = await customers(ctx, org.key, {
      address: null,
      notes: null,
      addresses: [{ address: "8 Birch St, Springfield, IL 62701", notes: null }],
    });
    assert.deepEqual(batch.body, { added: 1, total: 2 });
    for (const body of [{ address: null }, { address: null, addresses: null }]) {
      const missing = await customers(ctx, org.key, body);
      assert.equal(missing.status, 400, JSON.stringify(body));
      assert.deepEqual(missing.body, { error: "No address found in payload" });
    }
    const required = await customers(ctx, org.key, { addresses: [{ address: null, notes: "x" }] });
    assert.equal(required.status, 422);
    assert.deepEqual(required.body, {
      error: "invalid_payload",
      detail: "addresses[0].address: is required",
    });
  });

  it("names every accepted type in a type error", async () => {
    const org = await createOrg(ctx);
    const cases: [unknown, string][] = [
      [{ addresses: [42] }, "addresses[0]: must be an address string or an object {address, notes?}"],
      [{ addresses: [{ address: 5 }] }, "addresses[0].address: must be an address string"],
      [{ address: "7 Birch St", notes: 5 }, "notes: must be a string"],
      [{ addresses: "7 Birch St" }, "addresses: must be an array"],
    ];
    for (const [body, detail] of cases) {
      const response = await customers(ctx, org.key, body);
      assert.equal(response.status, 422, JSON.stringify(body));
      assert.deepEqual(response.body, { error: "invalid_payload", detail });
    }
  });

  it("has its own 60/min bucket: 429 Too many requests with Retry-After: 60", async () => {
    const org = await createOrg(ctx);
    clock.set("2026-06-30T13:00:00Z");
    for (let index = 0; index < 60; index++) {
      const response = await customers(ctx, org.key, { address: `${index} Pine St, Springfield, IL 62701` });
      assert.equal(response.status, 200, response.text);
    }
    const limited = await customers(ctx, org.key, { address: "99 Pine St, Springfield, IL 62701" });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error, "Too many requests");
    assert.equal(limited.headers["retry-after"], "60");
    const conversion = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { address: "1 A St" },
    });
    assert.equal(conversion.status, 200, "the conversions bucket is separate");
    clock.set("2026-06-30T12:00:00Z");
  });

  it("requires webhooks:inbound", async () => {
    const org = await createOrg(ctx);
    const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
    const denied = await customers(ctx, importOnly, { address: "1 Main St, Springfield, IL 62701" });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { error: "Unauthorized" });
  });

  it("completes the address with the city, state and zip sent apart, single or as batch objects", async () => {
    const org = await createOrg(ctx);
    const single = await customers(ctx, org.key, {
      address: "50 Oak Ave",
      city: "Chicago",
      state: "IL",
      zip: "60601",
      notes: "HubSpot contact",
    });
    assert.equal(single.status, 200, single.text);
    const batch = await customers(ctx, org.key, {
      addresses: [
        { address: "77 Elm St", city: "Austin", zip: 78701 },
        { address: "9 Beacon St", city: "Boston", state: "MA", postal_code: 2134 },
        { address: "12 Oak Street, Springfield, IL 62701", city: "Chicago" },
      ],
    });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body, { added: 3, total: 4 });
    const listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/customers`)).body.customers;
    const keys = listed.map((customer: { normalized_address: string }) => customer.normalized_address).sort();
    assert.deepEqual(keys, [
      "12 OAK ST, SPRINGFIELD IL 62701",
      "50 OAK AVE, CHICAGO IL 60601",
      "77 ELM ST, AUSTIN TX 78701",
      "9 BEACON ST, BOSTON MA 02134",
    ]);
    const oak = listed.find((customer: { address: string }) => customer.address.startsWith("50 Oak"));
    assert.equal(oak.address, "50 Oak Ave, Chicago, IL 60601");
    const typed = await customers(ctx, org.key, { address: "50 Oak Ave", city: 5 });
    assert.equal(typed.status, 422);
    assert.deepEqual(typed.body, { error: "invalid_payload", detail: "city: must be a string" });
  });
});
