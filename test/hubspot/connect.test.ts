import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryOne, sql } from "../../src/db/database.ts";
import {
  AppBrowser,
  createAppTestContext,
  createOrg,
  inviteAndAccept,
  type SignedInUser,
} from "../app-api/helpers.ts";
import { type FakeHubSpot, startFakeHubSpot } from "../helpers/fake-hubspot.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  API,
  connectHubSpot,
  createHubSpotContext,
  type HubSpotTestContext,
  outcomeOf,
  pathOf,
  startConnect,
  WEBHOOK_PATH,
} from "./helpers.ts";

describe(`HubSpot connect from Settings → Connections (${databaseLabel})`, () => {
  const clock = fixedClock("2026-11-28T09:00:00Z");
  let fake: FakeHubSpot;
  let ctx: HubSpotTestContext;
  let orgId: string;
  let owner: SignedInUser;
  let member: SignedInUser;

  before(async () => {
    fake = await startFakeHubSpot();
    ctx = await createHubSpotContext(fake, clock);
    orgId = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, orgId, `owner-${randomUUID()}@example.com`, "owner");
    member = await inviteAndAccept(ctx, orgId, `member-${randomUUID()}@example.com`, "member", "Mo");
  });
  after(async () => {
    await ctx.close();
    await fake.close();
  });

  const status = async (user = owner) => {
    const answer = await user.browser.request("GET", `${API}/connectors/hubspot`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };
  const back = (user: SignedInUser, callbackUrl: string) => user.browser.request("GET", pathOf(callbackUrl));

  test("the authorize URL names the operator's app, the callback URL, read scopes and a fresh state", async () => {
    const first = new URL(await startConnect(owner));
    const second = new URL(await startConnect(owner));
    assert.equal(`${first.origin}${first.pathname}`, fake.config.authUrl);
    assert.equal(first.searchParams.get("client_id"), fake.config.clientId);
    assert.equal(
      first.searchParams.get("redirect_uri"),
      "http://porchlight.test/connectors/hubspot/callback",
    );
    assert.deepEqual(first.searchParams.get("scope")?.split(" "), [
      "oauth",
      "crm.objects.contacts.read",
      "crm.objects.deals.read",
      "crm.objects.companies.read",
    ]);
    assert.match(first.searchParams.get("state") ?? "", /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first.searchParams.get("state"), second.searchParams.get("state"));
    const stored = await queryOne<{ n: number | string }>(
      ctx.database.db,
      sql`SELECT count(*) AS n FROM hubspot_oauth_states
          WHERE state_hash = ${first.searchParams.get("state")}`,
    );
    assert.equal(Number(stored?.n), 0, "only the state's hash is stored");
    assert.deepEqual((await status()).connection, null);
  });

  test("HubSpot's redirect back stores the portal, with the tokens sealed, and the state is single-use", async () => {
    const callback = fake.grant(await startConnect(owner));
    assert.equal(outcomeOf(await back(owner, callback)), "connected");
    const { connection, configured, event_types } = await status();
    assert.equal(configured, true);
    assert.deepEqual(connection, {
      portal_id: String(fake.portalId),
      connected_at: "2026-11-28T09:00:00.000Z",
      last_event_at: null,
      won_stages: ["closedwon"],
      needs_reconnect: false,
    });
    assert.deepEqual(event_types, [
      "hubspot.contact_created",
      "hubspot.contact_changed",
      "hubspot.deal_created",
      "hubspot.deal_stage_changed",
    ]);
    assert.deepEqual(
      fake.calls.filter((call) => call.path === "/oauth/v1/token").map((call) => call.grant),
      ["authorization_code"],
    );
    assert.ok(fake.calls.some((call) => call.path.startsWith("/oauth/v1/access-tokens/")));

    const row = await queryOne<{ access_token_sealed: string; refresh_token_sealed: string }>(
      ctx.database.db,
      sql`SELECT access_token_sealed, refresh_token_sealed FROM hubspot_connections WHERE org_id = ${orgId}::uuid`,
    );
    const accessToken = fake.issuedAccessTokens.at(-1)!;
    assert.match(row!.access_token_sealed, /^v1\./);
    assert.ok(!row!.access_token_sealed.includes(accessToken), "the access token is not stored in clear");
    assert.ok(!row!.refresh_token_sealed.includes("na1-"), "nor the refresh token");

    // The same redirect again (a replay, the back button): refused, nothing changes.
    const exchanges = fake.calls.length;
    assert.equal(outcomeOf(await back(owner, callback)), "state_refused");
    assert.equal(fake.calls.length, exchanges, "a refused state never reaches HubSpot");
  });

  test("a state is bound to the session that asked: another session, even the same owner's, is refused", async () => {
    const otherSession = new AppBrowser(ctx);
    assert.equal((await otherSession.signIn(owner.email)).status, 200);
    const callback = fake.grant(await startConnect(owner));
    const asOther = await otherSession.request("GET", pathOf(callback));
    assert.equal(outcomeOf(asOther), "state_refused");
    // Refusing it there did not use it up for the session it belongs to.
    assert.equal(outcomeOf(await back(owner, callback)), "connected");
  });

  test("a mismatched, expired or missing state, a missing code, a signed-out browser and Cancel are refused", async () => {
    const callback = new URL(fake.grant(await startConnect(owner)));
    const state = callback.searchParams.get("state")!;
    const withState = (value: string) => {
      const changed = new URL(callback);
      changed.searchParams.set("state", value);
      return changed.toString();
    };
    assert.equal(
      outcomeOf(await back(owner, withState(`${state.slice(0, -1)}${state.endsWith("A") ? "B" : "A"}`))),
      "state_refused",
    );
    assert.equal(outcomeOf(await back(owner, withState("' OR 1=1 --"))), "state_refused");
    const noCode = new URL(callback);
    noCode.searchParams.delete("code");
    assert.equal(outcomeOf(await back(owner, noCode.toString())), "state_refused");
    assert.equal(
      outcomeOf(await new AppBrowser(ctx).request("GET", pathOf(callback.toString()))),
      "signed_out",
    );
    const cancelled = `/connectors/hubspot/callback?error=access_denied&state=${state}`;
    assert.equal(outcomeOf(await owner.browser.request("GET", cancelled)), "denied");

    clock.advance(10 * 60 * 1000 + 1);
    assert.equal(outcomeOf(await back(owner, callback.toString())), "state_refused", "10 minutes at most");
  });

  test("members can neither see, start, change nor end a connection", async () => {
    for (const [method, path, body] of [
      ["GET", "/connectors/hubspot", undefined],
      ["POST", "/connectors/hubspot/connect", undefined],
      ["PUT", "/connectors/hubspot/won-stages", { won_stages: ["closedwon"] }],
      ["DELETE", "/connectors/hubspot", undefined],
    ] as const) {
      const answer = await member.browser.request(method, `${API}${path}`, body ? { body } : {});
      assert.equal(answer.status, 403, `${method} ${path}: ${answer.text}`);
    }
  });

  test("an owner names the won stages; bad stage ids are refused", async () => {
    const set = await owner.browser.request("PUT", `${API}/connectors/hubspot/won-stages`, {
      body: { won_stages: ["closedwon", "12345678"] },
    });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.connection.won_stages, ["closedwon", "12345678"]);
    for (const won_stages of [[], ["closed won"], ["x".repeat(101)]]) {
      const refused = await owner.browser.request("PUT", `${API}/connectors/hubspot/won-stages`, {
        body: { won_stages },
      });
      assert.equal(refused.status, 422, JSON.stringify(won_stages));
    }
    assert.deepEqual((await status()).connection.won_stages, ["closedwon", "12345678"]);
    // A stage typed twice is kept once, not refused with a validator's wording.
    const twice = await owner.browser.request("PUT", `${API}/connectors/hubspot/won-stages`, {
      body: { won_stages: ["closedwon", "12345678", "closedwon"] },
    });
    assert.equal(twice.status, 200, twice.text);
    assert.deepEqual(twice.body.connection.won_stages, ["closedwon", "12345678"]);
  });

  test("a portal another organization connected is refused there", async () => {
    const otherOrg = await createOrg(ctx, "Other Roofing");
    const otherOwner = await inviteAndAccept(ctx, otherOrg, `other-${randomUUID()}@example.com`, "owner");
    const callback = fake.grant(await startConnect(otherOwner));
    assert.equal(outcomeOf(await back(otherOwner, callback)), "portal_taken");
    assert.equal((await status(otherOwner)).connection, null);
  });

  test("disconnecting deletes the tokens; a second disconnect is 404", async () => {
    const removed = await owner.browser.request("DELETE", `${API}/connectors/hubspot`);
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await status()).connection, null);
    const row = await queryOne(
      ctx.database.db,
      sql`SELECT 1 FROM hubspot_connections WHERE org_id = ${orgId}::uuid`,
    );
    assert.equal(row, undefined);
    assert.equal((await owner.browser.request("DELETE", `${API}/connectors/hubspot`)).status, 404);
    // Connecting again works as the first time.
    await connectHubSpot(fake, owner);
    assert.equal((await status()).connection.portal_id, String(fake.portalId));
  });
});

describe(`HubSpot not configured by the operator (${databaseLabel})`, () => {
  let ctx: TestContext;
  let owner: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext();
    owner = await inviteAndAccept(ctx, await createOrg(ctx), `owner-${randomUUID()}@example.com`, "owner");
  });
  after(async () => ctx.close());

  test("the app says so, connecting is refused, the callback and the webhook answer that it is not set up", async () => {
    const shown = await owner.browser.request("GET", `${API}/connectors/hubspot`);
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.body.configured, false);
    assert.equal(shown.body.connection, null);
    const connect = await owner.browser.request("POST", `${API}/connectors/hubspot/connect`);
    assert.equal(connect.status, 409);
    assert.equal(connect.body.error.code, "hubspot_not_configured");
    const callback = await owner.browser.request("GET", "/connectors/hubspot/callback?code=x&state=y");
    assert.equal(outcomeOf(callback), "not_configured");
    const webhook = await ctx.app.inject({ method: "POST", url: WEBHOOK_PATH, payload: "[]" });
    assert.equal(webhook.statusCode, 503);
    assert.equal(JSON.parse(webhook.body).error, "connector_not_configured");
  });
});
