import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { generateApiKey } from "../../src/domain/api-key-format.ts";
import { admin, call, createAutomation, createOrg, issueKey } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";

describe(`authentication and scopes (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-11-22T12:00:00Z");
  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  it("identifies the organization of an unrestricted key", async () => {
    const org = await createOrg(ctx, { name: "Acme Roofing" });
    const me = await call(ctx, "GET", "/api/v1/me", { key: org.key });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, { org_id: org.orgId, org_name: "Acme Roofing" });
  });

  it("answers 401 Unauthorized for a missing, malformed, unknown, revoked or expired key, all alike", async () => {
    const org = await createOrg(ctx);
    const revoked = await issueKey(ctx, org.orgId);
    const keyId = (await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, {})).body.id;
    const expiring = await issueKey(ctx, org.orgId, { expires_at: "2026-11-22T12:00:30Z" });
    assert.equal((await call(ctx, "GET", "/api/v1/me", { key: expiring })).status, 200);
    clock.advance(60_000);
    assert.equal((await admin(ctx, "DELETE", `/keys/${keyId}`)).status, 204);
    const revokedId = (await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, {})).body;
    assert.equal((await admin(ctx, "DELETE", `/keys/${revokedId.id}`)).status, 204);

    const cases: Record<string, Record<string, string>> = {
      missing: {},
      "not bearer": { authorization: `Basic ${org.key}` },
      malformed: { authorization: "Bearer ak_short" },
      unknown: { authorization: `Bearer ${generateApiKey()}` },
      revoked: { authorization: `Bearer ${revokedId.key}` },
      expired: { authorization: `Bearer ${expiring}` },
    };
    for (const [label, headers] of Object.entries(cases)) {
      const response = await call(ctx, "GET", "/api/v1/me", { headers });
      assert.equal(response.status, 401, label);
      assert.deepEqual(response.body, { error: "Unauthorized" }, label);
      assert.equal(response.headers["www-authenticate"], 'Bearer realm="api"', label);
    }
    assert.ok(revoked);
  });

  it("adds a detail saying the key looks mistyped only when its checksum does not match, in each endpoint's style", async () => {
    const org = await createOrg(ctx);
    const swap = (char: string) => (char === "a" ? "b" : "a");
    const middle = 20;
    const mistyped = [
      `${org.key.slice(0, -1)}${swap(org.key.at(-1)!)}`,
      `${org.key.slice(0, middle)}${swap(org.key[middle]!)}${org.key.slice(middle + 1)}`,
    ];
    const detail = /checksum does not match: it looks mistyped/;
    for (const key of mistyped) {
      const me = await call(ctx, "GET", "/api/v1/me", { key });
      assert.equal(me.status, 401);
      assert.deepEqual(Object.keys(me.body), ["error", "detail"]);
      assert.equal(me.body.error, "Unauthorized");
      assert.match(me.body.detail, detail);
      assert.equal(me.headers["www-authenticate"], 'Bearer realm="api"');
      const events = await call(ctx, "POST", "/api/v1/events", { key, body: {} });
      assert.equal(events.status, 401);
      assert.equal(events.body.error, "unauthorized");
      assert.match(events.body.detail, detail);
    }
    // Well-formed but unknown, malformed, or missing: exactly the spec's body, nothing that hints why.
    for (const key of [generateApiKey(), "ak_short", `${org.key}x`, undefined]) {
      const me = await call(ctx, "GET", "/api/v1/me", key === undefined ? {} : { key });
      assert.equal(me.status, 401, key);
      assert.deepEqual(me.body, { error: "Unauthorized" }, key);
      const events = await call(
        ctx,
        "POST",
        "/api/v1/events",
        key === undefined ? { body: {} } : { key, body: {} },
      );
      assert.deepEqual(events.body, { error: "unauthorized" }, key);
    }
  });

  it("says how to send a key sent without the Bearer scheme, whatever the key (the leads poll keeps its bare body)", async () => {
    const org = await createOrg(ctx);
    for (const headers of <Record<string, string>[]>[
      { authorization: org.key },
      { authorization: generateApiKey() },
      { authorization: `Bearer: ${org.key}` },
      { authorization: `Token ${org.key}` },
      { authorization: `Api-Key:${org.key}` },
      { "x-api-key": org.key },
    ]) {
      const me = await call(ctx, "GET", "/api/v1/me", { headers });
      assert.equal(me.status, 401);
      assert.deepEqual(me.body, {
        error: "Unauthorized",
        detail: "send the key as the header `Authorization: Bearer ak_…`",
      });
      const events = await call(ctx, "POST", "/api/v1/events", { headers, body: {} });
      assert.equal(events.body.error, "unauthorized");
      assert.match(events.body.detail, /Authorization: Bearer/);
      const poll = await call(ctx, "GET", "/api/v1/integrations/leads", { headers });
      assert.deepEqual(poll.body, { error: "Unauthorized" });
    }
    const basic = await call(ctx, "GET", "/api/v1/me", { headers: { authorization: "Basic dXNlcjpwYXNz" } });
    assert.deepEqual(basic.body, { error: "Unauthorized" }, "no key was sent: nothing to say");
  });

  it("issues an unrestricted key for a request without a body, and refuses a blank organization name", async () => {
    const org = await createOrg(ctx);
    const issued = await admin(ctx, "POST", `/orgs/${org.orgId}/keys`);
    assert.equal(issued.status, 201, issued.text);
    assert.equal(issued.body.scopes, null);
    const nullScopes = await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, { scopes: null });
    assert.equal(nullScopes.status, 201, nullScopes.text);
    assert.equal(nullScopes.body.scopes, null, "null scopes: unrestricted, like none sent");
    const blank = await admin(ctx, "POST", "/orgs", { name: "   " });
    assert.equal(blank.status, 422);
    assert.deepEqual(blank.body, { error: "invalid_payload", detail: "name: must not be blank" });
    const padded = await admin(ctx, "POST", "/orgs", { name: "  Acme  " });
    assert.equal(padded.body.org_name, "Acme");
  });

  it("refuses to issue a key that expires in the past (422 naming expires_at)", async () => {
    const org = await createOrg(ctx);
    const past = await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, { expires_at: "2000-01-01T00:00:00Z" });
    assert.equal(past.status, 422, past.text);
    assert.equal(past.body.detail, "expires_at: must be in the future");
  });

  it("treats two Authorization headers as none (401), never as the first key's tenant", async () => {
    const first = await createOrg(ctx);
    const second = await createOrg(ctx);
    const address = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    const get = (path: string, authorization: string | string[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const values = Array.isArray(authorization) ? authorization : [authorization];
        // Headers as a raw list (the only way to send one twice) get no Host of their own.
        const headers = ["host", "127.0.0.1", ...values.flatMap((value) => ["authorization", value])];
        const request = http.get(`${address}${path}`, { headers }, (response) => {
          let body = "";
          response.on("data", (chunk) => {
            body += chunk;
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.on("error", reject);
      });
    const both = [`Bearer ${first.key}`, `Bearer ${second.key}`];
    assert.equal((await get("/api/v1/me", both[0]!)).status, 200);
    const twice = await get("/api/v1/me", both);
    assert.equal(twice.status, 401);
    assert.deepEqual(JSON.parse(twice.body), { error: "Unauthorized" });
    const operator = `Bearer ${ctx.config.adminToken}`;
    const campaigns = `/admin/v1/orgs/${first.orgId}/campaigns`;
    assert.equal((await get(campaigns, operator)).status, 200);
    assert.equal((await get(campaigns, [operator, operator])).status, 401);
  });

  it("throttles operator-token guessing per IP: after 20 wrong tokens in a minute, 429 even for the right one", async () => {
    const org = await createOrg(ctx);
    const campaigns = `/admin/v1/orgs/${org.orgId}/campaigns`;
    const guess = (index: number, ip: string) =>
      call(ctx, "GET", campaigns, { ip, key: `guess-${index}-0123456789abcdef` });
    // Sent all at once, as pipelined requests would arrive: exactly 20 are judged.
    const burst = await Promise.all(Array.from({ length: 30 }, (_, index) => guess(index, "203.0.113.9")));
    const statuses = burst.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 401).length, 20, JSON.stringify(statuses));
    assert.equal(statuses.filter((status) => status === 429).length, 10);
    const refused = await call(ctx, "GET", campaigns, { ip: "203.0.113.9", key: ctx.config.adminToken });
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, { error: "rate_limited" });
    assert.ok(Number(refused.headers["retry-after"]) >= 1);
    const elsewhere = await call(ctx, "GET", campaigns, { key: ctx.config.adminToken });
    assert.equal(elsewhere.status, 200, "other addresses are not affected");
    // IPv6 guesses count per /64: rotating the interface id does not buy more.
    for (let index = 0; index < 20; index++) await guess(index, `2001:db8:1:2::${(index + 1).toString(16)}`);
    assert.equal((await guess(99, "2001:db8:1:2:ffff::1")).status, 429);
    assert.equal((await guess(99, "2001:db8:1:3::1")).status, 401, "another /64 is another client");
    clock.advance(60_000);
    assert.equal(
      (await call(ctx, "GET", campaigns, { ip: "203.0.113.9", key: ctx.config.adminToken })).status,
      200,
    );
  });

  it("revocation takes effect at once in the instance that revoked", async () => {
    const org = await createOrg(ctx);
    const issued = (await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, {})).body;
    assert.equal((await call(ctx, "GET", "/api/v1/me", { key: issued.key })).status, 200);
    assert.equal((await admin(ctx, "DELETE", `/keys/${issued.id}`)).status, 204);
    assert.equal((await call(ctx, "GET", "/api/v1/me", { key: issued.key })).status, 401);
  });

  it("lists an org's live keys and automations for the operator, never a key itself and never another org's", async () => {
    const org = await createOrg(ctx);
    const other = await createOrg(ctx);
    const issued = (
      await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, { name: "Zapier", scopes: ["events:write"] })
    ).body;
    const automation = await createAutomation(ctx, org.orgId, { name: "Job done postcard" });
    const keys = await admin(ctx, "GET", `/orgs/${org.orgId}/keys`);
    assert.equal(keys.status, 200, keys.text);
    const listed = keys.body.keys.find((key: { id: string }) => key.id === issued.id);
    assert.equal(listed.name, "Zapier");
    assert.deepEqual(listed.scopes, ["events:write"]);
    assert.ok(!keys.text.includes(issued.key), "the key itself is shown once, at issue");
    assert.equal((await admin(ctx, "DELETE", `/keys/${issued.id}`)).status, 204);
    const afterRevoke = await admin(ctx, "GET", `/orgs/${org.orgId}/keys`);
    assert.ok(
      !afterRevoke.body.keys.some((key: { id: string }) => key.id === issued.id),
      "a revoked key is gone",
    );

    const automations = await admin(ctx, "GET", `/orgs/${org.orgId}/automations`);
    assert.equal(automations.status, 200, automations.text);
    assert.deepEqual(
      automations.body.automations.map((item: { id: string; name: string }) => [item.id, item.name]),
      [[automation.id, "Job done postcard"]],
    );
    const theirs = await admin(ctx, "GET", `/orgs/${other.orgId}/automations`);
    assert.ok(!theirs.body.automations.some((item: { id: string }) => item.id === automation.id));
    assert.equal((await admin(ctx, "GET", "/orgs/00000000-0000-4000-8000-000000000000/keys")).status, 404);
  });

  it("enforces scopes: a declared scope set must include the endpoint's scope", async () => {
    const org = await createOrg(ctx);
    const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
    const inbound = await issueKey(ctx, org.orgId, { scopes: ["webhooks:inbound"] });
    const denied = await call(ctx, "GET", "/api/v1/me", { key: importOnly });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { error: "Unauthorized" });
    assert.equal((await call(ctx, "GET", "/api/v1/me", { key: inbound })).status, 200);
    assert.equal((await call(ctx, "GET", "/api/v1/automation/list", { key: importOnly })).status, 403);
    const emptyScopes = await issueKey(ctx, org.orgId, { scopes: [] });
    assert.equal((await call(ctx, "GET", "/api/v1/me", { key: emptyScopes })).status, 200);
  });

  it("answers 403 on /me when the organization has no billing owner", async () => {
    const org = await createOrg(ctx, { billingOwner: false });
    const response = await call(ctx, "GET", "/api/v1/me", { key: org.key });
    assert.equal(response.status, 403);
    assert.deepEqual(response.body, { error: "Unauthorized" });
  });

  it("lists only the caller's automations", async () => {
    const org = await createOrg(ctx);
    const other = await createOrg(ctx);
    const mine = await createAutomation(ctx, org.orgId, { name: "Post-job thank you" });
    await createAutomation(ctx, other.orgId, { name: "Not mine" });
    const list = await call(ctx, "GET", "/api/v1/automation/list", { key: org.key });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, {
      automations: [{ id: mine.id, name: "Post-job thank you", enabled: true }],
    });
  });
});
