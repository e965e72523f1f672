import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "../../src/db/database.ts";
import { SAMPLE_LEAD_ID } from "../../src/leads/polling.ts";
import { admin, call, createAutomation, createOrg, recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { submitLead } from "../leads/leads-helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const now = new Date();
const monthStart = (back: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
const monthLabel = (back: number) => monthStart(back).toISOString().slice(0, 7);

describe(`app API: Overview (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-overview@example.com", "owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-overview@example.com", "member");
    const other = await createOrg(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "other-overview@example.com", "owner");

    const profile = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { cost_per_card_cents: 85 },
    });
    assert.equal(profile.status, 200, profile.text);
    await recordMailing(
      ctx,
      org.orgId,
      ["10 Birch St", "11 Birch St", "12 Birch St"].map((street) => ({
        address: `${street}, Springfield, IL 62704`,
        mailed_at: new Date(monthStart(2).getTime() + 9 * 86_400_000).toISOString(),
      })),
      "April",
    );
    const june = await recordMailing(
      ctx,
      org.orgId,
      ["20 Birch St", "21 Birch St"].map((street) => ({
        address: `${street}, Springfield, IL 62704`,
        mailed_at: new Date(monthStart(0).getTime() + 60_000).toISOString(),
      })),
      "June",
    );
    const token = june.pieces[0]!.token;
    for (let i = 0; i < 2; i++) assert.equal((await call(ctx, "GET", `/l/${token}`)).status, 200);
    await submitLead(ctx, token, {
      first_name: "Lou",
      last_name: "Lead",
      email: "lou@example.com",
      phone: "+1 217 555 0199",
    });
    const won = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: {
        address: "10 Birch St, Springfield, IL 62704",
        deal_id: "D-1",
        deal_amount: "5000",
        deal_date: now.toISOString().slice(0, 10),
      },
    });
    assert.equal(won.status, 200, won.text);
    assert.equal(won.body.matched, true, won.text);
  });
  after(() => ctx.close());

  test("this month, the last 12 months and each month: cards, visits, leads, won deals, revenue, cost, return", async () => {
    const overview = await member.browser.request("GET", "/app/api/v1/overview");
    assert.equal(overview.status, 200, overview.text);
    const body = overview.body;
    assert.equal(body.cost_per_card_cents, 85);
    assert.deepEqual(body.this_month, {
      cards_mailed: 2,
      landing_visits: 2,
      leads: 1,
      won_deals: 1,
      attributed_revenue: 5000,
      cost: 1.7,
      return_on_spend: 2941.18,
    });
    assert.equal(body.last_12_months.cards_mailed, 5);
    assert.equal(body.last_12_months.cost, 4.25);
    assert.equal(body.last_12_months.return_on_spend, 1176.47);
    assert.equal(body.months.length, 12);
    assert.equal(body.months[11].month, monthLabel(0));
    assert.equal(body.months[0].month, monthLabel(11));
    assert.equal(body.months[9].month, monthLabel(2));
    assert.equal(body.months[9].cards_mailed, 3);
    assert.equal(body.months[9].attributed_revenue, 0);
    assert.equal(body.latest_leads.length, 1);
    assert.equal(body.latest_leads[0].name, "Lou Lead");
  });

  test("another organization sees only its own (empty) figures", async () => {
    const overview = await otherOwner.browser.request("GET", "/app/api/v1/overview");
    assert.equal(overview.body.last_12_months.cards_mailed, 0);
    assert.equal(overview.body.last_12_months.cost, null, "no cost per card set");
    assert.equal(overview.body.last_12_months.return_on_spend, null);
    assert.deepEqual(overview.body.latest_leads, []);
  });

  test("attention lists failed pieces and turned-off automations beside part 1's items", async () => {
    await createAutomation(ctx, org.orgId, {
      name: "Winter promo",
      enabled: false,
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET status = 'failed', status_reason = 'the print provider refused it',
            status_updated_at = now()
          WHERE org_id = ${org.orgId}::uuid AND address LIKE '21 Birch%'`,
    );
    const attention = await member.browser.request("GET", "/app/api/v1/attention");
    assert.equal(attention.status, 200, attention.text);
    const kinds = attention.body.items.map((item: { kind: string }) => item.kind);
    assert.ok(kinds.includes("failed_pieces"), attention.text);
    assert.ok(kinds.includes("automation_disabled"), attention.text);
    const theirs = await otherOwner.browser.request("GET", "/app/api/v1/attention");
    assert.ok(!theirs.body.items.some((item: { kind: string }) => item.kind === "failed_pieces"));
    assert.equal((await ctx.app.inject({ method: "GET", url: "/app/api/v1/overview" })).statusCode, 401);
  });

  test("attention says a receiver's failed test apart from a lead not delivered, which is not sent again", async () => {
    const fresh = await admin(ctx, "POST", "/orgs", { name: "Hook Siding" });
    assert.equal(fresh.status, 201, fresh.text);
    const orgId = fresh.body.org_id as string;
    const hookOwner = await inviteAndAccept(ctx, orgId, "owner-hooks@example.com", "owner");
    const subscriptionId = randomUUID();
    await ctx.database.db.execute(
      sql`INSERT INTO subscriptions (org_id, id, target_url, signing_secret)
          VALUES (${orgId}::uuid, ${subscriptionId}::uuid, 'https://hooks.example.com/porchlight', 'whsec_x')`,
    );
    // What the delivery job records of the receiver's answers (the receiver is the outside world).
    const delivered = async (leadId: string, statusCode: number, at: string) =>
      ctx.database.db.execute(
        sql`INSERT INTO deliveries (org_id, id, lead_id, subscription_id, target_url, signed, outcome, status_code, created_at)
            VALUES (${orgId}::uuid, ${randomUUID()}::uuid, ${leadId}::uuid, ${subscriptionId}::uuid,
                    'https://hooks.example.com/porchlight', true, 'attempted', ${statusCode}, ${at}::timestamptz)`,
      );
    const failing = async () => {
      const attention = await hookOwner.browser.request("GET", "/app/api/v1/attention");
      assert.equal(attention.status, 200, attention.text);
      return attention.body.items
        .filter((item: { kind: string }) => item.kind === "subscription_failing")
        .map((item: { message: string }) => item.message) as string[];
    };
    await delivered(randomUUID(), 200, "2026-06-01T10:00:00Z");
    await delivered(SAMPLE_LEAD_ID, 401, "2026-06-01T11:00:00Z");
    assert.deepEqual(await failing(), [
      "The last test sent to https://hooks.example.com was not delivered (401); check the receiver.",
    ]);
    await delivered(randomUUID(), 500, "2026-06-01T12:00:00Z");
    assert.deepEqual(await failing(), [
      "The last lead sent to https://hooks.example.com was not delivered (500) and will not be sent again (it is in Leads); check the receiver.",
    ]);
    await delivered(SAMPLE_LEAD_ID, 204, "2026-06-01T13:00:00Z");
    assert.deepEqual(await failing(), [], "a delivered test says the receiver works again");
  });

  test("attention says the cards print without a return address once the organization mails, until one is set", async () => {
    const fresh = await admin(ctx, "POST", "/orgs", { name: "No Return Roofing", billing_owner: true });
    assert.equal(fresh.status, 201, fresh.text);
    const orgId = fresh.body.org_id as string;
    const freshOwner = await inviteAndAccept(ctx, orgId, "owner-no-return@example.com", "owner");
    const kinds = async () => {
      const attention = await freshOwner.browser.request("GET", "/app/api/v1/attention");
      assert.equal(attention.status, 200, attention.text);
      return attention.body.items.map((item: { kind: string }) => item.kind) as string[];
    };
    assert.ok(!(await kinds()).includes("no_return_address"), "nothing mails yet: nothing to say");

    await createAutomation(ctx, orgId, {
      name: "Thank-you card",
      enabled: true,
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    assert.ok((await kinds()).includes("no_return_address"), "an enabled automation mails cards");
    const theirs = await otherOwner.browser.request("GET", "/app/api/v1/attention");
    assert.ok(
      !theirs.body.items.some((item: { kind: string }) => item.kind === "no_return_address"),
      "another organization's lack is not this one's",
    );

    const saved = await freshOwner.browser.request("PATCH", "/app/api/v1/organization", {
      body: {
        return_address: { street: "12 Shingle Rd", city: "Springfield", state: "IL", postal_code: "62704" },
      },
    });
    assert.equal(saved.status, 200, saved.text);
    assert.ok(!(await kinds()).includes("no_return_address"), "a return address set: nothing to say");
  });

  test("the first-run checklist ticks each step from the organization's own data", async () => {
    const fresh = await admin(ctx, "POST", "/orgs", { name: "Fresh Start Plumbing", billing_owner: true });
    assert.equal(fresh.status, 201, fresh.text);
    const orgId = fresh.body.org_id as string;
    const freshOwner = await inviteAndAccept(ctx, orgId, "owner-first-steps@example.com", "owner");
    const freshMember = await inviteAndAccept(ctx, orgId, "member-first-steps@example.com", "member");
    const steps = async (user: SignedInUser = freshOwner) => {
      const answer = await user.browser.request("GET", "/app/api/v1/first-steps");
      assert.equal(answer.status, 200, answer.text);
      return answer.body;
    };
    const none = { business_profile: false, automation: false, api_key: false, event: false };
    assert.deepEqual(await steps(), none);

    const nameOnly = await freshOwner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Fresh Start Plumbing" },
    });
    assert.equal(nameOnly.status, 200, nameOnly.text);
    assert.equal((await steps()).business_profile, false, "a name without a return address is not set up");
    const withAddress = await freshOwner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { return_address: { street: "9 Valve Rd", city: "Austin", state: "TX", postal_code: "78702" } },
    });
    assert.equal(withAddress.status, 200, withAddress.text);
    assert.deepEqual(await steps(), { ...none, business_profile: true });

    await createAutomation(ctx, orgId, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    const created = await freshOwner.browser.request("POST", "/app/api/v1/keys", { body: { name: "CRM" } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await steps(), { ...none, business_profile: true, automation: true, api_key: true });

    const event = await call(ctx, "POST", "/api/v1/events", {
      key: created.body.key,
      body: {
        event_type: "job.completed",
        object_type: "job",
        dedup_id: "first-steps-1",
        record: { id: "first-steps-1", properties: { street: "1 Pine Rd", zip: "62704" } },
      },
    });
    assert.equal(event.status, 202, event.text);
    const all = { business_profile: true, automation: true, api_key: true, event: true };
    assert.deepEqual(await steps(), all);
    assert.deepEqual(await steps(freshMember), all, "a member sees the same list");

    const revoked = await freshOwner.browser.request("DELETE", `/app/api/v1/keys/${created.body.id}`);
    assert.ok(revoked.status < 300, revoked.text);
    assert.equal((await steps()).api_key, false, "a revoked key does not count");
    assert.deepEqual(
      await steps(otherOwner),
      { ...none, api_key: true },
      "another organization's steps are its own (its one key only)",
    );
    assert.equal((await ctx.app.inject({ method: "GET", url: "/app/api/v1/first-steps" })).statusCode, 401);
  });
});
