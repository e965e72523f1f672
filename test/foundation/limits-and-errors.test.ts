import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import type { RateLimiter } from "../../src/limits/rate-limiter.ts";
import { admin, call, createOrg, issueKey } from "../helpers/api.ts";
import { ADMIN_TOKEN, createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";

/** A dry-run event (it costs the events quota like a live one and writes nothing). */
const dryRun = () => ({
  event_type: "job.completed",
  object_type: "job",
  dedup_id: randomBytes(8).toString("hex"),
  dry_run: true,
  record: { id: "rec-1", properties: {} },
});

const randomIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

describe(`per-IP limit before authentication (${databaseLabel})`, () => {
  let ctx: TestContext;
  // 12:00:15 UTC: the minute's window ends in 45 s.
  const clock = fixedClock("2026-11-22T12:00:15Z");
  before(async () => {
    ctx = await createTestContext({ clock, config: { ipRateLimitPerMinute: 60 } });
  });
  after(async () => ctx.close());

  it("lets exactly 60 requests through per minute and answers the 61st with 429 and Retry-After", async () => {
    const ip = randomIp();
    const responses = await Promise.all(
      Array.from({ length: 61 }, () => call(ctx, "GET", "/api/v1/me", { ip, headers: {} })),
    );
    const limited = responses.filter((response) => response.status === 429);
    assert.equal(limited.length, 1);
    assert.equal(responses.filter((response) => response.status === 401).length, 60);
    assert.deepEqual(limited[0]!.body, { error: "rate_limited" });
    assert.equal(limited[0]!.headers["retry-after"], "45");
  });

  it("counts the limit before the key: a valid key is refused too once the IP is over", async () => {
    const org = await createOrg(ctx);
    const ip = randomIp();
    for (let i = 0; i < 60; i++) await call(ctx, "GET", "/api/v1/me", { ip });
    const response = await call(ctx, "GET", "/api/v1/me", { ip, key: org.key });
    assert.equal(response.status, 429);
    assert.equal(response.body.error, "rate_limited");
  });

  it("starts a new window on the minute boundary (fixed, not sliding)", async () => {
    const ip = randomIp();
    for (let i = 0; i < 60; i++) await call(ctx, "GET", "/api/v1/me", { ip });
    assert.equal((await call(ctx, "GET", "/api/v1/me", { ip })).status, 429);
    clock.set("2026-11-22T12:01:00Z");
    assert.equal((await call(ctx, "GET", "/api/v1/me", { ip })).status, 401);
  });

  it("counts an IPv6 client by its /64: addresses rotated inside it share one count, another /64 has its own", async () => {
    const site = `2001:db8:${randomBytes(2).toString("hex")}`;
    const network = `${site}:1`;
    for (let i = 0; i < 60; i++) {
      const response = await call(ctx, "GET", "/api/v1/me", { ip: `${network}::${(i + 1).toString(16)}` });
      assert.equal(response.status, 401, `request ${i + 1} of the /64's 60`);
    }
    const rotated = await call(ctx, "GET", "/api/v1/me", { ip: `${network}:ffff:ffff:ffff:ffff` });
    assert.equal(rotated.status, 429, "a fresh interface id in the same /64");
    const landing = await ctx.app.inject({
      method: "GET",
      url: "/l/some-token",
      remoteAddress: `${network}::beef`,
    });
    assert.equal(landing.statusCode, 429, "landing pages count the same client");
    const neighbour = await call(ctx, "GET", "/api/v1/me", { ip: `${site}:2::1` });
    assert.equal(neighbour.status, 401, "the next /64 is another client");
  });

  it("counts a route reached through a percent-encoded or absolute-form target like the plain path", async () => {
    const ip = randomIp();
    for (let i = 0; i < 60; i++) await call(ctx, "GET", "/api/v1/me", { ip });
    for (const url of ["/%61pi/v1/me", "/api/mc%70", "/%6C/some-token", "/api/v1/nothing-here"]) {
      const response = await ctx.app.inject({ method: "GET", url, remoteAddress: ip });
      assert.equal(response.statusCode, 429, url);
    }
  });

  it("counts a known key's IP and org together, in order: a request refused per IP is not charged to its org", async () => {
    const org = await createOrg(ctx);
    const ip = randomIp();
    const sendFrom = (from: string) =>
      call(ctx, "POST", "/api/v1/events", { ip: from, key: org.key, body: dryRun() });
    // The first event looks the key up (IP, then key, then org); the key is cached from then on.
    assert.equal((await sendFrom(ip)).status, 202);
    for (let i = 0; i < 59; i++) await call(ctx, "GET", "/api/v1/me", { ip });
    const refusedPerIp = await Promise.all(Array.from({ length: 5 }, () => sendFrom(ip)));
    // The per-IP refusal names no limit; the per-org one names the org's.
    assert.deepEqual(
      refusedPerIp.map((response) => [response.status, response.body]),
      Array.from({ length: 5 }, () => [429, { error: "rate_limited" }]),
    );
    // The org spent 1 of its 120: 119 more pass from other addresses, the next is refused per org.
    const fromElsewhere = await Promise.all(Array.from({ length: 119 }, () => sendFrom(randomIp())));
    assert.deepEqual([...new Set(fromElsewhere.map((response) => response.status))], [202]);
    const overOrgLimit = await sendFrom(randomIp());
    assert.equal(overOrgLimit.status, 429);
    assert.deepEqual(overOrgLimit.body, { error: "rate_limited", detail: "over 120 requests per 60 s" });
    assert.equal(overOrgLimit.headers["retry-after"], "60");
  });

  it("does not count health checks or the operator API", async () => {
    const ip = randomIp();
    for (let i = 0; i < 70; i++) assert.equal((await call(ctx, "GET", "/healthz", { ip })).status, 200);
  });
});

describe(`the counts of a known key (${databaseLabel})`, () => {
  let ctx: TestContext;
  const calls: string[] = [];
  const clock = fixedClock("2026-11-22T12:00:15Z");
  before(async () => {
    // Each call to the counter store, as "bucket+bucket" per call.
    const watched = (limiter: RateLimiter): RateLimiter => ({
      ...limiter,
      hit: (bucket, id, limit, windowSeconds) => {
        calls.push(bucket);
        return limiter.hit(bucket, id, limit, windowSeconds);
      },
      hitInOrder: (hits) => {
        calls.push(hits.map((hit) => hit.bucket).join("+"));
        return limiter.hitInOrder(hits);
      },
      close: () => limiter.close(),
    });
    ctx = await createTestContext({ clock, config: { ipRateLimitPerMinute: 60 }, wrapLimiter: watched });
  });
  after(async () => ctx.close());

  it("takes one call for its per-IP and per-org counts once its answer is cached, the first request three steps", async () => {
    const org = await createOrg(ctx);
    const ip = randomIp();
    calls.length = 0;
    assert.equal(
      (await call(ctx, "POST", "/api/v1/events", { ip, key: org.key, body: dryRun() })).status,
      202,
    );
    assert.deepEqual(calls, ["ip", "events"], "first: per IP, then the key looked up, then per org");
    calls.length = 0;
    assert.equal(
      (await call(ctx, "POST", "/api/v1/events", { ip, key: org.key, body: dryRun() })).status,
      202,
    );
    assert.deepEqual(calls, ["ip+events"]);
    assert.equal((await ctx.limiter.peek("ip", ip, 60)).count, 2);
    assert.equal((await ctx.limiter.peek("events", org.orgId, 60)).count, 2);
  });

  it("a cached key without the route's scope: 403 as before, counted per IP and not per org", async () => {
    const org = await createOrg(ctx);
    const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
    const ip = randomIp();
    for (let i = 0; i < 2; i++) {
      const refused = await call(ctx, "POST", "/api/v1/events", { ip, key: importOnly, body: dryRun() });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, "unauthorized");
    }
    assert.equal((await ctx.limiter.peek("ip", ip, 60)).count, 2);
    assert.equal((await ctx.limiter.peek("events", org.orgId, 60)).count, 0);
  });

  it("a cached key that has expired since: 401 as before", async () => {
    const org = await createOrg(ctx);
    const expiring = await issueKey(ctx, org.orgId, { expires_at: "2026-11-22T12:00:16Z" });
    const ip = randomIp();
    assert.equal(
      (await call(ctx, "POST", "/api/v1/events", { ip, key: expiring, body: dryRun() })).status,
      202,
    );
    clock.set("2026-11-22T12:00:17Z");
    const refused = await call(ctx, "POST", "/api/v1/events", { ip, key: expiring, body: dryRun() });
    assert.equal(refused.status, 401);
    assert.equal(
      (await ctx.limiter.peek("events", org.orgId, 60)).count,
      1,
      "the refused request was not charged",
    );
  });
});

describe(`X-Forwarded-For and TRUST_PROXY (${databaseLabel})`, () => {
  it("ignores X-Forwarded-For unless the proxy is trusted", async () => {
    // A fixed clock: on a loaded machine the three requests could straddle a minute's window.
    const clock = fixedClock("2026-03-02T15:00:10.000Z");
    const untrusted = await createTestContext({
      config: { ipRateLimitPerMinute: 2 },
      memoryLimiter: true,
      clock,
    });
    const trusted = await createTestContext({
      config: { ipRateLimitPerMinute: 2, trustProxy: true },
      memoryLimiter: true,
      clock,
    });
    try {
      const ip = randomIp();
      const spoofed = (n: number) => ({ ip, headers: { "x-forwarded-for": `203.0.113.${n}` } });
      const untrustedStatuses = [];
      for (let n = 0; n < 3; n++)
        untrustedStatuses.push((await call(untrusted, "GET", "/api/v1/me", spoofed(n))).status);
      assert.deepEqual(untrustedStatuses, [401, 401, 429]);
      const trustedStatuses = [];
      for (let n = 0; n < 3; n++)
        trustedStatuses.push((await call(trusted, "GET", "/api/v1/me", spoofed(n))).status);
      assert.deepEqual(trustedStatuses, [401, 401, 401]);
    } finally {
      await untrusted.close();
      await trusted.close();
    }
  });
});

describe(`per-IP limit and absolute-form request targets (${databaseLabel})`, () => {
  it("counts `GET http://host/api/v1/me` like `GET /api/v1/me`", async () => {
    const ctx = await createTestContext({ config: { ipRateLimitPerMinute: 1 }, memoryLimiter: true });
    try {
      await ctx.app.listen({ port: 0, host: "127.0.0.1" });
      const { port } = ctx.app.server.address() as AddressInfo;
      const statusLine = (target: string) => rawStatusLine(port, `GET ${target} HTTP/1.1`);
      assert.match(await statusLine("/api/v1/me"), / 401 /);
      assert.match(await statusLine(`http://127.0.0.1:${port}/api/v1/me`), / 429 /);
      // Doubled slashes are still judged; targets `new URL` refuses are never a 500.
      assert.match(await statusLine("//api/v1/nope"), / 429 /);
      for (const target of ["http://a:99999/api/v1/nope", "http://%zz/api/v1/nope", "http://[::1/api/v1/x"]) {
        assert.match(await statusLine(target), / (400|429) /, target);
      }
    } finally {
      await ctx.close();
    }
  });
});

/** Sends one request line over a raw socket (clients normalize absolute-form targets away). */
function rawStatusLine(port: number, requestLine: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`${requestLine}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk;
    });
    socket.on("end", () => resolve(text.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

describe(`error model (${databaseLabel})`, () => {
  let ctx: TestContext;
  let baseUrl: string;
  before(async () => {
    ctx = await createTestContext();
    await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });
  after(async () => ctx.close());

  it("answers malformed JSON with 400 invalid_json", async () => {
    const response = await call(ctx, "POST", "/admin/v1/orgs", {
      key: ADMIN_TOKEN,
      payload: '{"name": "x",',
      headers: { "content-type": "application/json" },
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, "invalid_json");
  });

  it("answers an unreadable body (wrong content type, empty) with 400 invalid_payload", async () => {
    const wrongType = await call(ctx, "POST", "/admin/v1/orgs", {
      key: ADMIN_TOKEN,
      payload: "name=x",
      headers: { "content-type": "text/csv" },
    });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.error, "invalid_payload");
    const empty = await call(ctx, "POST", "/admin/v1/orgs", {
      key: ADMIN_TOKEN,
      payload: "",
      headers: { "content-type": "application/json" },
    });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error, "invalid_payload");
  });

  it("refuses a __proto__ or constructor.prototype key with a 422 naming it, never merging it", async () => {
    const cases = [
      ['{"name":"x","__proto__":{"admin":true}}', "__proto__"],
      ['{"name":"x","tags":[{"a":1},{"__proto__":{}}]}', "tags[1].__proto__"],
      ['{"name":"x","constructor":{"prototype":{"admin":true}}}', "constructor.prototype"],
    ];
    for (const [payload, path] of cases) {
      const response = await call(ctx, "POST", "/admin/v1/orgs", {
        key: ADMIN_TOKEN,
        payload,
        headers: { "content-type": "application/json" },
      });
      assert.equal(response.status, 422, payload);
      assert.equal(response.body.error, "invalid_payload");
      assert.equal(response.body.detail, `${path}: this key is not allowed`);
    }
    assert.equal(({} as Record<string, unknown>).admin, undefined);
  });

  it("refuses text PostgreSQL cannot store (NUL, unpaired surrogates) with a 422 naming it, on every endpoint", async () => {
    const org = await createOrg(ctx);
    const home = "1 Main St, Springfield, IL 62701";
    const cases: [string, string, string][] = [
      ["/api/v1/conversions", `{"address":"${home}","deal_id":"n\\u0000"}`, "deal_id"],
      ["/api/v1/conversions", `{"address":"${home}","properties":{"x\\ud800":"y"}}`, "properties.x\ud800"],
      [
        "/api/v1/customers/webhook",
        `{"addresses":[{"address":"${home}","notes":"\\udc00"}]}`,
        "addresses[0].notes",
      ],
      [
        "/api/v1/import/jobs",
        `{"source":"jobs","rows":[{"address":"${home}","external_id":"\\u0000"}]}`,
        "rows[0].external_id",
      ],
    ];
    for (const [url, payload, path] of cases) {
      const response = await call(ctx, "POST", url, {
        key: org.key,
        payload,
        headers: { "content-type": "application/json" },
      });
      assert.equal(response.status, 422, payload);
      assert.equal(response.body.error, "invalid_payload");
      assert.equal(response.body.detail, `${path}: must be well-formed Unicode text without NUL characters`);
    }
    const paired = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      payload: `{"address":"${home}","notes":"\\ud83c\\udfe0"}`,
      headers: { "content-type": "application/json" },
    });
    assert.equal(paired.status, 200, "a surrogate pair (🏠) is well-formed");
  });

  it("refuses a __proto__ key spelled with unicode escapes", async () => {
    const response = await call(ctx, "POST", "/admin/v1/orgs", {
      key: ADMIN_TOKEN,
      payload: '{"name":"x","\\u005f_proto__":{"admin":true}}',
      headers: { "content-type": "application/json" },
    });
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.detail, "__proto__: this key is not allowed");
  });

  it("refuses a key repeated within one object (422 naming it), whichever copy a proxy would read", async () => {
    const org = await createOrg(ctx);
    const cases: [string, string, string][] = [
      [
        "/api/v1/events",
        '{"event_type":"job.done","object_type":"job","dedup_id":"d","dry_run":true,"dry_run":false,"record":{"id":"r"}}',
        "dry_run",
      ],
      [
        "/api/v1/events",
        '{"event_type":"job.done","object_type":"job","dedup_id":"d","record":{"id":"r","properties":{"cf_a":"1","cf_\\u0061":"2"}}}',
        "record.properties.cf_a",
      ],
      [
        "/api/v1/customers/webhook",
        '{"addresses":[{"address":"1 Main St, Springfield IL"},{"address":"a","address":"b"}]}',
        "addresses[1].address",
      ],
    ];
    for (const [url, payload, path] of cases) {
      const response = await call(ctx, "POST", url, {
        key: org.key,
        payload,
        headers: { "content-type": "application/json" },
      });
      assert.equal(response.status, 422, `${payload}: ${response.text}`);
      assert.match(
        response.body.detail,
        new RegExp(`^${path.replace(/[.[\]]/g, "\\$&")}: this key appears more than once`),
      );
    }
    const distinct = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      payload:
        '{"event_type":"job.done","object_type":"job","dedup_id":"d","dry_run":true,"record":{"id":"r","properties":{"cf_a":"x:\\"y","cf_b":"1"}}}',
      headers: { "content-type": "application/json" },
    });
    assert.equal(distinct.status, 202, "the same key in sibling objects and colons inside strings are fine");
  });

  it("refuses a number a double cannot hold exactly (422 naming it): two deal ids must not merge", async () => {
    const org = await createOrg(ctx);
    const home = "1 Main St, Springfield, IL 62701";
    for (const number of ["9007199254740993", "-9007199254740993", "1e21", "1e999"]) {
      const response = await call(ctx, "POST", "/api/v1/conversions", {
        key: org.key,
        payload: `{"address":"${home}","objectId":${number}}`,
        headers: { "content-type": "application/json" },
      });
      assert.equal(response.status, 422, number);
      assert.match(response.body.detail, /^objectId: this number is too large to be read exactly/, number);
    }
    const exact = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      payload: `{"address":"${home}","objectId":9007199254740991,"deal_amount":1234.56}`,
      headers: { "content-type": "application/json" },
    });
    assert.equal(exact.status, 200, exact.text);
  });

  it("serves a bodyless request sent with a JSON content type on a route that takes no body", async () => {
    const org = await createOrg(ctx);
    const issued = await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, {});
    const revoked = await call(ctx, "DELETE", `/admin/v1/keys/${issued.body.id}`, {
      key: ADMIN_TOKEN,
      headers: { "content-type": "application/json" },
    });
    assert.equal(revoked.status, 204, revoked.text);
  });

  it("parses JSON nested far deeper than the call stack without failing", async () => {
    const depth = 100_000;
    const response = await call(ctx, "POST", "/admin/v1/orgs", {
      key: ADMIN_TOKEN,
      payload: `{"name":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      headers: { "content-type": "application/json" },
    });
    assert.equal(response.status, 422);
    assert.match(response.body.detail, /^name: /);
  });

  it("names the field of a validation error and never coerces types", async () => {
    const response = await admin(ctx, "POST", "/orgs", { name: "x", billing_owner: "true" });
    assert.equal(response.status, 422);
    assert.equal(response.body.error, "invalid_payload");
    assert.match(response.body.detail, /^billing_owner: /);
    const unknownField = await admin(ctx, "POST", "/orgs", { name: "x", plan: "gold" });
    assert.equal(unknownField.status, 422);
    assert.match(unknownField.body.detail, /^plan: /);
  });

  it("answers 413 payload_too_large for a declared Content-Length over the limit, before reading it", async () => {
    const { status, body } = await rawPost(baseUrl, "/admin/v1/orgs", {
      "content-type": "application/json",
      "content-length": String(2 * 1024 * 1024),
    });
    assert.equal(status, 413);
    assert.equal(body.error, "payload_too_large");
    assert.match(body.detail, /1048576/);
  });

  it("answers Expect: 100-continue only once the guards pass and the declared length fits", async () => {
    const org = await createOrg(ctx);
    const event = JSON.stringify({
      event_type: "job.done",
      object_type: "job",
      dedup_id: "expect-1",
      dry_run: true,
      record: { id: "r" },
    });
    const badKey = await postExpectingContinue(baseUrl, "/api/v1/events", "Bearer ak_nope", event);
    assert.deepEqual([badKey.status, badKey.continued], [401, false], "refused before the body is sent");
    const oversized = await postExpectingContinue(
      baseUrl,
      "/api/v1/events",
      `Bearer ${org.key}`,
      "x",
      300_000,
    );
    assert.deepEqual([oversized.status, oversized.continued], [413, false]);
    assert.match(oversized.body, /262144/);
    const fits = await postExpectingContinue(baseUrl, "/api/v1/events", `Bearer ${org.key}`, event);
    assert.deepEqual([fits.status, fits.continued], [202, true], fits.body);
  });

  it("answers 413 payload_too_large for an actual body over the limit sent without a length", async () => {
    const chunk = `{"name":"${"x".repeat(1024 * 1024 + 10)}"}`;
    const { status, body } = await rawPost(
      baseUrl,
      "/admin/v1/orgs",
      { "content-type": "application/json", "transfer-encoding": "chunked" },
      chunk,
    );
    assert.equal(status, 413);
    assert.equal(body.error, "payload_too_large");
    assert.match(body.detail, /1048576/);
  });

  it("answers an unknown route with a JSON 404", async () => {
    const response = await call(ctx, "GET", "/api/v1/nothing-here");
    assert.equal(response.status, 404);
    assert.equal(response.body.error, "not_found");
  });

  it("answers a known path under a method it does not take with 405 and Allow", async () => {
    const events = await call(ctx, "GET", "/api/v1/events");
    assert.equal(events.status, 405);
    assert.equal(events.headers.allow, "POST");
    assert.deepEqual(events.body, {
      error: "method_not_allowed",
      detail: "GET is not allowed on /api/v1/events; use POST",
    });
    const subscribe = await call(ctx, "PUT", "/api/v1/webhooks/subscribe?id=x");
    assert.equal(subscribe.status, 405);
    assert.equal(subscribe.headers.allow, "DELETE, POST");
    const me = await call(ctx, "POST", "/api/v1/me");
    assert.equal(me.status, 405);
    assert.equal(me.headers.allow, "GET, HEAD");
    const landing = await call(ctx, "DELETE", "/l/someToken123");
    assert.equal(landing.status, 405);
    assert.equal(landing.headers.allow, "GET, HEAD, POST");
    assert.equal((await call(ctx, "GET", "/api/v1/events/extra")).status, 404);
    // Matched like the router matches: no trailing slash, percent-decoded.
    assert.equal((await call(ctx, "POST", "/api/v1/events/")).status, 404);
    // A route of this method that found nothing answers 404, not "use GET".
    assert.equal((await call(ctx, "GET", "/docs/static/no-such-file.js")).status, 404);
    const encoded = await call(ctx, "GET", "/api/v1/%65vents");
    assert.equal(encoded.status, 405);
    assert.equal(encoded.headers.allow, "POST");
  });

  it("reads a body in its declared charset and refuses one it cannot read, never printing replacement characters", async () => {
    const org = await createOrg(ctx);
    const latin1 = Buffer.from('{"name":"Jos\xe9"}', "latin1");
    const cases: { headers: Record<string, string>; payload: Buffer; error: string; detail: RegExp }[] = [
      {
        headers: { "content-type": "application/json; charset=x-unknown-8" },
        payload: latin1,
        error: "invalid_payload",
        detail: /charset x-unknown-8 is not supported/,
      },
      {
        headers: { "content-type": "application/json" },
        payload: latin1,
        error: "invalid_json",
        detail: /not valid UTF-8/,
      },
      {
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        payload: Buffer.from('{"name":"x"}'),
        error: "invalid_payload",
        detail: /Content-Encoding gzip is not supported/,
      },
    ];
    for (const { headers, payload, error, detail } of cases) {
      const response = await call(ctx, "POST", "/admin/v1/orgs", {
        headers: { ...headers, authorization: `Bearer ${ADMIN_TOKEN}` },
        payload,
      });
      assert.equal(response.status, 400, JSON.stringify(headers));
      assert.equal(response.body.error, error);
      assert.match(response.body.detail, detail);
    }
    const utf8 = await call(ctx, "POST", "/admin/v1/orgs", {
      headers: { "content-type": "application/json; charset=UTF-8", authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: Buffer.from('{"name":"José"}'),
    });
    assert.equal(utf8.status, 201, utf8.text);
    // A UTF-8 byte order mark (PowerShell 5 writes one) is ignored, as RFC 8259 allows.
    const withBom = await call(ctx, "POST", "/admin/v1/orgs", {
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Bom"}')]),
    });
    assert.equal(withBom.status, 201, withBom.text);
    assert.equal(withBom.body.org_name, "Bom");
    // A declared Latin-1 body is decoded as Latin-1 (what Java clients send with text/plain).
    const declared = await call(ctx, "POST", "/admin/v1/orgs", {
      headers: { "content-type": "text/plain;charset=ISO-8859-1", authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: latin1,
    });
    assert.equal(declared.status, 201, declared.text);
    assert.equal(declared.body.org_name, "José");
    // windows-1252's 0x80-0x9F (what "ISO-8859-1" means on the web) are the euro sign and curly quotes, not C1 controls.
    const curly = await call(ctx, "POST", "/admin/v1/orgs", {
      headers: {
        "content-type": "application/json;charset=ISO-8859-1",
        authorization: `Bearer ${ADMIN_TOKEN}`,
      },
      payload: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0x93, 0x80, 0x94]), Buffer.from('"}')]),
    });
    assert.equal(curly.status, 201, curly.text);
    assert.equal(curly.body.org_name, "\u201c€\u201d");
    const events = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      headers: { "content-type": "application/json; charset=x-unknown-8" },
      payload: Buffer.from("{}"),
    });
    assert.equal(events.status, 400);
    assert.equal(events.body.error, "invalid_payload");
  });

  it("quotes at most 200 characters of an unknown path in the 404 detail", async () => {
    const response = await call(ctx, "GET", `/api/v1/${"x".repeat(3000)}`);
    assert.equal(response.status, 404);
    assert.ok(response.body.detail.length < 260, response.body.detail);
  });

  it("answers a path with broken percent-encoding in the service's error shape", async () => {
    for (const url of ["/api/v1/events%zz", "/api/mcp/%zz"]) {
      const response = await ctx.app.inject({ method: "POST", url, payload: "{}" });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(JSON.parse(response.body), {
        error: "bad_request",
        detail: "the request path is not valid percent-encoding",
      });
      assert.match(String(response.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      assert.equal(response.headers["x-content-type-options"], "nosniff");
      assert.equal(response.headers["cache-control"], "no-store");
    }
  });

  it("protects the operator API with the admin token", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong-token-wrong-token" },
      { authorization: ADMIN_TOKEN },
    ];
    for (const headers of attempts) {
      const response = await call(ctx, "POST", "/admin/v1/orgs", { headers, body: { name: "x" } });
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: "unauthorized" });
    }
  });

  it("keeps a caller's X-Request-Id that looks like an id and replaces any other", async () => {
    const kept = await call(ctx, "GET", "/healthz", { headers: { "x-request-id": "crm-42:trace/7" } });
    assert.equal(kept.headers["x-request-id"], "crm-42:trace/7");
    for (const sent of ["", "has space", "x".repeat(129), "a\u00e9", '{"level":60}']) {
      const replaced = await call(ctx, "GET", "/healthz", { headers: { "x-request-id": sent } });
      assert.match(String(replaced.headers["x-request-id"]), /^[0-9a-f-]{36}$/, JSON.stringify(sent));
    }
  });

  it("sends a request id and nosniff with every response", async () => {
    const response = await call(ctx, "GET", "/healthz");
    assert.match(String(response.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
    const missing = await call(ctx, "GET", "/<script>alert(1)</script>");
    assert.equal(missing.headers["x-content-type-options"], "nosniff");
    assert.match(String(missing.headers["content-type"]), /^application\/json/);
  });

  it("marks API answers (personal data, signing secrets) no-store, errors included", async () => {
    const org = await createOrg(ctx);
    for (const [url, key] of [
      ["/api/v1/integrations/leads", org.key],
      ["/api/v1/me", org.key],
      ["/api/v1/me", undefined],
      ["/admin/v1/orgs", ADMIN_TOKEN],
    ] as const) {
      const response = await call(ctx, "GET", url, key ? { key } : {});
      assert.equal(response.headers["cache-control"], "no-store", url);
    }
  });
});

function rawPost(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${baseUrl}${path}`,
      { method: "POST", headers: { ...headers, authorization: `Bearer ${ADMIN_TOKEN}` } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    // The server may answer and close before the whole body is written.
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    if (body) req.write(body);
    if (!headers["content-length"] || body) req.end();
    else req.flushHeaders();
  });
}

/** A POST that sends its body only when the server answers 100 Continue. */
function postExpectingContinue(
  baseUrl: string,
  path: string,
  authorization: string,
  body: string,
  declaredLength = Buffer.byteLength(body),
): Promise<{ status: number; continued: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = httpRequest(`${baseUrl}${path}`, {
      method: "POST",
      headers: {
        authorization,
        "content-type": "application/json",
        "content-length": String(declaredLength),
        expect: "100-continue",
      },
    });
    req.on("continue", () => {
      continued = true;
      req.end(body);
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, continued, body: text });
        req.destroy();
      });
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    req.flushHeaders();
  });
}
