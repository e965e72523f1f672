import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { SAMPLE_LEAD_ID } from "../../src/leads/polling.ts";
import type { DeliveryClient } from "../../src/webhooks/delivery-client.ts";
import { call, createOrg, type TestOrg } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { type HttpsReceiver, startHttpsReceiver } from "../helpers/https-receiver.ts";
import {
  addLeadField,
  createLeadsContext,
  drainJobs,
  type LeadsTestContext,
  testDeliveryClient,
  verifySignature,
} from "../leads/leads-helpers.ts";
import { inviteAndAccept, type SignedInUser } from "./helpers.ts";

const API = "/app/api/v1";

describe(`app API: Developers → Webhooks (${databaseLabel})`, () => {
  const clock = fixedClock("2026-11-28T09:00:00Z");
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  let ctx: LeadsTestContext;
  let receiver: HttpsReceiver;
  let client: DeliveryClient;
  let org: TestOrg;
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;

  before(async () => {
    receiver = await startHttpsReceiver();
    ctx = await createLeadsContext({
      clock,
      // The receiver is on loopback: only its name and address are let through the SSRF guard.
      allowPrivateTargets: ["receiver.test", "127.0.0.1"],
      hosts: { "receiver.test": ["127.0.0.1"], "rebind.test": ["93.184.216.34"], "inner.test": ["10.1.2.3"] },
    });
    client = testDeliveryClient(ctx, { ca: receiver.ca });
    org = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, `owner-${randomUUID()}@example.com`, "owner");
    member = await inviteAndAccept(ctx, org.orgId, `member-${randomUUID()}@example.com`, "member", "Mo");
    const other = await createOrg(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, `other-${randomUUID()}@example.com`, "owner");
  });
  after(async () => {
    await client.close();
    await receiver.close();
    await ctx.close();
  });

  const list = async (user = owner) => {
    const answer = await user.browser.request("GET", `${API}/subscriptions`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body.subscriptions as any[];
  };
  const add = (targetUrl: string, user = owner) =>
    user.browser.request("POST", `${API}/subscriptions`, { body: { target_url: targetUrl } });

  test("at the most endpoints an organization may have, the owner is told in words what to do", async () => {
    const crowded = await createOrg(ctx);
    const crowdedOwner = await inviteAndAccept(
      ctx,
      crowded.orgId,
      `crowded-${randomUUID()}@example.com`,
      "owner",
    );
    for (let index = 0; index < 20; index++) {
      const added = await add(receiver.url(`/crowded-${index}`), crowdedOwner);
      assert.equal(added.status, 201, added.text);
    }
    const refused = await add(receiver.url("/crowded-20"), crowdedOwner);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(
      refused.body.error.message,
      "You have 20 webhook endpoints, the most an organization can have. Delete one you no longer use, then add this one.",
    );
    // The developer API keeps its own words.
    const api = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: crowded.key,
      body: { target_url: receiver.url("/crowded-21"), event: "lead.created" },
    });
    assert.equal(api.status, 400, api.text);
    assert.match(api.text, /an organization may have at most 20 subscriptions/);
  });

  test("an owner adds an endpoint, sees its secret once, and it is the developer API's subscription", async () => {
    const url = receiver.url("/added");
    const created = await add(url);
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.signing_secret, /^whsec_/);
    assert.equal(created.body.target_url, url);

    const [listed] = (await list()).filter((s) => s.id === created.body.id);
    assert.ok(listed);
    assert.equal(listed.signed, true);
    assert.equal(listed.test_pending, false);
    assert.deepEqual(listed.recent_deliveries, []);
    assert.equal(listed.last_delivery, null);
    assert.ok(!("signing_secret" in listed), "the list never shows a secret");

    // The developer API sees the same record: re-subscribing answers its id without the secret.
    const again = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { target_url: url },
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, created.body.id);
    assert.equal(again.body.signing_secret, null);

    const twice = await add(url);
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error.code, "already_subscribed");

    // And one subscribed through the developer API shows in the app.
    const viaApi = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { target_url: receiver.url("/from-the-api") },
    });
    assert.ok((await list()).some((s) => s.id === viaApi.body.id));
  });

  test("refuses what the developer API refuses: not https, private or unresolvable hosts", async () => {
    const refusals: [string, RegExp][] = [
      ["http://hooks.example.com/x", /https/i],
      ["https://inner.test/x", /public|not allowed/i],
      ["https://169.254.169.254/latest/meta-data", /public|not allowed/i],
      ["https://nowhere.test/x", /resolve|public|not allowed/i],
    ];
    for (const [url, reason] of refusals) {
      const refused = await add(url);
      assert.equal(refused.status, 400, `${url}: ${refused.text}`);
      assert.equal(refused.body.error.code, "subscribe_failed", url);
      assert.match(refused.body.error.message, reason, url);
    }
    // A host that is private, one that does not resolve and a private address typed as the host
    // read alike, in a contractor's words.
    for (const host of ["inner.test", "nowhere.test", "10.0.0.1", "169.254.169.254", "[::1]"]) {
      const refused = await add(`https://${host}/x`);
      assert.equal(
        refused.body.error.message,
        `We could not reach ${host} on the public internet. Check the address is your CRM's public URL, not a local or private one.`,
        host,
      );
    }
    // The developer API keeps its contract's wording for the same address.
    const viaApi = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { target_url: "https://10.0.0.1/" },
    });
    assert.equal(viaApi.status, 400);
    assert.deepEqual(viaApi.body, {
      error: "Failed to subscribe",
      detail: "target address is not public: 10.0.0.1 is a private address",
    });
    const tooLong = await add(`https://receiver.test/${"a".repeat(2100)}`);
    assert.equal(tooLong.status, 422);
    assert.ok(!(await list()).some((s) => !String(s.target_url).startsWith("https://receiver.test")));
  });

  test("a test delivery is the sample lead, signed exactly like a real delivery, and shows in the log", async () => {
    const path = `/test-${randomUUID()}`;
    await addLeadField(ctx, org.orgId, { field_id: "roof_age", label: "Roof age", type: "text" });
    const created = (await add(receiver.url(path))).body;
    const queued = await owner.browser.request("POST", `${API}/subscriptions/${created.id}/test`);
    assert.equal(queued.status, 202, queued.text);
    assert.match(queued.body.delivery_id, /^[0-9a-f-]{36}$/);
    const pending = (await list()).find((s) => s.id === created.id);
    assert.equal(pending.test_pending, true);

    assert.ok((await drainJobs(ctx, client)) >= 1);
    const received = receiver.requests.filter((request) => request.path === path);
    assert.equal(received.length, 1);
    const [request] = received;
    assert.ok(verifySignature(created.signing_secret, request!.headers, request!.raw, nowSeconds()));
    const body = JSON.parse(request!.raw.toString("utf8"));
    assert.equal(body.test, true);
    assert.equal(body.id, SAMPLE_LEAD_ID);
    assert.equal(body.service_lead_id, SAMPLE_LEAD_ID);
    assert.equal(body.created_at, clock.now().toISOString());
    assert.equal(typeof body.email, "string");
    assert.equal(body.custom_roof_age, "Sample answer to Roof age", "the form's own fields, to map");

    const [shown] = (await list()).filter((s) => s.id === created.id);
    assert.equal(shown.test_pending, false);
    assert.equal(shown.recent_deliveries.length, 1);
    assert.deepEqual(
      {
        id: shown.recent_deliveries[0].id,
        test: shown.recent_deliveries[0].test,
        outcome: shown.recent_deliveries[0].outcome,
        status_code: shown.recent_deliveries[0].status_code,
        attempt: shown.recent_deliveries[0].attempt,
      },
      { id: queued.body.delivery_id, test: true, outcome: "attempted", status_code: 200, attempt: 1 },
    );
    assert.deepEqual(shown.last_delivery, {
      outcome: "attempted",
      status_code: 200,
      at: clock.now().toISOString(),
    });

    // A second test is its own first attempt, not a retry of the first.
    await owner.browser.request("POST", `${API}/subscriptions/${created.id}/test`);
    await drainJobs(ctx, client);
    const log = await owner.browser.request("GET", `${API}/subscriptions/${created.id}/deliveries`);
    assert.equal(log.status, 200);
    assert.deepEqual(
      log.body.deliveries.map((d: any) => [d.test, d.attempt]),
      [
        [true, 1],
        [true, 1],
      ],
    );
  });

  test("a test waiting to be sent is the one answered: pressing Send test again queues no other request", async () => {
    // Each test is an HTTPS request the service makes to an address the owner chose: an owner once
    // queued 30 in a row to one endpoint, as many as they liked, all sent to a third party's server.
    const path = `/again-${randomUUID()}`;
    const created = (await add(receiver.url(path))).body;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const queued = await owner.browser.request("POST", `${API}/subscriptions/${created.id}/test`);
      assert.equal(queued.status, 202, queued.text);
      ids.push(queued.body.delivery_id);
    }
    assert.deepEqual(new Set(ids), new Set([ids[0]]), "the same pending test each time");
    await drainJobs(ctx, client);
    assert.equal(receiver.requests.filter((request) => request.path === path).length, 1);
    const next = await owner.browser.request("POST", `${API}/subscriptions/${created.id}/test`);
    assert.equal(next.status, 202, next.text);
    assert.notEqual(next.body.delivery_id, ids[0], "once sent, a new test can be queued");
    await drainJobs(ctx, client);
    assert.equal(receiver.requests.filter((request) => request.path === path).length, 2);
  });

  test("Send test pressed in parallel queues one test, and an endpoint takes at most 10 presses in 10 minutes", async () => {
    const path = `/parallel-${randomUUID()}`;
    const created = (await add(receiver.url(path))).body;
    // Each press spells the id with its own capitals: PostgreSQL reads them all as one uuid, so
    // they must share one waiting test and one count (each spelling once had 10 presses of its own).
    let presses = 0;
    const spelled = (id: string, n: number) =>
      [...id].map((char, index) => ((n >> (index % 8)) & 1 ? char.toUpperCase() : char)).join("");
    const press = () =>
      owner.browser.request("POST", `${API}/subscriptions/${spelled(created.id, presses++)}/test`);
    const answers = await Promise.all(Array.from({ length: 10 }, press));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(10).fill(202),
    );
    assert.equal(new Set(answers.map((answer) => answer.body.delivery_id)).size, 1, "one test queued");
    await drainJobs(ctx, client);
    assert.equal(receiver.requests.filter((request) => request.path === path).length, 1);
    const eleventh = await press();
    assert.equal(eleventh.status, 429, eleventh.text);
    assert.equal(eleventh.body.error.code, "rate_limited");
    await drainJobs(ctx, client);
    assert.equal(receiver.requests.filter((request) => request.path === path).length, 1, "nothing more sent");
  });

  test("the address is checked again at delivery: a host that now resolves privately is blocked", async () => {
    ctx.resolver.set("rebind.test", ["93.184.216.34"]);
    const created = (await add("https://rebind.test/hook")).body;
    assert.ok(created.id, "public at registration");
    ctx.resolver.set("rebind.test", ["10.9.8.7"]);
    await owner.browser.request("POST", `${API}/subscriptions/${created.id}/test`);
    await drainJobs(ctx, client);
    const [shown] = (await list()).filter((s) => s.id === created.id);
    assert.equal(shown.recent_deliveries[0].outcome, "blocked");
    assert.equal(shown.recent_deliveries[0].status_code, null);
    // The owner reads why, not where the name now points: no internal address (a DNS-rebinding
    // name would otherwise be a lookup tool for the service's own network).
    assert.doesNotMatch(JSON.stringify(shown.recent_deliveries[0]), /10\.9\.8\.7/);
    assert.equal(shown.recent_deliveries[0].test, true);
  });

  test("rotating the secret returns a new one, which signs the next delivery", async () => {
    const path = `/rotate-${randomUUID()}`;
    const created = (await add(receiver.url(path))).body;
    const rotated = await owner.browser.request("POST", `${API}/subscriptions/${created.id}/rotate-secret`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.id, created.id);
    assert.match(rotated.body.signing_secret, /^whsec_/);
    assert.notEqual(rotated.body.signing_secret, created.signing_secret);

    await owner.browser.request("POST", `${API}/subscriptions/${created.id}/test`);
    await drainJobs(ctx, client);
    const [request] = receiver.requests.filter((r) => r.path === path);
    assert.ok(request);
    assert.ok(verifySignature(rotated.body.signing_secret, request.headers, request.raw, nowSeconds()));
    assert.ok(!verifySignature(created.signing_secret, request.headers, request.raw, nowSeconds()));
  });

  test("deleting removes the developer API's subscription too, and a queued test is dropped", async () => {
    const path = `/delete-${randomUUID()}`;
    const created = (await add(receiver.url(path))).body;
    await owner.browser.request("POST", `${API}/subscriptions/${created.id}/test`);
    const removed = await owner.browser.request("DELETE", `${API}/subscriptions/${created.id}`);
    assert.equal(removed.status, 204);
    assert.ok(!(await list()).some((s) => s.id === created.id));
    await drainJobs(ctx, client);
    assert.equal(receiver.requests.filter((r) => r.path === path).length, 0);

    const again = await owner.browser.request("DELETE", `${API}/subscriptions/${created.id}`);
    assert.equal(again.status, 404);
    const viaApi = await call(ctx, "DELETE", `/api/v1/webhooks/subscribe?id=${created.id}`, { key: org.key });
    assert.equal(viaApi.status, 404);
  });

  test("members get 403 on every webhook route; another org's owner gets 404 for this org's ids", async () => {
    const created = (await add(receiver.url(`/guarded-${randomUUID()}`))).body;
    const routes: [string, string, unknown?][] = [
      ["GET", `${API}/subscriptions`],
      ["POST", `${API}/subscriptions`, { target_url: receiver.url("/member") }],
      ["POST", `${API}/subscriptions/${created.id}/test`],
      ["POST", `${API}/subscriptions/${created.id}/rotate-secret`],
      ["DELETE", `${API}/subscriptions/${created.id}`],
      ["GET", `${API}/subscriptions/${created.id}/deliveries`],
    ];
    for (const [method, url, body] of routes) {
      const answer = await member.browser.request(method as "GET", url, body === undefined ? {} : { body });
      assert.equal(answer.status, 403, `${method} ${url}`);
      assert.equal(answer.body.error.code, "forbidden");
    }
    for (const [method, url] of routes.slice(2)) {
      const answer = await otherOwner.browser.request(method as "GET", url);
      assert.equal(answer.status, 404, `${method} ${url}: ${answer.text}`);
      assert.equal(answer.body.error.code, "not_found");
    }
    for (const id of ["not-a-uuid", randomUUID()]) {
      const answer = await owner.browser.request("POST", `${API}/subscriptions/${id}/test`);
      assert.equal(answer.status, 404);
    }
    assert.deepEqual(await list(otherOwner), []);
    assert.ok(
      (await list()).some((s) => s.id === created.id),
      "nothing was changed by the refused calls",
    );
  });
});
