import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { AttributionDeps } from "../../src/attribution/deps.ts";
import { recordTrackingLead } from "../../src/attribution/tracking-lead.ts";
import { fixedClock } from "../../src/clock.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { admin, createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { count, landingPageLead, trackingLead } from "./helpers.ts";

const HOME = "77 Lake Shore Drive, Springfield, IL 62704";

describe(`POST /api/v1/tracking/lead (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-06-30T12:00:00Z");
  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  async function mailedOrg() {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: HOME, mailed_at: "2026-05-01T00:00:00Z" },
    ]);
    return { ...org, mailing };
  }

  /** A mailed org whose card at HOME was answered on its landing page: that direct lead's id. */
  async function mailedOrgWithLandingPageLead() {
    const org = await mailedOrg();
    const directId = randomUUID();
    await landingPageLead(ctx, {
      orgId: org.orgId,
      id: directId,
      campaignId: org.mailing.campaign_id,
      pieceId: org.mailing.pieces[0]!.id,
      address: HOME,
      normalized: normalizeAddress(HOME),
    });
    return { org, directId };
  }

  it("records an indirect crm_sync lead against the mailed campaign", async () => {
    const org = await mailedOrg();
    const response = await trackingLead(ctx, org.key, {
      address: HOME,
      first_name: "Pat",
      last_name: "Lee",
      email: "pat@example.com",
      crm_record_id: "C-1",
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.matched, true);
    assert.equal(response.body.duplicate, false);
    assert.equal(response.body.campaign_id, org.mailing.campaign_id);
    assert.equal(response.body.attribution_type, "indirect");
    const leads = (await admin(ctx, "GET", `/orgs/${org.orgId}/leads`)).body.leads;
    assert.equal(leads.length, 1);
    assert.equal(leads[0].id, response.body.lead_id);
    assert.equal(leads[0].source, "crm_sync");
    assert.equal(leads[0].attribution_type, "indirect");
    assert.equal(leads[0].piece_id, org.mailing.pieces[0]!.id);
  });

  it("discards an unmatched lead", async () => {
    const org = await createOrg(ctx);
    const response = await trackingLead(ctx, org.key, { address: HOME, email: "a@example.com" });
    assert.deepEqual(response.body, { matched: false });
    assert.equal(await count(ctx, "leads", org.orgId), 0);
  });

  it("honours the 180-day window from created_at", async () => {
    const org = await mailedOrg();
    const late = await trackingLead(ctx, org.key, { address: HOME, created_at: "2026-10-29T00:00:00Z" });
    assert.deepEqual(late.body, { matched: false });
    const early = await trackingLead(ctx, org.key, { address: HOME, created_at: "2026-04-30T00:00:00Z" });
    assert.deepEqual(early.body, { matched: false });
    for (const createdAt of ["2026-10-28T00:00:00Z", "2026-10-28T23:59:59Z", "2026-10-28"]) {
      const inside = await trackingLead(ctx, org.key, { address: HOME, created_at: createdAt });
      assert.equal(inside.body.matched, true, createdAt);
    }
    for (const createdAt of ["last week", "0001-01-01T00:00:00Z"]) {
      const bad = await trackingLead(ctx, org.key, { address: HOME, created_at: createdAt });
      assert.equal(bad.status, 422, createdAt);
      assert.match(bad.body.detail, /^created_at/);
    }
  });

  describe("idempotency", () => {
    const keyCases: { label: string; first: Record<string, string>; replay: Record<string, string> }[] = [
      {
        label: "crm_record_id first, even when email differs",
        first: { crm_record_id: "R-1", email: "one@example.com" },
        replay: { crm_record_id: "R-1", email: "two@example.com" },
      },
      {
        label: "then email, compared without case",
        first: { email: "Pat@Example.com" },
        replay: { email: "pat@example.com", phone: "555" },
      },
      {
        label: "then phone, compared by digits",
        first: { phone: "(217) 555-0100" },
        replay: { phone: "+1 217 555 0100" },
      },
    ];
    for (const { label, first, replay } of keyCases) {
      it(`dedups by ${label}`, async () => {
        const org = await mailedOrg();
        const a = await trackingLead(ctx, org.key, { address: HOME, ...first });
        const b = await trackingLead(ctx, org.key, { address: HOME, ...replay });
        assert.equal(a.body.duplicate, false);
        assert.equal(b.body.duplicate, true);
        assert.equal(b.body.lead_id, a.body.lead_id);
        assert.equal(await count(ctx, "leads", org.orgId), 1);
      });
    }

    for (const key of [{ crm_record_id: "b1" }, { email: "pat@example.com" }, { phone: "217-555-0100" }]) {
      it(`a replay by ${Object.keys(key)[0]} answers its first lead after a landing-page lead arrived`, async () => {
        const org = await mailedOrg();
        const first = await trackingLead(ctx, org.key, { address: HOME, ...key });
        assert.equal(first.body.duplicate, false);
        await landingPageLead(ctx, {
          orgId: org.orgId,
          id: randomUUID(),
          campaignId: org.mailing.campaign_id,
          pieceId: org.mailing.pieces[0]!.id,
          address: HOME,
          normalized: normalizeAddress(HOME),
        });
        const replay = await trackingLead(ctx, org.key, { address: HOME, ...key });
        assert.deepEqual(replay.body, {
          matched: true,
          duplicate: true,
          lead_id: first.body.lead_id,
          campaign_id: org.mailing.campaign_id,
          attribution_type: "indirect",
        });
        // A record the org never synced still collapses onto the landing-page lead.
        const fresh = await trackingLead(ctx, org.key, { address: HOME, crm_record_id: "new-record" });
        assert.equal(fresh.body.attribution_type, "direct");
        assert.notEqual(fresh.body.lead_id, first.body.lead_id);
        assert.equal(await count(ctx, "leads", org.orgId), 2, "the synced lead and the landing-page lead");
      });
    }

    it("keeps leads with no crm_record_id, email or phone distinct", async () => {
      const org = await mailedOrg();
      const a = await trackingLead(ctx, org.key, { address: HOME, first_name: "A", email: "" });
      const b = await trackingLead(ctx, org.key, { address: HOME, first_name: "A" });
      assert.notEqual(a.body.lead_id, b.body.lead_id);
      assert.equal(b.body.duplicate, false);
      assert.equal(await count(ctx, "leads", org.orgId), 2);
    });

    it("20 parallel replays make one lead", async () => {
      const org = await mailedOrg();
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          trackingLead(ctx, org.key, { address: HOME, crm_record_id: "R-race" }),
        ),
      );
      assert.equal(new Set(replies.map((reply) => reply.body.lead_id)).size, 1);
      assert.equal(replies.filter((reply) => reply.body.duplicate === false).length, 1);
      assert.equal(await count(ctx, "leads", org.orgId), 1);
    });
  });

  it("collapses onto a landing-page lead at the same address, leaving it untouched", async () => {
    const { org, directId } = await mailedOrgWithLandingPageLead();
    const response = await trackingLead(ctx, org.key, {
      address: "77 Lake Shore Dr, Springfield IL 62704",
      email: "other@example.com",
      crm_record_id: "C-9",
    });
    assert.deepEqual(response.body, {
      matched: true,
      duplicate: true,
      lead_id: directId,
      campaign_id: org.mailing.campaign_id,
      attribution_type: "direct",
    });
    const leads = (await admin(ctx, "GET", `/orgs/${org.orgId}/leads`)).body.leads;
    assert.equal(leads.length, 1);
    assert.equal(leads[0].source, "landing_page");
    assert.equal(leads[0].email, "pat@example.com");
    assert.equal(leads[0].attribution_type, "direct");
  });

  it("collapses onto the matched piece's landing-page lead when the CRM writes the home with less locality", async () => {
    const { org, directId } = await mailedOrgWithLandingPageLead();
    for (const [address, crmRecordId] of [
      ["77 Lake Shore Drive, 62704", "C-10"],
      ["77 Lake Shore Drive, Springfield, IL", "C-11"],
    ] as const) {
      const response = await trackingLead(ctx, org.key, {
        address,
        email: `${crmRecordId}@example.com`,
        crm_record_id: crmRecordId,
      });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        response.body,
        {
          matched: true,
          duplicate: true,
          lead_id: directId,
          campaign_id: org.mailing.campaign_id,
          attribution_type: "direct",
        },
        address,
      );
    }
    const leads = (await admin(ctx, "GET", `/orgs/${org.orgId}/leads`)).body.leads;
    assert.deepEqual(
      leads.map((lead: { id: string; source: string }) => [lead.id, lead.source]),
      [[directId, "landing_page"]],
      "no second, indirect lead for the home that answered on its landing page",
    );
  });

  it("reads null as absent in every optional field (CRMs send null for an empty property)", async () => {
    const org = await mailedOrg();
    const nulls = {
      first_name: null,
      last_name: null,
      email: null,
      phone: null,
      crm_record_id: null,
      created_at: null,
      service_lead_id: null,
    };
    const first = await trackingLead(ctx, org.key, { address: HOME, ...nulls });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.matched, true);
    const second = await trackingLead(ctx, org.key, { address: HOME, ...nulls });
    assert.notEqual(second.body.lead_id, first.body.lead_id, "no key: a new lead each time");
    const keyed = await trackingLead(ctx, org.key, { address: HOME, ...nulls, email: "pat@example.com" });
    const replay = await trackingLead(ctx, org.key, {
      address: HOME,
      crm_record_id: null,
      email: "pat@example.com",
    });
    assert.equal(replay.body.lead_id, keyed.body.lead_id, "a null crm_record_id falls back to the email");
  });

  it("answers loop_guard for the org's own lead id and writes nothing", async () => {
    const org = await mailedOrg();
    const own = await trackingLead(ctx, org.key, { address: HOME, crm_record_id: "C-own" });
    const response = await trackingLead(ctx, org.key, {
      address: HOME,
      crm_record_id: "C-echo",
      service_lead_id: own.body.lead_id,
    });
    assert.deepEqual(response.body, { matched: false, reason: "loop_guard" });
    assert.equal(await count(ctx, "leads", org.orgId), 1);
  });

  it("ignores a service_lead_id that is not one of the org's leads", async () => {
    const org = await mailedOrg();
    const other = await mailedOrg();
    const foreign = await trackingLead(ctx, other.key, { address: HOME, crm_record_id: "F-1" });
    for (const serviceLeadId of [foreign.body.lead_id, randomUUID(), "not-an-id"]) {
      const response = await trackingLead(ctx, org.key, { address: HOME, service_lead_id: serviceLeadId });
      assert.equal(response.body.matched, true, serviceLeadId);
    }
  });

  it("answers 400 No address found in payload without an address, 422 for a non-string field", async () => {
    const org = await mailedOrg();
    const missing = await trackingLead(ctx, org.key, { email: "a@example.com" });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, { error: "No address found in payload" });
    const wrongType = await trackingLead(ctx, org.key, { address: HOME, phone: 2175550100 });
    assert.equal(wrongType.status, 422);
    assert.equal(wrongType.body.detail, "phone: must be a string");
    const nullAddress = await trackingLead(ctx, org.key, { address: null, email: "a@example.com" });
    assert.equal(nullAddress.status, 400);
    assert.deepEqual(nullAddress.body, { error: "No address found in payload" });
    const punctuation = await trackingLead(ctx, org.key, { address: "!!!", email: "a@example.com" });
    assert.deepEqual([punctuation.status, punctuation.body], [400, { error: "No address found in payload" }]);
    const unknown = await trackingLead(ctx, org.key, { address: HOME, lifecycle_stage: "lead", score: 4 });
    assert.equal(unknown.status, 200, "unknown CRM fields are accepted and ignored");
  });

  it("is callable without HTTP (the contact events path)", async () => {
    const org = await mailedOrg();
    const deps: AttributionDeps = {
      db: ctx.database.db,
      clock,
      logger: ctx.app.log as unknown as AttributionDeps["logger"],
      geocoder: undefined,
      geoRadiusMeters: 30,
    };
    const result = await recordTrackingLead(deps, org.orgId, { address: HOME, email: "c@example.com" });
    assert.equal(result.matched, true);
    assert.equal(await count(ctx, "leads", org.orgId), 1);
  });

  it("completes a street-only address with the city, state and zip sent apart, flat or under properties", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: "50 Oak Ave, Chicago, IL 60601", mailed_at: "2026-05-01T00:00:00Z" },
    ]);
    const bodies: Record<string, unknown>[] = [
      { address: "50 Oak Ave", city: "Chicago", state: "IL", zip: "60601", email: "a@example.com" },
      { address: "50 Oak Ave", properties: { city: "Chicago", zip: 60601 }, email: "b@example.com" },
    ];
    for (const body of bodies) {
      const response = await trackingLead(ctx, org.key, body);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.matched, true, JSON.stringify(body));
      assert.equal(response.body.campaign_id, mailing.campaign_id);
    }
    const leads = (await admin(ctx, "GET", `/orgs/${org.orgId}/leads`)).body.leads;
    assert.deepEqual(
      leads.map((lead: { normalized_address: string }) => lead.normalized_address),
      ["50 OAK AVE, CHICAGO IL 60601", "50 OAK AVE, CHICAGO IL 60601"],
    );
  });

  it("reads created_at as Unix epoch milliseconds or seconds, as text or a number", async () => {
    const org = await mailedOrg();
    const inWindow = Date.parse("2026-06-01T00:00:00Z");
    const cases: [unknown, boolean][] = [
      [inWindow, true],
      [String(inWindow / 1000), true],
      [String(Date.parse("2026-04-01T00:00:00Z")), false],
    ];
    for (const [index, [createdAt, matched]] of cases.entries()) {
      const response = await trackingLead(ctx, org.key, {
        address: HOME,
        email: `epoch-${index}@example.com`,
        created_at: createdAt,
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.matched, matched, JSON.stringify(createdAt));
    }
    const refused = await trackingLead(ctx, org.key, { address: HOME, created_at: 12345 });
    assert.equal(refused.status, 422);
    assert.match(refused.body.detail, /^created_at/);
  });

  it("reads a HubSpot contact: firstname, lastname, mobilephone, hs_object_id under properties", async () => {
    const org = await mailedOrg();
    const response = await trackingLead(ctx, org.key, {
      properties: {
        hs_object_id: 901,
        firstname: "Sam",
        lastname: "Roe",
        mobilephone: "+1 (217) 555-0101",
        address: "77 Lake Shore Drive",
        city: "Springfield",
        state: "IL",
        zip: "62704",
      },
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.matched, true);
    const leads = (await admin(ctx, "GET", `/orgs/${org.orgId}/leads`)).body.leads;
    assert.equal(leads.length, 1);
    assert.equal(leads[0].first_name, "Sam");
    assert.equal(leads[0].last_name, "Roe");
    assert.equal(leads[0].phone, "+1 (217) 555-0101");
    assert.equal(leads[0].crm_record_id, "901");
    const replay = await trackingLead(ctx, org.key, { address: HOME, crm_record_id: 901 });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.body.duplicate, true);
    assert.equal(replay.body.lead_id, response.body.lead_id);
  });

  it("keeps the spec's names first, flat before properties", async () => {
    const org = await mailedOrg();
    const response = await trackingLead(ctx, org.key, {
      address: HOME,
      first_name: "Pat",
      firstname: "Patricia",
      phone: "217-555-0000",
      mobilephone: "217-555-9999",
      hs_object_id: "H-1",
      properties: { crm_record_id: "C-9", last_name: "Nested", lastname: "Alias" },
    });
    assert.equal(response.status, 200, response.text);
    const lead = (await admin(ctx, "GET", `/orgs/${org.orgId}/leads`)).body.leads[0];
    assert.equal(lead.first_name, "Pat");
    assert.equal(lead.last_name, "Nested");
    assert.equal(lead.phone, "217-555-0000");
    assert.equal(lead.crm_record_id, "H-1", "a flat alias comes before a nested field");
    const typed = await trackingLead(ctx, org.key, { address: HOME, crm_record_id: 1.5 });
    assert.equal(typed.status, 422);
    assert.deepEqual(typed.body, {
      error: "invalid_payload",
      detail: "crm_record_id: must be a string or an integer",
    });
  });
});
