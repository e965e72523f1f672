import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { generateApiKey } from "../../src/domain/api-key-format.ts";
import { call, createOrg, recordMailing } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { runPipeline } from "../pipeline/helpers.ts";
import {
  addLeadField,
  createLeadsContext,
  type LeadsTestContext,
  mailOnePiece,
  submitLead,
} from "./leads-helpers.ts";

const SAMPLE_ID = "00000000-0000-0000-0000-000000000000";

describe(`lead polling (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  const clock = fixedClock("2026-11-22T12:00:00Z");
  before(async () => {
    ctx = await createLeadsContext({ clock });
  });
  after(async () => ctx.close());

  const poll = (key: string, since?: string) =>
    call(ctx, "GET", "/api/v1/integrations/leads", {
      key,
      query: since === undefined ? undefined : { since },
    });

  it("the sample answers every field of the org's own lead form, so a flow can map them before a real lead", async () => {
    const org = await createOrg(ctx);
    await addLeadField(ctx, org.orgId, { field_id: "roof_age", label: "Roof age", type: "text" });
    await addLeadField(ctx, org.orgId, {
      field_id: "issues",
      label: "Issues",
      type: "multiselect",
      options: ["Leak", "Gutters"],
    });
    await addLeadField(ctx, org.orgId, { field_id: "call_me", label: "Call me", type: "checkbox" });
    const [sample] = (await poll(org.key)).body.leads;
    assert.equal(sample.id, SAMPLE_ID);
    assert.deepEqual(sample.custom_fields, [
      { field_id: "roof_age", field_label: "Roof age", type: "text", value: ["Sample answer to Roof age"] },
      { field_id: "issues", field_label: "Issues", type: "multiselect", value: ["Leak"] },
      { field_id: "call_me", field_label: "Call me", type: "checkbox", value: ["yes"] },
    ]);
    assert.equal(sample.custom_roof_age, "Sample answer to Roof age");
    assert.equal(sample.custom_issues, "Leak");
    assert.equal(sample.custom_call_me, "yes");
  });

  it("gives an organization without leads exactly one sample lead, which disappears once a real one exists", async () => {
    const org = await createOrg(ctx);
    const empty = await poll(org.key);
    assert.equal(empty.status, 200);
    assert.equal(empty.body.leads.length, 1);
    const [sample] = empty.body.leads;
    assert.equal(sample.id, SAMPLE_ID);
    assert.equal(sample.test, true);
    assert.equal(sample.custom_issues, "");
    assert.equal("service_lead_id" in sample, false);
    assert.equal(sample.created_at, "2026-11-22T12:00:00.000Z");
    const ahead = (await poll(org.key, "2030-01-01T00:00:00Z")).body.leads;
    assert.equal(ahead[0].id, SAMPLE_ID);
    assert.equal(ahead[0].created_at, "2030-01-01T00:00:00.001Z", "dated strictly after since");
    const window = await call(ctx, "GET", "/api/v1/integrations/leads", {
      key: org.key,
      query: { since: "2020-01-01T00:00:00Z", before: "2021-01-01T00:00:00Z" },
    });
    assert.equal(window.body.leads[0].created_at, "2021-01-01T00:00:00.000Z", "at or before before");
    const emptyWindow = await call(ctx, "GET", "/api/v1/integrations/leads", {
      key: org.key,
      query: { since: "2021-01-01T00:00:00Z", before: "2021-01-01T00:00:00Z" },
    });
    assert.deepEqual(emptyWindow.body.leads, [], "no instant is after since and at or before before");

    const { token } = await mailOnePiece(ctx, org.orgId);
    const leadId = await submitLead(ctx, token, {
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
    });
    const after = await poll(org.key);
    assert.deepEqual(
      after.body.leads.map((lead: { id: string }) => lead.id),
      [leadId],
    );
    assert.equal("test" in after.body.leads[0], false);
    assert.deepEqual((await poll(org.key, "2030-01-01T00:00:00Z")).body.leads, []);
  });

  it("returns the lead's fields, newest first, at most 50, strictly after since", async () => {
    const org = await createOrg(ctx, { name: "Poll Roofing" });
    const { token, campaignId } = await mailOnePiece(ctx, org.orgId, {
      address: "12 Oak Ave, Springfield, IL 62704",
      recipient_name: "Marge",
    });
    const ids: string[] = [];
    const times: string[] = [];
    for (let index = 0; index < 53; index++) {
      // One page captures at most 5 new leads an hour (docs/landing-pages.md): 4 an hour here.
      clock.advance(15 * 60_000);
      times.push(clock.now().toISOString());
      ids.push(
        await submitLead(ctx, token, {
          first_name: `Lead${index}`,
          last_name: "Poll",
          phone: "+1 217 555 0100",
        }),
      );
    }
    const all = await poll(org.key);
    assert.equal(all.body.leads.length, 50);
    assert.deepEqual(
      all.body.leads.map((lead: { id: string }) => lead.id),
      ids.slice(-50).reverse(),
    );
    const newest = all.body.leads[0];
    assert.equal(newest.first_name, "Lead52");
    assert.equal(newest.name, "Lead52 Poll");
    assert.equal(newest.campaign_id, campaignId);
    assert.equal(newest.campaign_name, "Spring roofing");
    assert.equal(newest.street, "12 Oak Ave");
    assert.equal(newest.city, "Springfield");
    assert.equal(newest.state, "IL");
    assert.equal(newest.postal_code, "62704");
    assert.equal(newest.country, "US");
    assert.equal(newest.full_address, "12 Oak Ave, Springfield, IL 62704");
    assert.equal(newest.source, "Landing page");
    assert.equal(newest.created_at, times[52]);
    assert.equal("service_lead_id" in newest, false);

    const since = await poll(org.key, times[49]!);
    assert.deepEqual(
      since.body.leads.map((lead: { id: string }) => lead.id),
      ids.slice(50).reverse(),
    );
    // Paging back past 50: before = the oldest created_at received, inclusive (de-duplicate by id).
    const oldest = all.body.leads.at(-1);
    const olderPage = await call(ctx, "GET", "/api/v1/integrations/leads", {
      key: org.key,
      query: { before: oldest.created_at },
    });
    assert.equal(olderPage.status, 200, olderPage.text);
    assert.deepEqual(
      olderPage.body.leads.map((lead: { id: string }) => lead.id),
      ids.slice(0, 4).reverse(),
    );
    const between = await call(ctx, "GET", "/api/v1/integrations/leads", {
      key: org.key,
      query: { since: times[0]!, before: times[2]! },
    });
    assert.deepEqual(
      between.body.leads.map((lead: { id: string }) => lead.id),
      [ids[2], ids[1]],
    );
    const offset = await poll(org.key, times[49]!.replace("Z", "+00:00"));
    assert.equal(offset.body.leads.length, 3);
    // An offset written unencoded in the URL: its "+" decodes to a space.
    const unencoded = await call(
      ctx,
      "GET",
      `/api/v1/integrations/leads?since=${times[49]!.replace("Z", "+00:00")}`,
      { key: org.key },
    );
    assert.equal(unencoded.status, 200, unencoded.text);
    assert.deepEqual(unencoded.body, offset.body);
    const hoursOnly = await call(
      ctx,
      "GET",
      `/api/v1/integrations/leads?since=${times[49]!.replace("Z", "+00")}`,
      { key: org.key },
    );
    assert.deepEqual(hoursOnly.body, offset.body);
  });

  it("leads captured at once: a poller following the newest created_at it saw (since) misses none", async () => {
    const org = await createOrg(ctx);
    const homes = Array.from({ length: 40 }, (_, index) => ({
      address: `${index + 1} Race Ln, Springfield, IL 62704`,
    }));
    const mailing = await recordMailing(ctx, org.orgId, homes, "Race");
    const seen = new Map<string, string>();
    let cursor: string | undefined;
    const pollOnce = async () => {
      const answer = await poll(org.key, cursor);
      for (const lead of answer.body.leads as { id: string; created_at: string }[]) {
        if (lead.id === SAMPLE_ID) continue;
        seen.set(lead.id, lead.created_at);
        if (cursor === undefined || lead.created_at > cursor) cursor = lead.created_at;
      }
    };
    let capturing = true;
    const poller = (async () => {
      while (capturing) await pollOnce();
    })();
    // The clock stands still (a fixed clock): many leads share its millisecond, as under load.
    const ids = await Promise.all(
      mailing.pieces.map((piece: { token: string }, index: number) =>
        submitLead(ctx, piece.token, {
          first_name: `Racer${index}`,
          last_name: "Poll",
          email: `r${index}@example.com`,
        }),
      ),
    );
    capturing = false;
    await poller;
    await pollOnce();
    assert.deepEqual(
      ids.filter((id) => !seen.has(id)),
      [],
      "every lead reached the poller",
    );
    assert.equal(new Set(seen.values()).size, ids.length, "one lead a millisecond in an org");
  });

  it("locates a lead whose piece is geocoded after the capture", async () => {
    const org = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId);
    const leadId = await submitLead(ctx, token, {
      first_name: "Early",
      last_name: "Bird",
      email: "early@example.com",
    });
    const before = (await poll(org.key)).body.leads[0];
    assert.equal(before.id, leadId);
    assert.equal(before.latitude, null);
    // The worker runs the piece's geocode_piece job after the lead came in.
    await runPipeline(ctx, {});
    const located = (await poll(org.key)).body.leads[0];
    assert.equal(located.id, leadId);
    assert.equal(typeof located.latitude, "number");
    assert.equal(typeof located.longitude, "number");
  });

  it("answers 400 with a clear error for a malformed since", async () => {
    const org = await createOrg(ctx);
    for (const since of [
      "yesterday",
      "2026-13-01",
      "2026-02-30T00:00:00Z",
      "1700000000",
      "2026-01-01T25:00:00Z",
      // No year 0 in PostgreSQL: this used to be a 500.
      "0000-01-01T00:00:00Z",
    ]) {
      const response = await poll(org.key, since);
      assert.equal(response.status, 400, since);
      assert.equal(response.body.error, "Invalid since parameter");
      assert.match(response.body.detail, /ISO-8601/);
    }
  });

  it("answers the same 400 for a since sent twice or longer than 64 characters", async () => {
    const org = await createOrg(ctx);
    const twice = await call(ctx, "GET", "/api/v1/integrations/leads?since=2026-01-01&since=2026-01-02", {
      key: org.key,
    });
    const long = await poll(org.key, `2026-01-01T00:00:00${"0".repeat(60)}Z`);
    for (const response of [twice, long]) {
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error, "Invalid since parameter");
      assert.match(response.body.detail, /^since: /);
    }
    const badBefore = await call(ctx, "GET", "/api/v1/integrations/leads?before=yesterday", { key: org.key });
    const twiceBefore = await call(
      ctx,
      "GET",
      "/api/v1/integrations/leads?before=2026-01-01&before=2026-01-02",
      {
        key: org.key,
      },
    );
    for (const response of [badBefore, twiceBefore]) {
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error, "Invalid before parameter");
      assert.match(response.body.detail, /^before: /);
    }
  });

  it("answers every refused key with exactly the spec's 401 body, a mistyped one included", async () => {
    const org = await createOrg(ctx);
    const swap = (char: string) => (char === "a" ? "b" : "a");
    const mistyped = `${org.key.slice(0, -1)}${swap(org.key.at(-1)!)}`;
    for (const key of [mistyped, generateApiKey(), "ak_short"]) {
      const response = await poll(key);
      assert.equal(response.status, 401, key);
      assert.deepEqual(response.body, { error: "Unauthorized" }, key);
      assert.equal(response.headers["www-authenticate"], 'Bearer realm="api"', key);
    }
    const missing = await call(ctx, "GET", "/api/v1/integrations/leads");
    assert.deepEqual(missing.body, { error: "Unauthorized" });
    // The other endpoints still say a key looks mistyped.
    const me = await call(ctx, "GET", "/api/v1/me", { key: mistyped });
    assert.match(me.body.detail, /looks mistyped/);
  });

  it("never shows another organization's leads", async () => {
    const org = await createOrg(ctx);
    const other = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId);
    await submitLead(ctx, token, { first_name: "Own", last_name: "Lead", email: "own@example.com" });
    const foreign = await poll(other.key);
    assert.deepEqual(
      foreign.body.leads.map((lead: { id: string }) => lead.id),
      [SAMPLE_ID],
    );
  });
});
