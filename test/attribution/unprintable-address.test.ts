import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { admin, call, createAutomation, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { conversion, customers, trackingLead } from "./helpers.ts";

/** "12 Main St" with a right-to-left override: a card would print the rest of the line reversed. */
const REVERSED = "12 Main St\u202e, Springfield IL 62701";

function assertRefused(response: { status: number; body: any }, field: string, codePoint = "U+202E") {
  assert.equal(response.status, 422, JSON.stringify(response.body));
  assert.equal(response.body.error, "invalid_payload");
  assert.equal(
    response.body.detail,
    `${field}: contains ${codePoint}, a control or format character that cannot be printed on a card`,
  );
}

describe(`addresses a card cannot print are refused with 422 naming the field (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ clock: fixedClock("2026-06-30T12:00:00Z") });
  });
  after(async () => ctx.close());

  it("on the customers webhook: a single address, a batch entry and a part sent apart", async () => {
    const org = await createOrg(ctx);
    assertRefused(await customers(ctx, org.key, { address: REVERSED }), "address");
    assertRefused(
      await customers(ctx, org.key, { addresses: ["1 Oak St, Springfield IL 62701", "2 Oak St\u0007"] }),
      "addresses[1]",
      "U+0007",
    );
    assertRefused(
      await customers(ctx, org.key, {
        addresses: [{ address: "3 Oak St", city: "Spring\u200bfield", state: "IL" }],
      }),
      "addresses[0].city",
      "U+200B",
    );
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/customers`);
    assert.deepEqual(listed.body.customers, [], "nothing of a refused batch is stored");
  });

  it("on conversions, tracking leads and the trigger, naming the field as sent", async () => {
    const org = await createOrg(ctx);
    assertRefused(
      await conversion(ctx, org.key, {
        address: "12 Main St",
        zip: "6270\u202e1",
        deal_id: "D-1",
        amount: 10,
      }),
      "zip",
    );
    assertRefused(
      await trackingLead(ctx, org.key, { properties: { address: REVERSED }, email: "a@example.com" }),
      "properties.address",
    );
    const automation = await createAutomation(ctx, org.orgId, { name: "Follow-up" });
    const triggered = await call(ctx, "POST", "/api/v1/webhooks/trigger", {
      key: org.key,
      query: { id: automation.id },
      body: { address: REVERSED, deal_id: "D-2" },
    });
    assertRefused(triggered, "address");
  });

  it("in an event's record.properties: its address and the recipient's name", async () => {
    const org = await createOrg(ctx);
    const response = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      body: {
        event_type: "job.completed",
        object_type: "job",
        dedup_id: "unprintable-1",
        record: { id: "r1", properties: { street: "12 Main St", city: "Springfield\u2066", state: "IL" } },
      },
    });
    assertRefused(response, "record.properties.city", "U+2066");
    const named = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      body: {
        event_type: "job.completed",
        object_type: "job",
        dedup_id: "unprintable-2",
        record: {
          id: "r2",
          properties: { street: "12 Main St", city: "Springfield", client_name: "\u202eevil\u200b" },
        },
      },
    });
    assertRefused(named, "record.properties.client_name", "U+202E");
  });

  it("in an import row and in the operator's mailing history", async () => {
    const org = await createOrg(ctx);
    const imported = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: { source: "jobs", rows: [{ address: "1 Oak St, Springfield IL 62701" }, { address: REVERSED }] },
    });
    assertRefused(imported, "rows[1].address");
    const mailing = await admin(ctx, "POST", `/orgs/${org.orgId}/mailings`, {
      pieces: [{ address: "1 Oak St, Springfield IL 62701", recipient_name: "Pat\ufeff Lee" }],
    });
    assertRefused(mailing, "pieces[0].recipient_name", "U+FEFF");
  });

  it("accepts letters of every script, tabs and line breaks, and the joiners Persian needs", async () => {
    const org = await createOrg(ctx);
    const response = await customers(ctx, org.key, {
      addresses: [
        "100 Мain St, Springfield IL 62701",
        "12 Main St\nSpringfield\tIL 62701",
        "5 خیابان\u200cها Rd, Austin TX",
      ],
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.added, 3);
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/customers`);
    const keys = listed.body.customers.map(
      (customer: { normalized_address: string }) => customer.normalized_address,
    );
    assert.ok(keys.includes("100 МAIN ST, SPRINGFIELD IL 62701"), keys.join(" | "));
  });
});
