import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { admin, call, createOrg, issueKey, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { conversion, count, landingPageLead } from "./helpers.ts";

const HOME = "123 North Main Street Apt 4, Springfield, IL 62701";
const HOME_VARIANT = "123 N Main St #4 Springfield IL 62701-1234";
const ELSEWHERE = "900 Elm Avenue, Springfield, IL 62702";

/** A landing-page lead on the first piece of a recorded mailing, at `address`. */
function leadOnFirstPiece(
  ctx: TestContext,
  orgId: string,
  mailing: { campaign_id: string; pieces: { id: string }[] },
  address: string,
) {
  return landingPageLead(ctx, {
    orgId,
    id: randomUUID(),
    campaignId: mailing.campaign_id,
    pieceId: mailing.pieces[0]!.id,
    address,
    normalized: normalizeAddress(address),
  });
}

describe(`POST /api/v1/conversions (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-06-30T12:00:00Z");
  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  /** A new org with one piece mailed to `address` on 2026-05-01. */
  async function orgMailedTo(address: string) {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [{ address, mailed_at: "2026-05-01T10:00:00Z" }]);
    return { ...org, mailing };
  }

  it("attributes a won deal to the campaign that mailed the address and records the customer", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: HOME, mailed_at: "2026-03-01T10:00:00Z" },
    ]);
    const response = await conversion(ctx, org.key, {
      address: HOME_VARIANT,
      deal_id: "D-1",
      deal_amount: "12500.50",
      deal_date: "2026-06-15",
      deal_stage: "closedwon",
      deal_name: "Roof",
      contact_email: "pat@example.com",
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), [
      "attribution_type",
      "campaign_id",
      "conversion_id",
      "match_confidence",
      "match_method",
      "matched",
    ]);
    assert.equal(response.body.matched, true);
    assert.equal(response.body.campaign_id, mailing.campaign_id);
    assert.equal(response.body.match_method, "address");
    assert.equal(response.body.match_confidence, "high");
    assert.equal(response.body.attribution_type, "indirect");

    const stored = await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.conversions.length, 1);
    const row = stored.body.conversions[0];
    assert.equal(row.id, response.body.conversion_id);
    assert.equal(row.deal_amount, "12500.50");
    assert.equal(row.deal_stage, "closedwon");
    assert.equal(row.piece_id, mailing.pieces[0]!.id);
    const customerList = await admin(ctx, "GET", `/orgs/${org.orgId}/customers`);
    assert.equal(customerList.body.customers.length, 1);
    assert.equal(customerList.body.customers[0].normalized_address, normalizeAddress(HOME));
    assert.equal(customerList.body.customers[0].source, "conversion");
  });

  it("answers direct when the matched piece has a landing-page lead", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: HOME, mailed_at: "2026-05-01T10:00:00Z" },
    ]);
    await leadOnFirstPiece(ctx, org.orgId, mailing, HOME);
    const response = await conversion(ctx, org.key, { address: HOME, deal_id: "D-direct" });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.attribution_type, "direct");
  });

  describe("the 180-day window", () => {
    const dealDate = "2026-06-30"; // day 180 before is 2026-01-01, day 181 is 2025-12-31
    const cases: { label: string; mailedAt: string; matched: boolean }[] = [
      { label: "day 180 before the close date is in", mailedAt: "2026-01-01T23:00:00Z", matched: true },
      { label: "the first moment of day 180 is in", mailedAt: "2026-01-01T00:00:00Z", matched: true },
      { label: "day 181 before the close date is out", mailedAt: "2025-12-31T23:59:59Z", matched: false },
      {
        label: "a piece mailed later on the close day counts",
        mailedAt: "2026-06-30T20:00:00Z",
        matched: true,
      },
      {
        label: "a piece mailed after the close date is ignored",
        mailedAt: "2026-07-01T00:00:00Z",
        matched: false,
      },
    ];
    for (const { label, mailedAt, matched } of cases) {
      it(label, async () => {
        const org = await createOrg(ctx);
        await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: mailedAt }]);
        const response = await conversion(ctx, org.key, { address: HOME, deal_date: dealDate });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.matched, matched);
      });
    }

    it("with a date-time close date, day 180 is in at any hour and the close instant ends the window", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-01-01T09:59:59Z" }]);
      const sameDay = await conversion(ctx, org.key, { address: HOME, deal_date: "2026-06-30T23:59:59Z" });
      assert.equal(sameDay.body.matched, true);
      const day181 = await conversion(ctx, org.key, { address: HOME, deal_date: "2026-07-01T00:00:00Z" });
      assert.deepEqual(day181.body, { matched: false });
      const later = await createOrg(ctx);
      await recordMailing(ctx, later.orgId, [{ address: HOME, mailed_at: "2026-06-30T10:00:01Z" }]);
      const before = await conversion(ctx, later.key, { address: HOME, deal_date: "2026-06-30T10:00:00Z" });
      assert.deepEqual(before.body, { matched: false }, "a piece mailed after the close instant");
      const at = await conversion(ctx, later.key, { address: HOME, deal_date: "2026-06-30T10:00:01Z" });
      assert.equal(at.body.matched, true);
    });

    it("counts calendar days alike for a bare date, a date-time and no date (now)", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-29T12:00:00Z" }]);
      clock.set("2026-11-25T18:00:00Z"); // the UTC day 180 days after the mailing's
      try {
        const dealDates = ["2026-11-25", "2026-11-25T23:59:00Z", "2026-11-25T00:00:00Z", undefined];
        for (const [index, dealDate] of dealDates.entries()) {
          const response = await conversion(ctx, org.key, {
            address: HOME,
            deal_date: dealDate,
            deal_id: `W-${index}`,
          });
          assert.equal(response.body.matched, true, String(dealDate));
        }
        for (const dealDate of ["2026-11-26", "2026-11-26T00:00:00Z"]) {
          const response = await conversion(ctx, org.key, {
            address: HOME,
            deal_date: dealDate,
            deal_id: dealDate,
          });
          assert.deepEqual(response.body, { matched: false }, dealDate);
        }
      } finally {
        clock.set("2026-06-30T12:00:00Z");
      }
    });

    it("defaults the reference date to now", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-07-01T00:00:00Z" }]);
      assert.deepEqual((await conversion(ctx, org.key, { address: HOME })).body, { matched: false });
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-06-30T11:00:00Z" }]);
      assert.equal((await conversion(ctx, org.key, { address: HOME, deal_id: "x" })).body.matched, true);
    });

    it("dates a deal sent without a close date when it is received, and a replay keeps that date", async () => {
      const { orgId, key } = await orgMailedTo(HOME);
      const first = await conversion(ctx, key, { address: HOME, deal_id: "undated" });
      assert.equal(first.body.matched, true, first.text);
      clock.set("2026-07-02T09:00:00Z");
      try {
        const replay = await conversion(ctx, key, { address: HOME, deal_id: "undated", deal_amount: "900" });
        assert.equal(replay.body.conversion_id, first.body.conversion_id);
      } finally {
        clock.set("2026-06-30T12:00:00Z");
      }
      const stored = await admin(ctx, "GET", `/orgs/${orgId}/conversions`);
      assert.equal(stored.body.conversions.length, 1);
      assert.equal(stored.body.conversions[0].deal_date, "2026-06-30T12:00:00.000Z");
      assert.equal(stored.body.conversions[0].deal_amount, "900");
    });
  });

  it("picks the latest mailing among several pieces at the address (last touch)", async () => {
    const org = await createOrg(ctx);
    await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-02-01T10:00:00Z" }], "February");
    const april = await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-04-01T10:00:00Z" }]);
    await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-03-01T10:00:00Z" }], "March");
    await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-06-20T10:00:00Z" }], "After");
    const response = await conversion(ctx, org.key, { address: HOME, deal_date: "2026-06-01" });
    assert.equal(response.body.campaign_id, april.campaign_id);
  });

  it("never matches another organization's mailing at the identical address", async () => {
    const mailer = await createOrg(ctx);
    const other = await createOrg(ctx);
    const mailing = await recordMailing(ctx, mailer.orgId, [
      { address: HOME, mailed_at: "2026-05-01T00:00:00Z" },
    ]);
    assert.deepEqual((await conversion(ctx, other.key, { address: HOME })).body, { matched: false });
    const named = await conversion(ctx, other.key, { address: HOME, campaign_id: mailing.campaign_id });
    assert.deepEqual(named.body, { matched: false });
    assert.equal(await count(ctx, "conversions", other.orgId), 0);
    assert.equal(await count(ctx, "customers", other.orgId), 1);
  });

  it("attributes exactly to a named campaign of the org, whatever the address", async () => {
    const org = await createOrg(ctx);
    const named = await recordMailing(ctx, org.orgId, [
      { address: ELSEWHERE, mailed_at: "2026-02-01T00:00:00Z" },
    ]);
    await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
    // The campaign's other home has a landing-page lead: that lead is not this deal's.
    await leadOnFirstPiece(ctx, org.orgId, named, ELSEWHERE);
    const response = await conversion(ctx, org.key, { address: HOME, campaign_id: named.campaign_id });
    assert.equal(response.body.campaign_id, named.campaign_id);
    assert.equal(response.body.match_method, "campaign_id");
    assert.equal(response.body.match_confidence, "exact");
    assert.equal(response.body.attribution_type, "indirect");
    const atThatHome = await conversion(ctx, org.key, { address: ELSEWHERE, campaign_id: named.campaign_id });
    assert.equal(atThatHome.body.match_method, "campaign_id");
    assert.equal(atThatHome.body.attribution_type, "direct");
    // The same home written without its ZIP is still the campaign's piece there (and its lead).
    const withoutZip = await conversion(ctx, org.key, {
      address: "900 Elm Avenue, Springfield, IL",
      campaign_id: named.campaign_id,
      deal_id: "no-zip",
    });
    assert.equal(withoutZip.body.attribution_type, "direct", withoutZip.text);
  });

  it("falls back to the address when the named campaign is unknown or mailed outside the window", async () => {
    const org = await createOrg(ctx);
    const old = await recordMailing(ctx, org.orgId, [
      { address: ELSEWHERE, mailed_at: "2025-01-01T00:00:00Z" },
    ]);
    const recent = await recordMailing(ctx, org.orgId, [
      { address: HOME, mailed_at: "2026-05-01T00:00:00Z" },
    ]);
    for (const campaignId of [old.campaign_id, randomUUID(), "not-a-uuid"]) {
      const response = await conversion(ctx, org.key, {
        address: HOME,
        campaign_id: campaignId,
        deal_id: campaignId,
      });
      assert.equal(response.body.campaign_id, recent.campaign_id, campaignId);
      assert.equal(response.body.match_method, "address");
    }
  });

  it("stores nothing but the customer for an unmatched deal", async () => {
    const org = await createOrg(ctx);
    const response = await conversion(ctx, org.key, { address: HOME, deal_id: "D-9", deal_amount: 10 });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { matched: false });
    assert.equal(await count(ctx, "conversions", org.orgId), 0);
    assert.equal(await count(ctx, "customers", org.orgId), 1);
  });

  describe("idempotency", () => {
    it("a replay with the same deal_id returns the same conversion and updates amount and stage", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
      const first = await conversion(ctx, org.key, {
        address: HOME,
        deal_id: "D-7",
        deal_amount: 100,
        deal_stage: "contract",
        deal_name: "Siding",
      });
      const replay = await conversion(ctx, org.key, {
        address: HOME,
        deal_id: "D-7",
        deal_amount: "250.75",
        deal_stage: "won",
      });
      assert.equal(replay.body.conversion_id, first.body.conversion_id);
      const rows = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
      assert.equal(rows.length, 1);
      assert.equal(rows[0].deal_amount, "250.75");
      assert.equal(rows[0].deal_stage, "won");
      assert.equal(rows[0].deal_name, "Siding", "a field the replay leaves out keeps its value");
    });

    it("without a deal_id, the normalized address plus the close date is the key", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
      const first = await conversion(ctx, org.key, { address: HOME, deal_date: "2026-06-01" });
      const sameDay = await conversion(ctx, org.key, {
        address: HOME_VARIANT,
        deal_date: "2026-06-01T18:30:00Z",
      });
      const nextDay = await conversion(ctx, org.key, { address: HOME, deal_date: "2026-06-02" });
      assert.equal(sameDay.body.conversion_id, first.body.conversion_id);
      assert.notEqual(nextDay.body.conversion_id, first.body.conversion_id);
      assert.equal(await count(ctx, "conversions", org.orgId), 2);
    });

    it("50 parallel replays make one conversion", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          conversion(ctx, org.key, { address: HOME, deal_id: "D-race", deal_amount: index }),
        ),
      );
      for (const reply of replies) assert.equal(reply.status, 200, reply.text);
      assert.equal(new Set(replies.map((reply) => reply.body.conversion_id)).size, 1);
      assert.equal(await count(ctx, "conversions", org.orgId), 1);
      assert.equal(await count(ctx, "customers", org.orgId), 1);
    });
  });

  describe("field aliases", () => {
    const aliasCases: { label: string; body: Record<string, unknown> }[] = [
      { label: "flat address", body: { address: HOME } },
      { label: "properties.address", body: { properties: { address: HOME } } },
      { label: "deal_address", body: { deal_address: HOME } },
      { label: "install_address", body: { install_address: HOME } },
      { label: "properties.deal_address", body: { properties: { deal_address: HOME } } },
    ];
    for (const { label, body } of aliasCases) {
      it(`reads the address from ${label}`, async () => {
        const org = await createOrg(ctx);
        await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
        const response = await conversion(ctx, org.key, body);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.matched, true);
      });
    }

    it("reads deal_id from deal_id, properties.hs_object_id and objectId alike", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
      const bodies = [
        { address: HOME, deal_id: "4242", deal_date: "2026-06-01" },
        { properties: { address: HOME, hs_object_id: "4242", deal_date: "2026-06-02" } },
        { objectId: 4242, properties: { address: HOME }, deal_date: "2026-06-03" },
      ];
      const ids = new Set<string>();
      for (const body of bodies) {
        const response = await conversion(ctx, org.key, body);
        assert.equal(response.status, 200, response.text);
        ids.add(response.body.conversion_id);
      }
      assert.equal(ids.size, 1);
    });

    it("a flat field wins over the same field under properties, and other fields under properties are read", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
      await conversion(ctx, org.key, {
        address: HOME,
        deal_amount: 5,
        properties: { address: ELSEWHERE, deal_amount: "7", deal_stage: "won", contact_name: "Pat Lee" },
      });
      const row = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions[0];
      assert.equal(row.normalized_address, normalizeAddress(HOME));
      assert.equal(row.deal_amount, "5");
      assert.equal(row.deal_stage, "won");
      assert.equal(row.contact_name, "Pat Lee");
    });

    it("accepts and ignores fields it does not know", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T00:00:00Z" }]);
      const response = await conversion(ctx, org.key, {
        address: HOME,
        hubspot_owner_id: 77,
        pipeline: "default",
        org_id: randomUUID(),
        properties: { dealtype: "newbusiness", num_notes: 3 },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.matched, true);
    });
  });

  describe("validation", () => {
    it("answers 400 No address found in payload when no alias holds an address", async () => {
      const org = await createOrg(ctx);
      for (const body of [
        {},
        { deal_id: "1" },
        { address: "   " },
        { properties: { address: "" } },
        { address: "!!!" },
        { address: "--- ?" },
      ]) {
        const response = await conversion(ctx, org.key, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.deepEqual(response.body, { error: "No address found in payload" });
      }
      assert.equal(await count(ctx, "customers", org.orgId), 0);
    });

    it("accepts deal_amount as a number or a numeric string and rejects anything else naming the field", async () => {
      const org = await createOrg(ctx);
      for (const amount of [12500, 0.5, "12500", " 99.95 ", "-10", ""]) {
        const response = await conversion(ctx, org.key, { address: HOME, deal_amount: amount });
        assert.equal(response.status, 200, `${JSON.stringify(amount)}: ${response.text}`);
      }
      const cases: [unknown, string][] = [
        [{ address: HOME, deal_amount: "12,34" }, "deal_amount"],
        [{ address: HOME, deal_amount: "1,2345" }, "deal_amount"],
        [{ address: HOME, deal_amount: "abc" }, "deal_amount"],
        [{ address: HOME, deal_amount: "1.2.3" }, "deal_amount"],
        [{ address: HOME, deal_amount: "1e5" }, "deal_amount"],
        [{ address: HOME, deal_amount: "$" }, "deal_amount"],
        [{ address: HOME, deal_amount: "$-5" }, "deal_amount"],
        [{ address: HOME, deal_amount: true }, "deal_amount"],
        [{ address: HOME, deal_amount: [1] }, "deal_amount"],
        [{ address: HOME, properties: { deal_amount: "5 USD" } }, "properties.deal_amount"],
      ];
      for (const [body, field] of cases) {
        const response = await conversion(ctx, org.key, body);
        assert.equal(response.status, 422, JSON.stringify(body));
        assert.equal(response.body.error, "invalid_payload");
        assert.ok(response.body.detail.startsWith(field), response.body.detail);
      }
    });

    it("reads a formatted amount ($, thousands separators, spaces) as the plain decimal", async () => {
      const cases: [string, string][] = [
        ["1,234.50", "1234.50"],
        ["$1,234", "1234"],
        [" $12,500.00 ", "12500.00"],
        ["-$1,234.5", "-1234.5"],
        ["$1,000,000", "1000000"],
        ["$99", "99"],
      ];
      for (const [sent, stored] of cases) {
        const org = await createOrg(ctx);
        await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-05-01T10:00:00Z" }]);
        const response = await conversion(ctx, org.key, {
          address: HOME,
          deal_id: "D-fmt",
          deal_amount: sent,
        });
        assert.equal(response.status, 200, `${sent}: ${response.text}`);
        assert.equal(response.body.matched, true);
        const rows = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
        assert.equal(rows[0].deal_amount, stored, sent);
      }
    });

    it("a close date still ahead (a forecast date, a year typo) matches the mail sent until now, kept as sent", async () => {
      const org = await createOrg(ctx);
      const mailing = await recordMailing(ctx, org.orgId, [
        { address: HOME, mailed_at: "2026-05-01T10:00:00Z" },
      ]);
      const ahead = await conversion(ctx, org.key, {
        address: HOME,
        deal_id: "forecast-2030",
        deal_amount: "4200",
        deal_date: "2030-01-01",
      });
      assert.equal(ahead.status, 200, ahead.text);
      assert.equal(ahead.body.matched, true, "the revenue is the card's, not lost");
      assert.equal(ahead.body.campaign_id, mailing.campaign_id);
      const [stored] = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
      assert.match(stored.deal_date, /^2030-01-01/, "the close date as the CRM sent it");
      assert.equal(await count(ctx, "customers", org.orgId), 1, "the home is a customer either way");
    });

    it("rejects a deal_date that is not an ISO-8601 date", async () => {
      const org = await createOrg(ctx);
      // Year 1: its 180-day window would start in year 0, which PostgreSQL refuses (was a 500).
      for (const dealDate of ["yesterday", "2026-02-30", "06/01/2026", "0001-01-01", "2026-05-01T99:00Z"]) {
        const response = await conversion(ctx, org.key, { address: HOME, deal_date: dealDate });
        assert.equal(response.status, 422, dealDate);
        assert.match(response.body.detail, /^deal_date/);
      }
    });

    it("rejects a documented field of the wrong type naming it and every type it accepts", async () => {
      const org = await createOrg(ctx);
      const cases: [Record<string, unknown>, string][] = [
        [{ deal_stage: 5 }, "deal_stage: must be a string"],
        [{ deal_amount: true }, "deal_amount: must be a number or a numeric string"],
        [
          { properties: { deal_amount: [1] } },
          "properties.deal_amount: must be a number or a numeric string",
        ],
        [{ deal_id: true }, "deal_id: must be a string or an integer"],
        [{ objectId: 1.5 }, "objectId: must be a string or an integer"],
        [{ properties: "deal" }, "properties: must be an object"],
      ];
      for (const [fields, detail] of cases) {
        const response = await conversion(ctx, org.key, { address: HOME, ...fields });
        assert.equal(response.status, 422, JSON.stringify(fields));
        assert.deepEqual(response.body, { error: "invalid_payload", detail });
      }
    });

    it("reads null as absent in every optional field (CRMs send null for an empty property)", async () => {
      const org = await createOrg(ctx);
      const mailing = await recordMailing(ctx, org.orgId, [
        { address: HOME, mailed_at: "2026-05-01T00:00:00Z" },
      ]);
      const optional = {
        deal_id: null,
        hs_object_id: null,
        objectId: null,
        deal_amount: null,
        deal_date: null,
        campaign_id: null,
        deal_stage: null,
        deal_name: null,
        contact_first_name: null,
        contact_last_name: null,
        contact_name: null,
        contact_email: null,
      };
      for (const body of [
        { address: HOME, ...optional, properties: null },
        { deal_address: null, properties: { address: HOME, ...optional } },
      ]) {
        const response = await conversion(ctx, org.key, body);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.campaign_id, mailing.campaign_id);
      }
      const row = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions[0];
      assert.equal(row.deal_amount, null);
      assert.equal(row.deal_id, null);
      for (const body of [{ address: null }, { properties: { address: null } }]) {
        const response = await conversion(ctx, org.key, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.deepEqual(response.body, { error: "No address found in payload" });
      }
    });

    it("answers 400 invalid_json for malformed JSON and 413 over 1 MiB", async () => {
      const org = await createOrg(ctx);
      const malformed = await call(ctx, "POST", "/api/v1/conversions", {
        key: org.key,
        payload: "{nope",
        headers: { "content-type": "application/json" },
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error, "invalid_json");
      const huge = await conversion(ctx, org.key, { address: HOME, padding: "x".repeat(1_048_576) });
      assert.equal(huge.status, 413);
      assert.equal(huge.body.error, "payload_too_large");
      assert.match(huge.body.detail, /1048576/);
    });
  });

  describe("authentication and limits", () => {
    it("answers 401 Unauthorized without a key and 403 for a key without webhooks:inbound", async () => {
      const org = await createOrg(ctx);
      const missing = await call(ctx, "POST", "/api/v1/conversions", { body: { address: HOME } });
      assert.equal(missing.status, 401);
      assert.deepEqual(missing.body, { error: "Unauthorized" });
      const eventsOnly = await issueKey(ctx, org.orgId, { scopes: ["events:write"] });
      const denied = await conversion(ctx, eventsOnly, { address: HOME });
      assert.equal(denied.status, 403);
      assert.deepEqual(denied.body, { error: "Unauthorized" });
      const inbound = await issueKey(ctx, org.orgId, { scopes: ["webhooks:inbound"] });
      assert.equal((await conversion(ctx, inbound, { address: HOME })).status, 200);
    });

    it("allows 60 per minute per org, then 429 Too many requests with Retry-After: 60", async () => {
      const org = await createOrg(ctx);
      const other = await createOrg(ctx);
      clock.set("2026-06-30T12:10:00Z");
      for (let index = 0; index < 60; index++) {
        const response = await conversion(ctx, org.key, {
          address: `${index} Oak St, Springfield, IL 62701`,
        });
        assert.equal(response.status, 200, response.text);
      }
      const limited = await conversion(ctx, org.key, { address: HOME });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error, "Too many requests");
      assert.equal(limited.headers["retry-after"], "60");
      assert.equal((await conversion(ctx, other.key, { address: HOME })).status, 200, "another org's bucket");
      const tracking = await call(ctx, "POST", "/api/v1/tracking/lead", {
        key: org.key,
        body: { address: HOME },
      });
      assert.equal(tracking.status, 200, "the tracking bucket is separate");
      clock.set("2026-06-30T12:11:00Z");
      assert.equal((await conversion(ctx, org.key, { address: HOME })).status, 200, "the window resets");
      clock.set("2026-06-30T12:00:00Z");
    });
  });

  describe("an address sent apart (HubSpot's `address` is the street line only)", () => {
    async function customerKeys(orgId: string) {
      const listed = (await admin(ctx, "GET", `/orgs/${orgId}/customers`)).body.customers;
      return listed.map((customer: { normalized_address: string }) => customer.normalized_address);
    }

    const cases: { label: string; mailed: string; body: Record<string, unknown> }[] = [
      {
        label: "a HubSpot deal: street, city, state and zip under properties",
        mailed: "50 Oak Ave, Chicago, IL 60601",
        body: {
          properties: {
            hs_object_id: "555",
            address: "50 Oak Ave",
            city: "Chicago",
            state: "IL",
            zip: "60601",
          },
        },
      },
      {
        label: "flat fields with the ZIP as a number (Zapier)",
        mailed: "77 Elm St, Austin, TX 78701",
        body: { deal_id: "9404", address: "77 Elm St", city: "Austin", zip: 78701 },
      },
      {
        label: "a street with postal_code and zipcode aliases, flat and nested mixed",
        mailed: "50 Oak Ave, Chicago, IL 60601",
        body: { street: "50 Oak Ave", properties: { city: "Chicago", postal_code: "60601" } },
      },
      {
        label: "a ZIP number that lost its leading zero",
        mailed: "9 Beacon St, Boston, MA 02134",
        body: { address: "9 Beacon St", city: "Boston", state: "MA", zipcode: 2134 },
      },
      {
        label: "a street naming the city and a state its letters hold",
        mailed: "100 Hill St, Chicago, IL 60601",
        body: { address: "100 Hill St", city: "Chicago", state: "IL", zip: "60601" },
      },
      {
        label: "a street named after its own city",
        mailed: "500 Chicago Ave, Chicago, IL 60601",
        body: { address: "500 Chicago Ave", city: "Chicago", state: "IL", zip: "60601" },
      },
    ];
    for (const { label, mailed, body } of cases) {
      it(`matches ${label} and records that home as the customer`, async () => {
        const org = await orgMailedTo(mailed);
        const response = await conversion(ctx, org.key, body);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.matched, true, label);
        assert.equal(response.body.campaign_id, org.mailing.campaign_id);
        assert.deepEqual(await customerKeys(org.orgId), [normalizeAddress(mailed)]);
      });
    }

    it("keeps the city, state and zip an address already names over conflicting ones sent apart", async () => {
      const org = await orgMailedTo(HOME);
      const response = await conversion(ctx, org.key, {
        address: HOME,
        city: "Chicago",
        state: "WI",
        zip: "60601",
      });
      assert.equal(response.body.matched, true, response.text);
      assert.deepEqual(await customerKeys(org.orgId), [normalizeAddress(HOME)]);
    });

    it("still answers 400 No address found when only the locality is sent", async () => {
      const org = await createOrg(ctx);
      const response = await conversion(ctx, org.key, { city: "Chicago", state: "IL", zip: "60601" });
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: "No address found in payload" });
    });
  });

  describe("the same home written with more or less of its locality", () => {
    it("matches a deal without the city or without the ZIP (medium), and the full address (high)", async () => {
      const cases: [string, string, string][] = [
        ["600 Touch Ln, Springfield, IL 62704", "600 Touch Ln, 62704", "medium"],
        ["600 Touch Ln, Springfield, IL 62704", "600 Touch Lane, Springfield, IL", "medium"],
        ["600 Touch Ln, 62704", "600 Touch Ln, Springfield, IL 62704", "medium"],
        ["600 Touch Ln, Springfield, IL", "600 Touch Ln, Springfield, IL 62704", "medium"],
        ["600 Touch Ln, Springfield, IL", "600 Touch Ln, 62704", "medium"],
        ["600 Touch Ln, Springfield, IL 62704", "600 TOUCH LANE, SPRINGFIELD IL 62704", "high"],
      ];
      for (const [mailed, sent, confidence] of cases) {
        const org = await orgMailedTo(mailed);
        const response = await conversion(ctx, org.key, { address: sent, deal_id: "d-1" });
        assert.equal(response.body.matched, true, `${mailed} ← ${sent}: ${response.text}`);
        assert.equal(response.body.campaign_id, org.mailing.campaign_id);
        assert.equal(response.body.match_method, "address");
        assert.equal(response.body.match_confidence, confidence, `${mailed} ← ${sent}`);
      }
    });

    it("matches a card mailed to a street named like a street type, written with its ZIP only", async () => {
      // "Creek" and "Rd" are both street types: the key read "Rd" as a town ("40 MILL CRK, RD IL 62704").
      const cases: [string, string][] = [
        ["40 Mill Creek Rd, 62704", "40 Mill Creek Rd, Springfield, IL 62704"],
        ["40 Mill Creek Rd, Springfield, IL 62704", "40 mill creek rd., 62704"],
      ];
      for (const [mailed, sent] of cases) {
        const org = await orgMailedTo(mailed);
        const response = await conversion(ctx, org.key, { address: sent, deal_id: "d-3" });
        assert.equal(response.body.matched, true, `${mailed} ← ${sent}: ${response.text}`);
        assert.equal(response.body.campaign_id, org.mailing.campaign_id);
        assert.equal(response.body.match_method, "address");
        assert.equal(response.body.match_confidence, "medium", `${mailed} ← ${sent}`);
      }
    });

    it("matches a card mailed to a street whose name opens with a street type, written another way", async () => {
      // "Ave of the Americas" kept AVE where "Avenue of the Americas" kept AVENUE, and without the
      // town "of the Americas" was read as the town (2 AVE, OF THE AMERICAS NY 10036).
      const cases: [string, string, string][] = [
        ["2 Avenue of the Americas, New York, NY 10036", "2 Ave of the Americas, New York NY 10036", "high"],
        [
          "2 Ave. of the Americas, New York, NY 10036",
          "2 avenue of the americas, new york, ny 10036",
          "high",
        ],
        ["2 Ave of the Americas, NY 10036", "2 Avenue of the Americas, New York, NY 10036", "medium"],
        [
          "300 Blvd of the Allies, Pittsburgh, PA 15222",
          "300 Boulevard of the Allies, Pittsburgh, PA 15222",
          "high",
        ],
      ];
      for (const [mailed, sent, confidence] of cases) {
        const org = await orgMailedTo(mailed);
        const response = await conversion(ctx, org.key, { address: sent, deal_id: "d-4" });
        assert.equal(response.body.matched, true, `${mailed} ← ${sent}: ${response.text}`);
        assert.equal(response.body.campaign_id, org.mailing.campaign_id);
        assert.equal(response.body.match_confidence, confidence, `${mailed} ← ${sent}`);
      }
    });

    it("matches a card mailed to a street without a type before a town ending like one, with or without commas", async () => {
      // "100 Broadway, Long Beach, CA" was 100 BROADWAY LONG BCH (the town read into the street).
      const cases: [string, string][] = [
        ["100 Broadway, Long Beach, CA 90802", "100 Broadway Long Beach CA 90802"],
        ["10 Via Roma Newport Beach CA 92660", "10 Via Roma, Newport Beach, CA 92660"],
        ["20 Calle Ocho, Coral Gables, FL 33134", "20 Calle Ocho Coral Gables FL 33134"],
      ];
      for (const [mailed, sent] of cases) {
        const org = await orgMailedTo(mailed);
        const response = await conversion(ctx, org.key, { address: sent, deal_id: "d-5" });
        assert.equal(response.body.matched, true, `${mailed} ← ${sent}: ${response.text}`);
        assert.equal(response.body.campaign_id, org.mailing.campaign_id);
        assert.equal(response.body.match_confidence, "high", `${mailed} ← ${sent}`);
      }
      const org = await orgMailedTo("100 Broadway, Long Beach, CA 90802");
      const elsewhere = await conversion(ctx, org.key, {
        address: "100 Broadway, New York, NY 10006",
        deal_id: "d-6",
      });
      assert.deepEqual(elsewhere.body, { matched: false });
    });

    it("matches a card mailed with a neighborhood's or borough's name to the deal written with its ZIP's town", async () => {
      // The card's key names a neighborhood ("HOLLYWOOD CA 90028"), which is none of the keys the
      // deal's address can be written under: the home is found by its street and the rule of sameHome.
      const cases: [string, string][] = [
        ["6801 Hollywood Blvd, Hollywood, CA 90028", "6801 Hollywood Blvd, Los Angeles, CA 90028"],
        ["6801 Hollywood Blvd, Hollywood, CA 90028", "6801 Hollywood Boulevard, Los Angeles, CA"],
        ["500 Court St, New York, NY 11231", "500 Court St, Brooklyn, NY 11231"],
      ];
      for (const [mailed, sent] of cases) {
        const org = await orgMailedTo(mailed);
        const response = await conversion(ctx, org.key, { address: sent, deal_id: "d-7" });
        assert.equal(response.body.matched, true, `${mailed} ← ${sent}: ${response.text}`);
        assert.equal(response.body.campaign_id, org.mailing.campaign_id);
        assert.equal(response.body.match_method, "address");
        assert.equal(response.body.match_confidence, "medium", `${mailed} ← ${sent}`);
      }
      const org = await orgMailedTo("6801 Hollywood Blvd, Hollywood, CA 90028");
      const elsewhere = await conversion(ctx, org.key, {
        address: "6801 Hollywood Blvd, San Diego, CA 92101",
        deal_id: "d-8",
      });
      assert.deepEqual(elsewhere.body, { matched: false }, "the same street in another town");
    });

    it("never matches the same street in another town, or a street with no locality in common", async () => {
      const cases: [string, string][] = [
        ["600 Touch Ln, Springfield, IL 62704", "600 Touch Ln, Chicago, IL 60601"],
        ["600 Touch Ln, Springfield, IL 62704", "600 Touch Ln, 60601"],
        ["600 Touch Ln, Springfield, IL 62704", "600 Touch Ln, Springfield, MO"],
        ["600 Touch Ln, Springfield, IL 62704", "600 Touch Ln"],
        ["600 Touch Ln Apt 2, Springfield, IL 62704", "600 Touch Ln, 62704"],
      ];
      for (const [mailed, sent] of cases) {
        const org = await orgMailedTo(mailed);
        const response = await conversion(ctx, org.key, { address: sent, deal_id: "d-2" });
        assert.deepEqual(response.body, { matched: false }, `${mailed} ← ${sent}`);
      }
    });
  });

  describe("HubSpot's deal property names (the trigger's aliases)", () => {
    it("reads amount, dealname, dealstage and an epoch-millisecond closedate under properties", async () => {
      const org = await createOrg(ctx);
      const mailing = await recordMailing(ctx, org.orgId, [
        { address: HOME, mailed_at: "2026-03-01T10:00:00Z" },
      ]);
      const response = await conversion(ctx, org.key, {
        properties: {
          hs_object_id: "555",
          address: HOME,
          amount: "1,234.50",
          dealname: "Roof",
          dealstage: "closedwon",
          closedate: String(Date.parse("2026-06-15T00:00:00Z")),
        },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.campaign_id, mailing.campaign_id);
      const row = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions[0];
      assert.equal(row.deal_id, "555");
      assert.equal(row.deal_amount, "1234.50");
      assert.equal(row.deal_name, "Roof");
      assert.equal(row.deal_stage, "closedwon");
      assert.equal(row.deal_date, "2026-06-15T00:00:00.000Z");
    });

    it("reads deal_date as epoch seconds or milliseconds, as text or a number, and the window follows it", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-03-01T10:00:00Z" }]);
      const inWindow = Date.parse("2026-06-15T00:00:00Z");
      const before = Date.parse("2026-02-01T00:00:00Z");
      const cases: [unknown, boolean][] = [
        [inWindow, true],
        [String(inWindow / 1000), true],
        [inWindow / 1000, true],
        [String(before), false],
      ];
      for (const [index, [dealDate, matched]] of cases.entries()) {
        const response = await conversion(ctx, org.key, {
          address: HOME,
          deal_id: `epoch-${index}`,
          closedate: dealDate,
        });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.matched, matched, JSON.stringify(dealDate));
      }
      const refused = await conversion(ctx, org.key, { address: HOME, closedate: "12345" });
      assert.equal(refused.status, 422);
      assert.match(refused.body.detail, /^closedate/);
    });

    it("takes dealId (HubSpot legacy) as the deal id, and the spec's names over HubSpot's", async () => {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: HOME, mailed_at: "2026-03-01T10:00:00Z" }]);
      const first = await conversion(ctx, org.key, {
        address: HOME,
        dealId: 7001,
        deal_amount: "500",
        amount: "900",
        deal_stage: "won",
        status: "open",
        deal_name: "Spec",
        properties: { dealname: "HubSpot" },
      });
      assert.equal(first.status, 200, first.text);
      const replay = await conversion(ctx, org.key, { address: HOME, properties: { dealId: "7001" } });
      assert.equal(replay.body.conversion_id, first.body.conversion_id);
      const rows = (await admin(ctx, "GET", `/orgs/${org.orgId}/conversions`)).body.conversions;
      assert.equal(rows.length, 1);
      assert.equal(rows[0].deal_id, "7001");
      assert.equal(rows[0].deal_amount, "500");
      assert.equal(rows[0].deal_stage, "won");
      assert.equal(rows[0].deal_name, "Spec");
    });
  });
});
