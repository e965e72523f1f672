import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { fixedClock } from "../../src/clock.ts";
import { admin, call, createOrg, issueKey } from "../helpers/api.ts";
import { createTestContext, databaseLabel } from "../helpers/harness.ts";
import { createLeadsContext, fakeResolver, type LeadsTestContext, subscribe } from "./leads-helpers.ts";

const PUBLIC_HOST = "hooks.example.com";

describe(`lead subscriptions (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  before(async () => {
    ctx = await createLeadsContext({
      clock: fixedClock("2026-11-22T12:00:00Z"),
      hosts: {
        [PUBLIC_HOST]: ["93.184.216.34"],
        "rebind.example.com": ["127.0.0.1"],
        "internal.example.com": ["10.1.2.3", "93.184.216.34"],
      },
    });
  });
  after(async () => ctx.close());

  it("subscribes a public https URL and shows the signing secret once", async () => {
    const org = await createOrg(ctx);
    const first = await subscribe(ctx, org.key, `https://${PUBLIC_HOST}/leads`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(Object.keys(first.body).sort(), ["event", "id", "signing_secret", "target_url"]);
    assert.equal(first.body.event, "lead.created");
    assert.equal(first.body.target_url, `https://${PUBLIC_HOST}/leads`);
    assert.match(first.body.signing_secret, /^whsec_[A-Za-z0-9_-]{43}$/);

    const again = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { target_url: `https://${PUBLIC_HOST}/leads`, event: "lead.created", org_id: "someone-else" },
    });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { ...first.body, signing_secret: null });
  });

  it("reads a null event, id or target_url as absent (typed clients send null for an unset field)", async () => {
    const org = await createOrg(ctx);
    const url = `https://${PUBLIC_HOST}/nullable`;
    const created = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { target_url: url, event: null },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.event, "lead.created");
    const rotated = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
      key: org.key,
      body: { id: null, target_url: url, event: null },
    });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.id, created.body.id);
    const byId = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
      key: org.key,
      body: { id: created.body.id, target_url: null },
    });
    assert.equal(byId.status, 200, byId.text);
    const wrongType = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { target_url: url, event: 5 },
    });
    assert.equal(wrongType.status, 422);
    assert.match(wrongType.body.detail, /^event: /);
  });

  it("answers 400 Failed to subscribe with a reason for every rejected URL or event", async () => {
    const org = await createOrg(ctx);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ target_url: `http://${PUBLIC_HOST}/leads` }, /https/],
      [{ target_url: "https://127.0.0.1/leads" }, /not public/],
      [{ target_url: "https://[::ffff:10.0.0.1]/" }, /not public/],
      // The caller learns that the name is refused, not whether it resolves nor to which address.
      [
        { target_url: "https://rebind.example.com/leads" },
        /^target host rebind\.example\.com does not resolve to a public address$/,
      ],
      [
        { target_url: "https://internal.example.com/leads" },
        /^target host internal\.example\.com does not resolve to a public address$/,
      ],
      [
        { target_url: "https://nowhere.example.com/leads" },
        /^target host nowhere\.example\.com does not resolve to a public address$/,
      ],
      [{ target_url: "not-a-url" }, /valid URL/],
      [{ target_url: `https://${PUBLIC_HOST}/a\nb` }, /spaces or control characters/],
      [{ target_url: `https://${PUBLIC_HOST}:4\t43/leads` }, /spaces or control characters/],
      [{ target_url: `https://${PUBLIC_HOST}/a b` }, /spaces or control characters/],
      [{ target_url: `https://${PUBLIC_HOST}:0/leads` }, /port 0/],
      [{ target_url: `https://${PUBLIC_HOST}/leads`, event: "lead.updated" }, /lead\.created/],
    ];
    for (const [body, detail] of cases) {
      const response = await call(ctx, "POST", "/api/v1/webhooks/subscribe", { key: org.key, body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body.error, "Failed to subscribe");
      assert.match(response.body.detail, detail, JSON.stringify(body));
    }
    const missing = await call(ctx, "POST", "/api/v1/webhooks/subscribe", { key: org.key, body: {} });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body, { error: "Failed to subscribe", detail: "target_url: is required" });
    const list = await admin(ctx, "GET", `/orgs/${org.orgId}/subscriptions`);
    assert.deepEqual(list.body.subscriptions, []);
  });

  it("names a refused IP literal's range in words with its article, not the address library's identifier", async () => {
    const org = await createOrg(ctx);
    const cases: [string, string][] = [
      ["100.64.0.1", "100.64.0.1 is a carrier-grade NAT (CGNAT) address"],
      ["0.0.0.0", "0.0.0.0 is an unspecified address"],
      ["169.254.169.254", "169.254.169.254 is a link-local address"],
      ["[fc00::1]", "fc00::1 is a unique local (ULA) address"],
      ["[2001:20::1]", "2001:20::1 is an ORCHIDv2 address"],
      ["10.0.0.1", "10.0.0.1 is a private address"],
    ];
    for (const [host, reason] of cases) {
      const response = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
        key: org.key,
        body: { target_url: `https://${host}/leads` },
      });
      assert.equal(response.status, 400, host);
      assert.deepEqual(response.body, {
        error: "Failed to subscribe",
        detail: `target address is not public: ${reason}`,
      });
    }
  });

  it("drops the #fragment, which is never sent: URLs differing only by it are one subscription", async () => {
    const org = await createOrg(ctx);
    const first = await subscribe(ctx, org.key, `https://${PUBLIC_HOST}/frag#crm`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.target_url, `https://${PUBLIC_HOST}/frag`);
    assert.match(first.body.signing_secret, /^whsec_/);
    for (const variant of ["", "#", "#other"]) {
      const again = await subscribe(ctx, org.key, `https://${PUBLIC_HOST}/frag${variant}`);
      assert.deepEqual(again.body, { ...first.body, signing_secret: null }, variant);
    }
    const rotated = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
      key: org.key,
      body: { target_url: `https://${PUBLIC_HOST}/frag#rotate` },
    });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.body.id, first.body.id);
    const deleted = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
      key: org.key,
      query: { target_url: `https://${PUBLIC_HOST}/frag#` },
    });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.id, first.body.id);
    assert.deepEqual((await admin(ctx, "GET", `/orgs/${org.orgId}/subscriptions`)).body.subscriptions, []);
  });

  it("refuses with 422 naming target_url a URL too long once percent-encoded, on subscribe, unsubscribe and rotate", async () => {
    const org = await createOrg(ctx);
    const base = `https://${PUBLIC_HOST}/`;
    // "é" is stored as %C3%A9: 337 of them make exactly 2048 characters once normalized.
    const longest = `${base}${"é".repeat(337)}`;
    const accepted = await subscribe(ctx, org.key, longest);
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.target_url.length, 2048);

    // 1026 characters as sent (within the 2048 the schema allows), about 12 KB once encoded: the
    // unique index refused the row and subscribe answered 500, which clients retry forever.
    const astral = `${base}${"\u{2F800}".repeat(1000)}`;
    const detail = /^target_url: must NOT have more than 2048 characters once normalized/;
    for (const targetUrl of [astral, `${longest}a`]) {
      const refused = await subscribe(ctx, org.key, targetUrl);
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.body.error, "Failed to subscribe");
      assert.match(refused.body.detail, detail);
      const unsubscribed = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
        key: org.key,
        query: { target_url: targetUrl },
      });
      assert.equal(unsubscribed.status, 422, unsubscribed.text);
      assert.equal(unsubscribed.body.error, "invalid_payload");
      assert.match(unsubscribed.body.detail, detail);
      const rotated = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
        key: org.key,
        body: { target_url: targetUrl },
      });
      assert.equal(rotated.status, 422, rotated.text);
      assert.equal(rotated.body.error, "invalid_payload");
      assert.match(rotated.body.detail, detail);
    }
    const listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/subscriptions`)).body.subscriptions;
    assert.deepEqual(
      listed.map((s: { id: string }) => s.id),
      [accepted.body.id],
    );
  });

  it("answers Unauthorized for a bad key and a key without webhooks:inbound", async () => {
    const org = await createOrg(ctx);
    const eventsOnly = await issueKey(ctx, org.orgId, { scopes: ["events:write"] });
    for (const [method, url, body] of [
      ["POST", "/api/v1/webhooks/subscribe", { target_url: `https://${PUBLIC_HOST}/x` }],
      ["DELETE", "/api/v1/webhooks/subscribe?id=00000000-0000-0000-0000-000000000001", undefined],
      ["POST", "/api/v1/webhooks/rotate", { id: "00000000-0000-0000-0000-000000000001" }],
      ["GET", "/api/v1/integrations/leads", undefined],
    ] as const) {
      const missing = await call(ctx, method, url, { body });
      assert.equal(missing.status, 401, url);
      assert.deepEqual(missing.body, { error: "Unauthorized" });
      const wrongScope = await call(ctx, method, url, { key: eventsOnly, body });
      assert.equal(wrongScope.status, 403, url);
      assert.deepEqual(wrongScope.body, { error: "Unauthorized" });
    }
  });

  it("unsubscribes by id or by target_url, only within the caller's organization", async () => {
    const org = await createOrg(ctx);
    const other = await createOrg(ctx);
    const byId = (await subscribe(ctx, org.key, `https://${PUBLIC_HOST}/a`)).body;
    const byUrl = (await subscribe(ctx, org.key, `https://${PUBLIC_HOST}/b`)).body;

    const foreign = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
      key: other.key,
      query: { id: byId.id },
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, "Subscription not found");
    const garbage = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
      key: org.key,
      query: { id: "nope" },
    });
    assert.equal(garbage.status, 404);

    const deleted = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
      key: org.key,
      query: { id: byId.id },
    });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {
      id: byId.id,
      target_url: byId.target_url,
      event: "lead.created",
      deleted: true,
    });
    const twice = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
      key: org.key,
      query: { id: byId.id },
    });
    assert.equal(twice.status, 404);

    // A client that sends Content-Type: application/json on every request, body or not.
    const viaUrl = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
      key: org.key,
      query: { target_url: byUrl.target_url },
      headers: { "content-type": "application/json" },
    });
    assert.equal(viaUrl.status, 200);
    assert.equal(viaUrl.body.id, byUrl.id);
    const neither = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", { key: org.key });
    assert.equal(neither.status, 400);
    // An empty id is no identifier (it answered 404 Subscription not found).
    const emptyId = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe?id=", { key: org.key });
    assert.equal(emptyId.status, 400);
    assert.equal(emptyId.body.detail, "send id or target_url in the query string (?id=… or ?target_url=…)");
    const inBody = await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { id: byId.id },
    });
    assert.equal(inBody.status, 400, "a delete's body is not read");
    assert.match(inBody.body.detail, /in the query string/);

    const resubscribed = await subscribe(ctx, org.key, `https://${PUBLIC_HOST}/a`);
    assert.notEqual(resubscribed.body.id, byId.id);
    assert.match(resubscribed.body.signing_secret, /^whsec_/);
  });

  it("rotates by id or by URL, returns the new secret once, and signs a legacy subscription", async () => {
    const org = await createOrg(ctx);
    const created = (await subscribe(ctx, org.key, `https://${PUBLIC_HOST}/rotate`)).body;
    const rotated = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
      key: org.key,
      body: { id: created.id },
    });
    assert.equal(rotated.status, 200);
    assert.equal(rotated.body.id, created.id);
    assert.match(rotated.body.signing_secret, /^whsec_/);
    assert.notEqual(rotated.body.signing_secret, created.signing_secret);
    const byUrl = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
      key: org.key,
      body: { target_url: created.target_url, event: "lead.created" },
    });
    assert.equal(byUrl.body.id, created.id);
    assert.notEqual(byUrl.body.signing_secret, rotated.body.signing_secret);
    // An event other than lead.created is refused as on subscribe (it was ignored and rotated).
    for (const body of [
      { id: created.id, event: "lead.updated" },
      { target_url: created.target_url, event: "lead.updated" },
    ]) {
      const badEvent = await call(ctx, "POST", "/api/v1/webhooks/rotate", { key: org.key, body });
      assert.equal(badEvent.status, 400, JSON.stringify(body));
      assert.equal(badEvent.body.detail, 'event: only "lead.created" is supported');
    }

    const other = await createOrg(ctx);
    const foreign = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
      key: other.key,
      body: { id: created.id },
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error, "Subscription not found");

    const legacy = await admin(ctx, "POST", `/orgs/${org.orgId}/subscriptions`, {
      target_url: `https://${PUBLIC_HOST}/legacy`,
      signed: false,
    });
    assert.equal(legacy.status, 201, legacy.text);
    assert.equal(legacy.body.signing_secret, null);
    let listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/subscriptions`)).body.subscriptions;
    assert.equal(listed.find((s: { id: string }) => s.id === legacy.body.id).signed, false);
    const upgraded = await call(ctx, "POST", "/api/v1/webhooks/rotate", {
      key: org.key,
      body: { id: legacy.body.id },
    });
    assert.match(upgraded.body.signing_secret, /^whsec_/);
    listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/subscriptions`)).body.subscriptions;
    assert.equal(listed.find((s: { id: string }) => s.id === legacy.body.id).signed, true);
  });
});

describe(`subscribe refusals keep their precise reason in the log only (${databaseLabel})`, () => {
  it("answers a name that does not resolve and one that resolves to a private address alike, and logs which", async () => {
    const lines: string[] = [];
    const resolver = fakeResolver({ "private.example.com": ["192.168.1.20"] });
    const ctx = await createTestContext({
      logger: pino({ level: "info" }, { write: (line: string) => lines.push(line) }),
      resolveHost: resolver.resolve,
    });
    try {
      const org = await createOrg(ctx);
      const answers = [];
      for (const host of ["private.example.com", "missing.example.com"]) {
        const response = await subscribe(ctx, org.key, `https://${host}/leads`);
        assert.equal(response.status, 400);
        answers.push({ ...response.body, detail: response.body.detail.replace(host, "HOST") });
      }
      assert.deepEqual(answers[0], answers[1]);
      assert.deepEqual(answers[0], {
        error: "Failed to subscribe",
        detail: "target host HOST does not resolve to a public address",
      });
      const reasons = lines
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === "webhook target refused")
        .map((entry) => entry.reason);
      assert.equal(reasons.length, 2);
      assert.match(reasons[0], /^target address is not public/);
      assert.match(reasons[1], /^target host missing\.example\.com does not resolve$/);
    } finally {
      await ctx.close();
    }
  });
});
