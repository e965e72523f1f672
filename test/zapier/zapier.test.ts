/**
 * The Zapier integration (packages/zapier) through zapier-platform-core's own app tester, against
 * the real server on loopback: its requests are real HTTP to the instance, the leads it is sent
 * arrive at an HTTPS receiver standing in for Zapier's hook URL, and each delivery is handed to
 * the trigger as Zapier hands it over.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { queueTestDelivery } from "../../src/webhooks/app-webhooks.ts";
import type { DeliveryClient } from "../../src/webhooks/delivery-client.ts";
import { admin, createOrg, issueKey, type TestOrg } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { type HttpsReceiver, startHttpsReceiver } from "../helpers/https-receiver.ts";
import {
  createLeadsContext,
  drainJobs,
  type LeadsTestContext,
  mailOnePiece,
  NED_LEAD,
  submitLead,
  testDeliveryClient,
} from "../leads/leads-helpers.ts";

const require = createRequire(import.meta.url);
// zapier-platform-core prints each run's memory unless it knows it is under test (read at load).
process.env.NODE_ENV = "test";
const zapier = require("zapier-platform-core") as {
  createAppTester(app: unknown): (method: unknown, bundle: unknown) => Promise<any>;
};
/** What `zapier validate` runs: the app compiled as the platform loads it, against Zapier's schema. */
const { compileApp, validateApp } = require("zapier-platform-core/src/tools/schema") as {
  compileApp(app: unknown): unknown;
  validateApp(compiled: unknown): unknown[];
};
const App = require("../../packages/zapier/index.js");

type AnyFunction = (...args: unknown[]) => unknown;
const operation = (group: "triggers" | "creates", key: string) =>
  App[group][key].operation as Record<string, AnyFunction>;

describe(`the Zapier integration against a real instance (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  let receiver: HttpsReceiver;
  let delivery: DeliveryClient;
  let baseUrl: string;
  let org: TestOrg;
  const appTester = zapier.createAppTester(App);
  const auth = () => ({ base_url: baseUrl, api_key: org.key });

  before(async () => {
    receiver = await startHttpsReceiver();
    ctx = await createLeadsContext({
      allowPrivateTargets: ["receiver.test", "127.0.0.1"],
      hosts: { "receiver.test": ["127.0.0.1"] },
    });
    delivery = testDeliveryClient(ctx, { ca: receiver.ca });
    await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/`;
    org = await createOrg(ctx, { name: "Zap Roofing" });
  });
  after(async () => {
    await delivery.close();
    await receiver.close();
    await ctx.close();
  });

  test("the app definition passes Zapier's own schema", () => {
    assert.deepEqual(validateApp(compileApp(App)), []);
  });

  test("a connection is tested with /api/v1/me, and a wrong key or a plain-http address is refused", async () => {
    const me = await appTester(App.authentication.test, { authData: auth() });
    assert.deepEqual(me, { org_id: org.orgId, org_name: "Zap Roofing" });
    await assert.rejects(
      appTester(App.authentication.test, { authData: { ...auth(), api_key: "ak_wrong" } }),
      /reconnect with a current key/,
    );
    await assert.rejects(
      appTester(App.authentication.test, {
        authData: { ...auth(), base_url: "http://porchlight.example.com" },
      }),
      /must start with https:\/\//,
    );
    await assert.rejects(
      appTester(App.authentication.test, { authData: { ...auth(), base_url: "not an address" } }),
      /is not an address/,
    );
  });

  test("New Lead subscribes Zapier's URL, passes signed deliveries, refuses forged ones, and unsubscribes", async () => {
    const hookPath = "/hooks/catch/123/abc";
    const targetUrl = receiver.url(hookPath);
    const subscription = await appTester(operation("triggers", "new_lead").performSubscribe, {
      authData: auth(),
      targetUrl,
    });
    assert.ok(subscription.id);
    assert.match(subscription.signing_secret, /\S{20,}/);

    const { token } = await mailOnePiece(ctx, org.orgId);
    const leadId = await submitLead(ctx, token, NED_LEAD);
    await drainJobs(ctx, delivery);
    const [received] = receiver.requests.filter((request) => request.path === hookPath);
    assert.ok(received, "the lead reached Zapier's URL");

    // As Zapier hands a hook's request to the trigger: the parsed body and the raw request.
    const content = received.raw.toString("utf8");
    const rawHeaders = {
      "Http-X-Service-Timestamp": String(received.headers["x-service-timestamp"]),
      "Http-X-Service-Signature": String(received.headers["x-service-signature"]),
    };
    const hookBundle = (raw: string) => ({
      authData: auth(),
      subscribeData: subscription,
      cleanedRequest: JSON.parse(raw),
      rawRequest: { content: raw, headers: rawHeaders },
    });
    const leads = await appTester(operation("triggers", "new_lead").perform, hookBundle(content));
    assert.equal(leads.length, 1);
    assert.equal(leads[0].id, leadId);
    assert.equal(leads[0].email, NED_LEAD.email);

    const forged = content.replace(NED_LEAD.email, "someone@else.example");
    await assert.rejects(
      appTester(operation("triggers", "new_lead").perform, hookBundle(forged)),
      /signature does not match/,
    );
    await assert.rejects(
      appTester(operation("triggers", "new_lead").perform, {
        ...hookBundle(content),
        rawRequest: {
          content,
          headers: {
            "Http-X-Service-Signature": rawHeaders["Http-X-Service-Signature"],
            "Http-X-Service-Timestamp": "1",
          },
        },
      }),
      /more than 300 seconds/,
    );

    // Zap set-up reads the newest leads by polling, newest first, each with its id.
    const second = await submitLead(ctx, token, { ...NED_LEAD, email: "maude@example.com" });
    const listed = await appTester(operation("triggers", "new_lead").performList, { authData: auth() });
    assert.deepEqual(
      listed.map((lead: { id: string }) => lead.id),
      [second, leadId],
    );

    await appTester(operation("triggers", "new_lead").performUnsubscribe, {
      authData: auth(),
      subscribeData: subscription,
    });
    const subscriptions = await admin(ctx, "GET", `/orgs/${org.orgId}/subscriptions`);
    assert.deepEqual(subscriptions.body.subscriptions, []);
    const before = receiver.requests.length;
    await submitLead(ctx, token, { ...NED_LEAD, email: "rod@example.com" });
    await drainJobs(ctx, delivery);
    assert.equal(receiver.requests.length, before, "nothing is delivered once the Zap is off");
  });

  test("New Lead halts what it cannot check, re-subscribes with a secret of its own, and passes no test lead on", async () => {
    const newLead = operation("triggers", "new_lead");
    const hookPath = "/hooks/catch/456/def";
    const targetUrl = receiver.url(hookPath);
    const first = await appTester(newLead.performSubscribe, { authData: auth(), targetUrl });
    // Turned on again after an unsubscribe that failed: the same subscription, with a secret the Zap holds.
    const again = await appTester(newLead.performSubscribe, { authData: auth(), targetUrl });
    assert.equal(again.id, first.id);
    assert.match(again.signing_secret, /\S{20,}/);
    assert.notEqual(again.signing_secret, first.signing_secret);

    const forgedLead = {
      id: "11111111-1111-4111-8111-111111111111",
      name: "Fake Lead",
      email: "fake@example.com",
    };
    for (const bundle of [
      { subscribeData: again, cleanedRequest: forgedLead },
      { subscribeData: again, cleanedRequest: forgedLead, rawRequest: { headers: {} } },
      {
        subscribeData: { id: again.id, signing_secret: null },
        cleanedRequest: forgedLead,
        rawRequest: { content: JSON.stringify(forgedLead), headers: {} },
      },
    ]) {
      await assert.rejects(appTester(newLead.perform, { authData: auth(), ...bundle }), (error: Error) => {
        assert.match(error.message, /no signed body to check|keeps no signing secret/);
        return true;
      });
    }

    // The app's Send test reaches the hook signed (so the owner sees the delivery work), and the Zap ignores it.
    await queueTestDelivery(ctx.database.db, org.orgId, again.id, new Date());
    await drainJobs(ctx, delivery);
    const [received] = receiver.requests.filter((request) => request.path === hookPath);
    assert.ok(received, "the test reached the hook");
    const content = received.raw.toString("utf8");
    assert.equal(JSON.parse(content).test, true);
    const passed = await appTester(newLead.perform, {
      authData: auth(),
      subscribeData: again,
      cleanedRequest: JSON.parse(content),
      rawRequest: {
        content,
        headers: {
          "X-Service-Timestamp": String(received.headers["x-service-timestamp"]),
          "X-Service-Signature": String(received.headers["x-service-signature"]),
        },
      },
    });
    assert.deepEqual(passed, []);
    await appTester(newLead.performUnsubscribe, { authData: auth(), subscribeData: again });
  });

  test("Send Event queues the bound automation, maps other properties to custom fields, and absorbs a replay", async () => {
    const automation = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, {
      name: "Job done",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    assert.equal(automation.status, 201, automation.text);
    const inputData = {
      event_type: "job.completed",
      object_type: "job",
      dedup_id: "jobber-4711-completed",
      street: "742 Evergreen Terrace",
      city: "Springfield",
      state: "IL",
      zip: "62704",
      client_name: "Homer Simpson",
      properties: { "Roof Type": "Shingle", amount: "12000", "": "ignored" },
    };
    const sent = await appTester(operation("creates", "send_event").perform, { authData: auth(), inputData });
    assert.equal(sent.matched_automations, 1);
    assert.equal(sent.outcomes[0].reason, "queued", JSON.stringify(sent));
    const samples = await admin(ctx, "GET", `/orgs/${org.orgId}/event-samples`);
    const record = JSON.stringify(samples.body);
    assert.match(record, /"cf_roof_type":"Shingle"/);
    assert.match(record, /"amount":"12000"/);

    const replay = await appTester(operation("creates", "send_event").perform, {
      authData: auth(),
      inputData,
    });
    assert.equal(replay.duplicate, true);
    assert.equal(replay.outcomes[0].reason, "duplicate");

    await assert.rejects(
      appTester(operation("creates", "send_event").perform, {
        authData: auth(),
        inputData: { ...inputData, event_type: "Job Completed", dedup_id: "bad" },
      }),
      (error: Error) => /422/.test(error.message) && /event_type/.test(error.message),
    );
  });

  test("Send Event's Dry run mails nothing for any spelling of yes, and stops on a value that is neither yes nor no", async () => {
    const send = (dedup: string, dry_run: unknown) =>
      appTester(operation("creates", "send_event").perform, {
        authData: auth(),
        inputData: {
          event_type: "job.completed",
          object_type: "job",
          dedup_id: dedup,
          street: `${dedup.length + 900} Dry Run Ln`,
          zip: "62704",
          dry_run,
        },
      });
    for (const [index, yes] of [true, "true", "Yes", "1", 1, " TRUE "].entries()) {
      const answer = await send(`zap-dry-${index}`, yes);
      assert.equal(answer.dry_run, true, `${JSON.stringify(yes)} is a dry run: ${JSON.stringify(answer)}`);
    }
    for (const unclear of ["maybe", "2"]) {
      await assert.rejects(send(`zap-unclear-${unclear}`, unclear), (error: Error) =>
        /Dry run must be yes or no/.test(error.message),
      );
    }
    const campaigns = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
    assert.doesNotMatch(JSON.stringify(campaigns.body), /zap-dry-|zap-unclear-/, "nothing was mailed");
    const live = await send("zap-live-no", "no");
    assert.notEqual(live.dry_run, true);
    assert.equal(live.outcomes[0].reason, "queued", JSON.stringify(live));
    const after = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
    assert.match(
      JSON.stringify(after.body),
      /\(zap-live-no\)/,
      "a live event's campaign is listed by its dedup id",
    );
  });

  test("a paused platform asks Zapier to retry later, and a key without the scope says which scopes it needs", async () => {
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    try {
      const paused = appTester(operation("creates", "send_event").perform, {
        authData: auth(),
        inputData: {
          event_type: "job.completed",
          object_type: "job",
          dedup_id: "paused-1",
          street: "1 Main St",
          zip: "62704",
        },
      });
      await assert.rejects(paused, (error: Error) => {
        assert.equal(error.name, "ThrottledError");
        assert.deepEqual(JSON.parse(error.message).delay, 300, "Retry-After is handed to Zapier");
        assert.match(error.message, /automations_disabled/);
        return true;
      });
    } finally {
      await admin(ctx, "PUT", "/kill-switch", { paused: false });
    }
    const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
    await assert.rejects(
      appTester(operation("creates", "add_customer").perform, {
        authData: { ...auth(), api_key: importOnly },
        inputData: { address: "1 Main St, Springfield, IL 62704" },
      }),
      /events:write and webhooks:inbound scopes/,
    );
  });

  test("Record Won Deal credits the mailed campaign, and Add Customer suppresses an address once", async () => {
    const address = "19 Plympton Street, Springfield, IL 62704";
    const mailed = await mailOnePiece(ctx, org.orgId, { address, recipient_name: "Lisa" });
    const won = await appTester(operation("creates", "record_won_deal").perform, {
      authData: auth(),
      inputData: { address, deal_id: "deal-1", deal_amount: "8200", deal_date: new Date().toISOString() },
    });
    assert.equal(won.matched, true, JSON.stringify(won));
    assert.equal(won.campaign_id, mailed.campaignId);

    const customer = { address: "100 Industrial Way, Springfield, IL 62704", notes: "from Zapier" };
    const first = await appTester(operation("creates", "add_customer").perform, {
      authData: auth(),
      inputData: customer,
    });
    assert.equal(first.added, 1);
    const again = await appTester(operation("creates", "add_customer").perform, {
      authData: auth(),
      inputData: customer,
    });
    assert.equal(again.added, 0);
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/customers`);
    assert.ok(JSON.stringify(listed.body).includes("100 INDUSTRIAL"), listed.text);
  });
});
