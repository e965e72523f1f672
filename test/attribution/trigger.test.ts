import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import type { GeocodeResult, Geocoder } from "../../src/geo/geocoder.ts";
import { admin, call, createAutomation, createOrg, issueKey, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { insertPendingPieces } from "../helpers/pieces.ts";
import { count } from "./helpers.ts";

const HOME = "55 Walnut Street, Springfield, IL 62701";

/** Counts geocoding calls, to prove a repeat short-circuits before any. */
function countingGeocoder(): Geocoder & { calls: number } {
  const geocoder = {
    provider: "counting",
    calls: 0,
    async geocode(): Promise<GeocodeResult> {
      geocoder.calls += 1;
      return { found: false };
    },
    async geocodeMany(addresses: readonly string[]) {
      return Promise.all(addresses.map(() => geocoder.geocode()));
    },
  };
  return geocoder;
}

describe(`POST /api/v1/webhooks/trigger (${databaseLabel})`, () => {
  let ctx: TestContext;
  const geocoder = countingGeocoder();
  const clock = fixedClock("2026-06-30T12:00:00Z");
  before(async () => {
    ctx = await createTestContext({ clock, geocoder });
  });
  after(async () => ctx.close());

  const trigger = (key: string, id: string, body: unknown) =>
    call(ctx, "POST", "/api/v1/webhooks/trigger", { key, body, query: { id } });

  /** The org's campaigns with their pieces, once the pipeline's first step has written them. */
  async function campaignsOf(orgId: string) {
    await insertPendingPieces(ctx.database.db);
    return (await admin(ctx, "GET", `/orgs/${orgId}/campaigns`)).body.campaigns as {
      id: string;
      automation_id: string;
      pieces: { address: string; recipient_name: string | null; status: string }[];
    }[];
  }

  it("fires the named automation: 202 with the queued campaign and the normalized address", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Storm follow-up" });
    const response = await trigger(org.key, automation.id, {
      address: HOME,
      deal_id: "D-1",
      first_name: "Pat",
      last_name: "Lee",
    });
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.success, true);
    assert.equal(response.body.automation, "Storm follow-up");
    assert.equal(response.body.customer_added, false);
    assert.equal(response.body.queued, true);
    assert.equal(response.body.idempotent, false);
    assert.equal(response.body.address, normalizeAddress(HOME));
    const campaigns = await campaignsOf(org.orgId);
    assert.equal(campaigns.length, 1);
    assert.equal(campaigns[0]!.id, response.body.queue_id);
    assert.equal(campaigns[0]!.automation_id, automation.id);
    assert.equal(campaigns[0]!.pieces[0]!.recipient_name, "Pat Lee");
    assert.equal(campaigns[0]!.pieces[0]!.status, "queued");
  });

  it("is idempotent on deal_id: a repeat returns idempotent true before any geocoding", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Won deal", kind: "deal_won" });
    const first = await trigger(org.key, automation.id, {
      address: HOME,
      deal_id: "D-2",
      deal_amount: "9000",
    });
    assert.equal(first.body.queued, true);
    assert.equal(first.body.customer_added, true);
    const callsBefore = geocoder.calls;
    const repeat = await trigger(org.key, automation.id, {
      properties: { address: HOME, hs_object_id: "D-2" },
    });
    assert.equal(repeat.status, 202);
    assert.deepEqual(repeat.body, {
      success: true,
      automation: "Won deal",
      customer_added: false,
      queued: false,
      queue_id: first.body.queue_id,
      idempotent: true,
      address: normalizeAddress(HOME),
    });
    assert.equal(geocoder.calls, callsBefore, "no geocoding on a repeat");
    assert.equal((await campaignsOf(org.orgId)).length, 1);
  });

  it("counts an address's length in characters, as its schema's maxLength does (an emoji is one)", async () => {
    const org = await createOrg(ctx);
    const conversion = (address: string) =>
      call(ctx, "POST", "/api/v1/conversions", {
        key: org.key,
        body: { address, deal_id: `len-${address.length}` },
      });
    const fits = await conversion("😀".repeat(500));
    assert.notEqual(fits.status, 422, fits.text);
    const over = await conversion("😀".repeat(501));
    assert.equal(over.status, 422, over.text);
    assert.match(over.body.detail, /address: must NOT have more than 500 characters/);
  });

  it("a repeat answers the address queued under the deal, not the one the retry sends", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Replay address" });
    const first = await trigger(org.key, automation.id, { address: HOME, deal_id: "D-addr" });
    assert.equal(first.body.queued, true);
    const expected = { queue_id: first.body.queue_id, idempotent: true, address: normalizeAddress(HOME) };
    // Before a worker took the job: the address its job carries.
    const garbage = await trigger(org.key, automation.id, { address: "GARBAGE", deal_id: "D-addr" });
    assert.equal(garbage.status, 202, garbage.text);
    assert.deepEqual(
      { queue_id: garbage.body.queue_id, idempotent: garbage.body.idempotent, address: garbage.body.address },
      expected,
    );
    // Once the piece is written and its job pruned: the piece's address.
    await insertPendingPieces(ctx.database.db);
    await ctx.database.db.execute(sql`DELETE FROM jobs WHERE id = ${first.body.queue_id}::uuid`);
    const elsewhere = await trigger(org.key, automation.id, {
      address: "9 Other Road, Chicago, IL 60601",
      deal_id: "D-addr",
    });
    assert.deepEqual(
      {
        queue_id: elsewhere.body.queue_id,
        idempotent: elsewhere.body.idempotent,
        address: elsewhere.body.address,
      },
      expected,
    );
  });

  it("without a deal_id, the same body on the same UTC day is a retry: it mails once even with no frequency cap", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Keyless" });
    const capOff = await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { frequency_cap_days: 0 });
    assert.equal(capOff.status, 200, capOff.text);
    const body = { address: HOME, first_name: "Pat" };
    const sends = await Promise.all(
      [body, { first_name: "Pat", address: HOME }, body].map((sent) => trigger(org.key, automation.id, sent)),
    );
    for (const send of sends) assert.equal(send.status, 202, send.text);
    const queued = sends.filter((send) => send.body.queued);
    assert.equal(queued.length, 1, sends.map((send) => send.text).join("\n"));
    for (const repeat of sends.filter((send) => !send.body.queued)) {
      assert.equal(repeat.body.idempotent, true);
      assert.equal(repeat.body.queue_id, queued[0]!.body.queue_id);
    }
    const campaigns = await campaignsOf(org.orgId);
    assert.equal(campaigns.length, 1);
    assert.equal(campaigns[0]!.pieces.length, 1);

    const otherBody = await trigger(org.key, automation.id, { address: HOME, first_name: "Lee" });
    assert.equal(otherBody.body.idempotent, false, "another body is another trigger");
    clock.set("2026-07-01T12:00:00Z");
    try {
      const nextDay = await trigger(org.key, automation.id, body);
      assert.equal(nextDay.body.queued, true, "another day is another trigger");
    } finally {
      clock.set("2026-06-30T12:00:00Z");
    }
  });

  it("keeps deal_id to 255 characters, the idempotency key's limit (under any alias)", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Won deal", kind: "deal_won" });
    const exact = await trigger(org.key, automation.id, { address: HOME, deal_id: "😀".repeat(255) });
    assert.equal(exact.status, 202, exact.text);
    assert.equal(exact.body.queued, true);
    for (const body of [
      { address: HOME, deal_id: "😀".repeat(256) },
      { properties: { address: HOME, hs_object_id: "x".repeat(256) } },
    ]) {
      const over = await trigger(org.key, automation.id, body);
      assert.equal(over.status, 422, over.text);
      assert.match(over.body.detail, /(deal_id|hs_object_id): must NOT have more than 255 characters/);
    }
    assert.equal((await campaignsOf(org.orgId)).length, 1);
  });

  it("parallel repeats of a deal enqueue one campaign", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Race" });
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => trigger(org.key, automation.id, { address: HOME, deal_id: "D-race" })),
    );
    for (const reply of replies) assert.equal(reply.status, 202, reply.text);
    assert.equal(replies.filter((reply) => reply.body.queued).length, 1);
    assert.equal(new Set(replies.map((reply) => reply.body.queue_id)).size, 1);
    assert.equal((await campaignsOf(org.orgId)).length, 1);
  });

  it("a deal_won automation records the customer and attributes the revenue", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: HOME, mailed_at: "2026-04-01T00:00:00Z" },
    ]);
    const automation = await createAutomation(ctx, org.orgId, { name: "Thank you", kind: "deal_won" });
    const response = await trigger(org.key, automation.id, {
      objectId: 991,
      properties: {
        address: "55 Walnut St",
        city: "Springfield",
        state: "IL",
        zip: "62701",
        amount: "15000",
      },
    });
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.customer_added, true);
    const conversions = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
    assert.equal(conversions.length, 1);
    assert.equal(conversions[0].campaign_id, mailing.campaign_id);
    assert.equal(conversions[0].deal_id, "991");
    assert.equal(conversions[0].deal_amount, "15000");
    const customers = (await admin(ctx, "GET", `/orgs/${org.orgId}/customers`)).body.customers;
    assert.equal(customers.length, 1);
    assert.equal(customers[0].source, "trigger");
  });

  it("takes a HubSpot workflow payload: null fields are absent, closedate in epoch milliseconds", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: HOME, mailed_at: "2026-04-01T00:00:00Z" },
    ]);
    const automation = await createAutomation(ctx, org.orgId, { name: "HubSpot won", kind: "deal_won" });
    const closed = Date.parse("2026-06-15T00:00:00Z");
    const response = await trigger(org.key, automation.id, {
      objectId: 992,
      properties: {
        address: HOME,
        dealname: "Roof",
        closedate: String(closed),
        amount: "9000",
        email: null,
        zip: null,
      },
    });
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.queued, true);
    const conversions = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
    assert.equal(conversions.length, 1);
    assert.equal(conversions[0].campaign_id, mailing.campaign_id);
    assert.equal(conversions[0].deal_date, "2026-06-15T00:00:00.000Z");
    // Epoch seconds as a number read the same; anything else is still a 422 naming the field.
    const seconds = await trigger(org.key, automation.id, {
      deal_id: "993",
      address: HOME,
      close_date: closed / 1000,
    });
    assert.equal(seconds.status, 202, seconds.text);
    const garbage = await trigger(org.key, automation.id, {
      deal_id: "994",
      address: HOME,
      closedate: "soon",
    });
    assert.equal(garbage.status, 422);
    assert.match(garbage.body.detail, /closedate/);
    const after = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
    assert.deepEqual(after.map((row: { deal_date: string }) => row.deal_date).sort(), [
      "2026-06-15T00:00:00.000Z",
      "2026-06-15T00:00:00.000Z",
    ]);
  });

  it("a standard automation records no customer", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Plain" });
    await trigger(org.key, automation.id, { address: HOME });
    assert.equal(await count(ctx, "customers", org.orgId), 0);
  });

  describe("field extraction", () => {
    const cases: { label: string; body: Record<string, unknown> }[] = [
      { label: "address at the top level", body: { address: HOME } },
      {
        label: "street, city, state and zip",
        body: { street: "55 Walnut Street", city: "Springfield", state: "IL", zip: 62701 },
      },
      { label: "properties.address", body: { properties: { address: HOME } } },
      {
        label: "HubSpot street line plus locality under properties",
        body: { properties: { address: "55 Walnut Street", city: "Springfield", state: "IL", zip: "62701" } },
      },
      {
        label: "street, city and zip without a state",
        body: { street: "55 Walnut Street", city: "Springfield", zip: "62701" },
      },
      {
        label: "one line with city and zip but no state",
        body: { address: "55 Walnut St, Springfield 62701" },
      },
      { label: "deal_address", body: { deal_address: HOME } },
      { label: "install_address", body: { install_address: HOME } },
    ];
    for (const { label, body } of cases) {
      it(`reads ${label}`, async () => {
        const org = await createOrg(ctx);
        const automation = await createAutomation(ctx, org.orgId, { name: "Extract" });
        const response = await trigger(org.key, automation.id, body);
        assert.equal(response.status, 202, response.text);
        assert.equal(response.body.queued, true);
        assert.equal(response.body.address, normalizeAddress(HOME));
      });
    }

    it("adds a state whose letters the street holds ('IL' in 'Hill' was taken as already there)", async () => {
      const org = await createOrg(ctx);
      const automation = await createAutomation(ctx, org.orgId, { name: "Hill" });
      const response = await trigger(org.key, automation.id, {
        properties: { address: "100 Hill St", city: "Springfield", state: "IL" },
      });
      assert.equal(response.status, 202, response.text);
      assert.equal(response.body.address, "100 HILL ST, SPRINGFIELD IL");
    });

    it("takes dealId (HubSpot legacy) as the deal id: a repeat is idempotent", async () => {
      const org = await createOrg(ctx);
      const automation = await createAutomation(ctx, org.orgId, { name: "Legacy id" });
      const first = await trigger(org.key, automation.id, { address: HOME, dealId: 4242 });
      assert.equal(first.body.queued, true, first.text);
      const repeat = await trigger(org.key, automation.id, { properties: { address: HOME, dealId: "4242" } });
      assert.equal(repeat.body.idempotent, true);
      assert.equal(repeat.body.queue_id, first.body.queue_id);
    });

    it("reads names and email for the piece and filters", async () => {
      const org = await createOrg(ctx);
      const automation = await createAutomation(ctx, org.orgId, {
        name: "Filtered",
        filters: [{ property: "client_email", op: "contains", value: "@example.com" }],
      });
      const passes = await trigger(org.key, automation.id, {
        properties: { address: HOME, firstname: "Sam", lastname: "Roe", email: "sam@example.com" },
      });
      assert.equal(passes.body.queued, true);
      const filtered = await trigger(org.key, automation.id, { address: HOME, email: "sam@other.net" });
      assert.equal(filtered.status, 202);
      assert.equal(filtered.body.queued, false);
      assert.equal(filtered.body.queue_id, null);
      const pieces = (await campaignsOf(org.orgId)).flatMap((campaign) => campaign.pieces);
      assert.equal(pieces.length, 1);
      assert.equal(pieces[0]!.recipient_name, "Sam Roe");
    });

    it("answers 400 No address found in payload without an address", async () => {
      const org = await createOrg(ctx);
      const automation = await createAutomation(ctx, org.orgId, { name: "No address" });
      const response = await trigger(org.key, automation.id, { deal_id: "1", city: "Springfield" });
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: "No address found in payload" });
      const punctuation = await trigger(org.key, automation.id, { deal_id: "2", address: "!!! ---" });
      assert.deepEqual(
        [punctuation.status, punctuation.body],
        [400, { error: "No address found in payload" }],
      );
    });

    it("reads a null properties object as absent and names every accepted type in a type error", async () => {
      const org = await createOrg(ctx);
      const automation = await createAutomation(ctx, org.orgId, { name: "Nulls" });
      const response = await trigger(org.key, automation.id, {
        address: HOME,
        properties: null,
        deal_id: null,
      });
      assert.equal(response.status, 202, response.text);
      assert.equal(response.body.queued, true);
      const wrong = await trigger(org.key, automation.id, { address: HOME, deal_amount: true });
      assert.equal(wrong.status, 422);
      assert.deepEqual(wrong.body, {
        error: "invalid_payload",
        detail: "deal_amount: must be a string or a number",
      });
    });

    it("reads a formatted amount as the plain decimal (a refused one blocked the whole campaign)", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-04-01T00:00:00Z" }]);
      const automation = await createAutomation(ctx, org.orgId, { name: "Formatted", kind: "deal_won" });
      const response = await trigger(org.key, automation.id, {
        deal_id: "fmt-1",
        properties: { address: HOME, amount: "$1,234.50" },
      });
      assert.equal(response.status, 202, response.text);
      assert.equal(response.body.queued, true);
      const conversions = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
      assert.equal(conversions[0].deal_amount, "1234.50");
      const refused = await trigger(org.key, automation.id, { address: HOME, amount: "12,34" });
      assert.equal(refused.status, 422);
      assert.match(refused.body.detail, /^amount: must be a number or a numeric string/);
    });

    it("rejects a non-numeric amount before enqueueing anything", async () => {
      const org = await createOrg(ctx);
      const automation = await createAutomation(ctx, org.orgId, { name: "Amount" });
      const response = await trigger(org.key, automation.id, { address: HOME, amount: "lots" });
      assert.equal(response.status, 422);
      assert.match(response.body.detail, /^amount/);
      assert.equal((await campaignsOf(org.orgId)).length, 0);
    });
  });

  it("answers the same 404 for a missing or another organization's automation", async () => {
    const org = await createOrg(ctx);
    const other = await createOrg(ctx);
    const foreign = await createAutomation(ctx, other.orgId, { name: "Theirs" });
    const missing = await trigger(org.key, randomUUID(), { address: HOME });
    const notAnId = await trigger(org.key, "42", { address: HOME });
    const theirs = await trigger(org.key, foreign.id, { address: HOME });
    assert.equal(missing.status, 404);
    assert.deepEqual(theirs.body, missing.body);
    assert.deepEqual(notAnId.body, missing.body);
    assert.equal(theirs.status, 404);
    assert.equal((await campaignsOf(other.orgId)).length, 0);
  });

  it("answers the same 404 when the id query parameter is missing or empty", async () => {
    const org = await createOrg(ctx);
    const reference = await trigger(org.key, randomUUID(), { address: HOME });
    const absent = await call(ctx, "POST", "/api/v1/webhooks/trigger", {
      key: org.key,
      body: { address: HOME },
    });
    const empty = await trigger(org.key, "", { address: HOME });
    const twice = await call(ctx, "POST", `/api/v1/webhooks/trigger?id=${randomUUID()}&id=${randomUUID()}`, {
      key: org.key,
      body: { address: HOME },
    });
    for (const response of [absent, empty, twice]) {
      assert.equal(response.status, 404, response.text);
      assert.deepEqual(response.body, reference.body);
    }
    assert.equal((await campaignsOf(org.orgId)).length, 0);
  });

  it("answers 400 Automations are globally disabled while the kill switch is on", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Paused" });
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    try {
      const response = await trigger(org.key, automation.id, { address: HOME });
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: "Automations are globally disabled" });
      assert.equal(response.headers["retry-after"], "300");
      assert.equal((await campaignsOf(org.orgId)).length, 0);
    } finally {
      await admin(ctx, "PUT", "/kill-switch", { paused: false });
      clock.advance(2_000);
    }
  });

  it("mails nothing to an address without a city or ZIP, whole or sent apart (rule 3)", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "No locality" });
    for (const [index, body] of [
      { street: "12 Main Street", state: "TX" },
      { address: "9 Pine Rd, CO" },
    ].entries()) {
      const response = await trigger(org.key, automation.id, { ...body, deal_id: `no-city-${index}` });
      assert.equal(response.status, 202, response.text);
      assert.deepEqual([response.body.queued, response.body.queue_id], [false, null], response.text);
    }
  });

  it("a disabled automation queues nothing", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Off", enabled: false });
    const response = await trigger(org.key, automation.id, { address: HOME });
    assert.equal(response.status, 202);
    assert.equal(response.body.queued, false);
  });

  it("has its own 60/min bucket, separate from events; requires webhooks:inbound", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Limits" });
    clock.set("2026-06-30T14:00:00Z");
    for (let index = 0; index < 60; index++) {
      const response = await trigger(org.key, automation.id, { address: HOME, deal_id: `L-${index}` });
      assert.equal(response.status, 202, response.text);
    }
    const limited = await trigger(org.key, automation.id, { address: HOME });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error, "Too many requests");
    assert.equal(limited.headers["retry-after"], "60");
    const conversion = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { address: HOME },
    });
    assert.equal(conversion.status, 200, "the conversions bucket is separate");
    const eventsOnly = await issueKey(ctx, org.orgId, { scopes: ["events:write"] });
    assert.equal((await trigger(eventsOnly, automation.id, { address: HOME })).status, 403);
    clock.set("2026-06-30T12:00:00Z");
  });
});
