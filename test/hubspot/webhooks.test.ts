import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, beforeEach, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryOne, queryRows, sql } from "../../src/db/database.ts";
import { inviteAndAccept, type SignedInUser } from "../app-api/helpers.ts";
import { admin, call, createAutomation, createOrg, recordMailing, type TestOrg } from "../helpers/api.ts";
import { type FakeHubSpot, startFakeHubSpot } from "../helpers/fake-hubspot.ts";
import { databaseLabel } from "../helpers/harness.ts";
import {
  API,
  connectHubSpot,
  createHubSpotContext,
  type HubSpotTestContext,
  hubspotEvent,
  postWebhook,
  runHubSpotJobs,
  signedHeaders,
  WEBHOOK_PATH,
} from "./helpers.ts";

const HOMER = {
  firstname: "Homer",
  lastname: "Simpson",
  email: "homer@example.com",
  phone: "+1 217 555 0100",
  address: "742 Evergreen Terrace",
  city: "Springfield",
  state: "IL",
  zip: "62704",
};

describe(`HubSpot webhooks (${databaseLabel})`, () => {
  const clock = fixedClock("2026-11-28T09:00:00Z");
  let fake: FakeHubSpot;
  let ctx: HubSpotTestContext;
  let org: TestOrg;
  let owner: SignedInUser;

  before(async () => {
    fake = await startFakeHubSpot();
    ctx = await createHubSpotContext(fake, clock);
    org = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, `owner-${randomUUID()}@example.com`, "owner");
    await connectHubSpot(fake, owner);
    fake.contacts.set("501", { properties: HOMER });
  });
  after(async () => {
    await ctx.close();
    await fake.close();
  });

  const counts = async () => {
    const row = await queryOne<{ events: number | string; jobs: number | string }>(
      ctx.database.db,
      sql`SELECT (SELECT count(*) FROM hubspot_events) AS events,
                 (SELECT count(*) FROM jobs WHERE kind = 'hubspot_event') AS jobs`,
    );
    return { events: Number(row?.events), jobs: Number(row?.jobs) };
  };
  const outcomeOfEvent = async (eventId: number) =>
    (
      await queryOne<{ outcome: string | null }>(
        ctx.database.db,
        sql`SELECT outcome FROM hubspot_events WHERE event_id = ${String(eventId)}`,
      )
    )?.outcome;
  const receipt = (answer: { statusCode: number; body: string }) => {
    assert.equal(answer.statusCode, 200, answer.body);
    return JSON.parse(answer.body);
  };

  describe("signatures", () => {
    let before: { events: number; jobs: number };
    beforeEach(async () => {
      before = await counts();
    });
    const refused = async (answer: { statusCode: number; body: string }) => {
      assert.equal(answer.statusCode, 401, answer.body);
      assert.equal(JSON.parse(answer.body).error, "unauthorized");
      assert.deepEqual(await counts(), before, "a refused request stores and queues nothing");
    };
    const events = () => [hubspotEvent(fake, clock, "contact.creation", 501)];

    test("a request without the signature headers is refused", async () => {
      await refused(
        await ctx.app.inject({
          method: "POST",
          url: WEBHOOK_PATH,
          headers: { "content-type": "application/json" },
          payload: JSON.stringify(events()),
        }),
      );
    });

    test("another secret, another URI, or a body changed after signing is refused", async () => {
      await refused(await postWebhook(ctx, events(), { secret: "not-the-client-secret" }));
      await refused(
        await postWebhook(ctx, events(), { uri: "https://elsewhere.example/connectors/hubspot/webhooks" }),
      );
      const signedFor = Buffer.from(JSON.stringify(events()));
      const tampered = await ctx.app.inject({
        method: "POST",
        url: WEBHOOK_PATH,
        headers: signedHeaders(ctx, signedFor),
        payload: signedFor.toString("utf8").replace('"objectId":501', '"objectId":502'),
      });
      await refused(tampered);
    });

    test("a timestamp older than 5 minutes is refused even when signed; 4 minutes is fine", async () => {
      const now = clock.now().getTime();
      await refused(await postWebhook(ctx, events(), { timestamp: now - 5 * 60 * 1000 - 1 }));
      await refused(await postWebhook(ctx, events(), { timestamp: now + 6 * 60 * 1000 }));
      assert.equal(receipt(await postWebhook(ctx, events(), { timestamp: now - 4 * 60 * 1000 })).received, 1);
    });
  });

  test("a replayed eventId is acknowledged and queued once", async () => {
    const batch = [hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "city" })];
    const before = await counts();
    assert.deepEqual(receipt(await postWebhook(ctx, batch)), { received: 1, duplicates: 0, ignored: 0 });
    assert.deepEqual(receipt(await postWebhook(ctx, batch)), { received: 0, duplicates: 1, ignored: 0 });
    assert.deepEqual(receipt(await postWebhook(ctx, [...batch, ...batch])), {
      received: 0,
      duplicates: 2,
      ignored: 0,
    });
    assert.deepEqual(await counts(), { events: before.events + 1, jobs: before.jobs + 1 });
  });

  test("20 deliveries of one batch at once queue each event once", async () => {
    const batch = [
      hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "zip" }),
      hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "state" }),
    ];
    const before = await counts();
    const answers = await Promise.all(Array.from({ length: 20 }, () => postWebhook(ctx, batch)));
    const receipts = answers.map(receipt);
    assert.equal(
      receipts.reduce((sum, each) => sum + each.received, 0),
      2,
    );
    assert.equal(
      receipts.reduce((sum, each) => sum + each.duplicates, 0),
      38,
    );
    assert.deepEqual(await counts(), { events: before.events + 2, jobs: before.jobs + 2 });
  });

  test("events of a portal nobody connected are acknowledged, ignored, and never retried", async () => {
    const before = await counts();
    const answer = receipt(
      await postWebhook(ctx, [hubspotEvent(fake, clock, "contact.creation", 501, { portalId: 999_999 })]),
    );
    assert.deepEqual(answer, { received: 0, duplicates: 0, ignored: 1 });
    assert.deepEqual(await counts(), before);
  });

  test("hostile bodies: not an array, more than 100 events, unknown elements, too large", async () => {
    const notArray = await postWebhook(ctx, { eventId: 1 });
    assert.equal(notArray.statusCode, 400, notArray.body);
    const notJson = await postWebhook(ctx, null, { payload: Buffer.from("[{") });
    assert.equal(notJson.statusCode, 400, notJson.body);
    const many = Array.from({ length: 101 }, () => hubspotEvent(fake, clock, "contact.creation", 501));
    assert.equal((await postWebhook(ctx, many)).statusCode, 400);
    const mixed = receipt(
      await postWebhook(ctx, [
        hubspotEvent(fake, clock, "contact.creation", 77),
        { eventId: "x", __proto__: { polluted: true } },
        hubspotEvent(fake, clock, "ticket.creation", 5),
        hubspotEvent(fake, clock, "deal.propertyChange", 9001, {
          propertyName: "amount",
          propertyValue: "1",
        }),
        "garbage",
        // A time no Date holds: one element ignored, not a 500 that loses (and retries) the batch.
        { ...hubspotEvent(fake, clock, "contact.creation", 78), occurredAt: 1e20 },
      ]),
    );
    assert.deepEqual(mixed, { received: 1, duplicates: 0, ignored: 5 });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const huge = Buffer.from(JSON.stringify([{ pad: "x".repeat(300_000) }]));
    assert.equal((await postWebhook(ctx, null, { payload: huge })).statusCode, 413);
  });

  test("a contact created in HubSpot fires the automation bound to hubspot.contact_created", async () => {
    await runHubSpotJobs(ctx); // the earlier tests' events, processed before anything is bound
    const automation = await createAutomation(ctx, org.orgId, {
      name: "New HubSpot contact",
      trigger: { type: "custom_api", event_type: "hubspot.contact_created" },
    });
    const event = hubspotEvent(fake, clock, "contact.creation", 501);
    assert.equal(receipt(await postWebhook(ctx, [event])).received, 1);
    await runHubSpotJobs(ctx);

    assert.match((await outcomeOfEvent(event.eventId)) ?? "", /^hubspot\.contact_created: queued$/);
    const campaigns = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
    const fired = campaigns.body.campaigns.filter(
      (c: { automation_id: string }) => c.automation_id === automation.id,
    );
    assert.equal(fired.length, 1, JSON.stringify(campaigns.body));

    // The builder offers the type with the record's properties, as for any CRM's events.
    const types = await owner.browser.request("GET", `${API}/event-types`);
    const type = types.body.find(
      (each: { event_type: string }) => each.event_type === "hubspot.contact_created",
    );
    assert.equal(type?.bound, true);
    assert.equal(type?.object_type, "contact");
    const samples = await owner.browser.request(
      "GET",
      `${API}/event-samples?event_type=hubspot.contact_created`,
    );
    assert.deepEqual(samples.body[0].property_keys, [
      "city",
      "client_email",
      "client_name",
      "client_phone",
      "state",
      "street",
      "zip",
    ]);
    const connection = await owner.browser.request("GET", `${API}/connectors/hubspot`);
    assert.equal(connection.body.connection.last_event_at, clock.now().toISOString());

    // HubSpot retries the same event with a new eventId: the record's dedup id absorbs it.
    const retried = hubspotEvent(fake, clock, "contact.creation", 501);
    await postWebhook(ctx, [retried]);
    await runHubSpotJobs(ctx);
    assert.equal(await outcomeOfEvent(retried.eventId), "hubspot.contact_created: duplicate");
  });

  test("a deal moved to closedwon becomes a conversion attributed exactly like POST /api/v1/conversions", async () => {
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: "742 Evergreen Terrace, Springfield, IL 62704", mailed_at: "2026-10-15T12:00:00Z" },
    ]);
    fake.deals.set("9001", {
      properties: {
        dealname: "Roof replacement",
        amount: "12500",
        closedate: "2026-11-27T15:00:00.000Z",
        dealstage: "closedwon",
        pipeline: "default",
      },
      contacts: ["501"],
    });
    const event = hubspotEvent(fake, clock, "deal.propertyChange", 9001, {
      propertyName: "dealstage",
      propertyValue: "closedwon",
    });
    assert.equal(receipt(await postWebhook(ctx, [event])).received, 1);
    await runHubSpotJobs(ctx);
    assert.match(
      (await outcomeOfEvent(event.eventId)) ?? "",
      new RegExp(
        `^hubspot\\.deal_stage_changed: no automation bound; conversion attributed to campaign ${mailing.campaign_id}$`,
      ),
    );
    const [conversion] = await queryRows<{
      id: string;
      deal_amount: string;
      deal_stage: string;
      contact_email: string;
    }>(
      ctx.database.db,
      sql`SELECT id, deal_amount::text AS deal_amount, deal_stage, contact_email FROM conversions
          WHERE org_id = ${org.orgId}::uuid AND deal_id = '9001'`,
    );
    assert.ok(conversion, "the conversion is recorded");
    assert.equal(Number(conversion.deal_amount), 12500);
    assert.equal(conversion.deal_stage, "closedwon");
    assert.equal(conversion.contact_email, "homer@example.com");

    // The developer API reporting the same deal meets the same conversion (one path, one key).
    const reported = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { deal_id: "9001", address: "742 Evergreen Terrace, Springfield, IL 62704", deal_amount: 12500 },
    });
    assert.equal(reported.status, 200, reported.text);
    assert.equal(reported.body.conversion_id, conversion.id);
  });

  test("a stage the owner marks as won counts, and a stage that is not won records no conversion", async () => {
    await owner.browser.request("PUT", `${API}/connectors/hubspot/won-stages`, {
      body: { won_stages: ["contractsigned"] },
    });
    fake.deals.set("9002", { properties: { amount: "800", dealstage: "contractsigned" }, contacts: ["501"] });
    fake.deals.set("9003", { properties: { amount: "900", dealstage: "closedwon" }, contacts: ["501"] });
    const signed = hubspotEvent(fake, clock, "deal.propertyChange", 9002, {
      propertyName: "dealstage",
      propertyValue: "contractsigned",
    });
    const closed = hubspotEvent(fake, clock, "deal.propertyChange", 9003, {
      propertyName: "dealstage",
      propertyValue: "closedwon",
    });
    await postWebhook(ctx, [signed, closed]);
    await runHubSpotJobs(ctx);
    assert.match((await outcomeOfEvent(signed.eventId)) ?? "", /conversion attributed/);
    assert.equal(await outcomeOfEvent(closed.eventId), "hubspot.deal_stage_changed: no automation bound");
    const deals = await queryRows<{ deal_id: string }>(
      ctx.database.db,
      sql`SELECT deal_id FROM conversions WHERE org_id = ${org.orgId}::uuid ORDER BY deal_id`,
    );
    assert.deepEqual(
      deals.map((row) => row.deal_id),
      ["9001", "9002"],
    );
  });

  test("HubSpot unreachable: the event's job is tried again later, not lost", async () => {
    fake.failCrmReads(1);
    const event = hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "zip" });
    await postWebhook(ctx, [event]);
    await runHubSpotJobs(ctx);
    assert.equal(await outcomeOfEvent(event.eventId), null, "not processed yet");
    clock.advance(60_000);
    await runHubSpotJobs(ctx);
    assert.equal(await outcomeOfEvent(event.eventId), "hubspot.contact_changed: no automation bound");
  });

  test("the access token is refreshed before it expires, and the new one is used", async () => {
    const refreshes = () => fake.calls.filter((each) => each.grant === "refresh_token").length;
    const before = refreshes();
    clock.advance(26 * 60 * 1000);
    const event = hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "address" });
    await postWebhook(ctx, [event]);
    await runHubSpotJobs(ctx);
    assert.equal(refreshes(), before + 1, "refreshed within 5 minutes of the 30-minute expiry");
    const lastRead = fake.calls.filter((each) => each.path.startsWith("/crm/v3/")).at(-1);
    assert.equal(lastRead?.bearer, fake.issuedAccessTokens.at(-1));
    // The next event, still well before the new expiry, uses it without refreshing again.
    await postWebhook(ctx, [
      hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "city" }),
    ]);
    await runHubSpotJobs(ctx);
    assert.equal(refreshes(), before + 1);
  });

  test("two jobs refreshing the token at once both succeed, and the token kept still works", async () => {
    clock.advance(26 * 60 * 1000);
    const both = [
      hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "phone" }),
      hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "email" }),
    ];
    await postWebhook(ctx, both);
    await runHubSpotJobs(ctx); // one claim runs both jobs side by side
    for (const event of both) {
      assert.equal(await outcomeOfEvent(event.eventId), "hubspot.contact_changed: no automation bound");
    }
    const after = hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "city" });
    await postWebhook(ctx, [after]);
    await runHubSpotJobs(ctx);
    assert.equal(await outcomeOfEvent(after.eventId), "hubspot.contact_changed: no automation bound");
  });

  test("a refresh token HubSpot refuses leaves the connection asking to reconnect", async () => {
    fake.revokeRefreshTokens();
    clock.advance(31 * 60 * 1000);
    const event = hubspotEvent(fake, clock, "contact.propertyChange", 501, { propertyName: "city" });
    await postWebhook(ctx, [event]);
    await runHubSpotJobs(ctx);
    assert.match((await outcomeOfEvent(event.eventId)) ?? "", /^not processed: hubspot_not_connected/);
    const shown = await owner.browser.request("GET", `${API}/connectors/hubspot`);
    assert.equal(shown.body.connection.needs_reconnect, true);
    // Connecting again clears it.
    await connectHubSpot(fake, owner);
    const again = await owner.browser.request("GET", `${API}/connectors/hubspot`);
    assert.equal(again.body.connection.needs_reconnect, false);
  });
});
