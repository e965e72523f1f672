import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { call, createAutomation, createOrg, issueKey, type TestOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { ADDRESS, boundAutomation, countRows, envelope, NOTHING_WRITTEN, sendEvent } from "./helpers.ts";

const NOW = "2026-11-22T12:00:10Z";

describe(`POST /api/v1/events: envelope validation (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: TestOrg;
  before(async () => {
    ctx = await createTestContext({ clock: fixedClock(NOW) });
    org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
  });
  after(async () => ctx.close());

  async function expect422(body: unknown, field: string) {
    const response = await sendEvent(ctx, org.key, body);
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.error, "invalid_payload");
    assert.ok(
      response.body.detail.startsWith(`${field}:`),
      `detail should name ${field}: ${response.body.detail}`,
    );
  }

  const base = envelope();
  const withRecord = (record: Record<string, unknown>) => ({ ...base, record });
  const withProperties = (properties: Record<string, unknown>) => envelope({}, properties);

  const rejected: [string, unknown, string][] = [
    ["a missing event_type", { ...base, event_type: undefined }, "event_type"],
    ["an event_type not in noun.verb form", { ...base, event_type: "jobcompleted" }, "event_type"],
    ["an event_type with capitals", { ...base, event_type: "Job.completed" }, "event_type"],
    ["an event_type over 64 chars", { ...base, event_type: `job.${"x".repeat(61)}` }, "event_type"],
    ["a non-string event_type", { ...base, event_type: 7 }, "event_type"],
    ["a missing object_type", { ...base, object_type: undefined }, "object_type"],
    ["an unknown object_type", { ...base, object_type: "invoice" }, "object_type"],
    ["a missing dedup_id", { ...base, dedup_id: undefined }, "dedup_id"],
    ["a dedup_id over 255 chars", { ...base, dedup_id: "d".repeat(256) }, "dedup_id"],
    ["a numeric dedup_id (never coerced)", { ...base, dedup_id: 42 }, "dedup_id"],
    ["an empty dedup_id", { ...base, dedup_id: "" }, "dedup_id"],
    ["an occurred_at that is not a date-time", { ...base, occurred_at: "yesterday" }, "occurred_at"],
    ["an occurred_at over 24 h ahead", { ...base, occurred_at: "2026-11-23T12:00:11Z" }, "occurred_at"],
    ["a date-only occurred_at", { ...base, occurred_at: "2026-11-22" }, "occurred_at"],
    ["an impossible occurred_at", { ...base, occurred_at: "2026-02-30T10:00:00Z" }, "occurred_at"],
    [
      "an occurred_at without offset (read as UTC) over 24 h ahead",
      { ...base, occurred_at: "2026-11-23T12:00:11" },
      "occurred_at",
    ],
    ["a string dry_run (never coerced)", { ...base, dry_run: "true" }, "dry_run"],
    ["a missing record", { ...base, record: undefined }, "record"],
    ["a record without id", withRecord({ properties: {} }), "record.id"],
    ["a record.id over 128 chars", withRecord({ id: "r".repeat(129) }), "record.id"],
    ["an empty record.id", withRecord({ id: "" }), "record.id"],
    ["an unknown field in record", withRecord({ id: "r", extra: "x" }), "record.extra"],
    ["properties that are not an object", withRecord({ id: "r", properties: ["a"] }), "record.properties"],
    ["a misspelled reserved key", withProperties({ zipcode: "78701" }), "record.properties.zipcode"],
    ["an unprefixed custom key", withProperties({ roof_type: "tile" }), "record.properties.roof_type"],
    ["an uppercase key", withProperties({ cf_Roof: "tile" }), "record.properties.cf_Roof"],
    [
      "a key over 64 chars",
      withProperties({ [`cf_${"k".repeat(62)}`]: "x" }),
      `record.properties.cf_${"k".repeat(62)}`,
    ],
    ["a numeric value", withProperties({ ...ADDRESS, amount: 1200 }), "record.properties.amount"],
    ["a boolean value", withProperties({ cf_vip: true }), "record.properties.cf_vip"],
    ["a null value", withProperties({ zip: null }), "record.properties.zip"],
    ["an object value", withProperties({ cf_nested: { a: "b" } }), "record.properties.cf_nested"],
    ["a value over 2000 chars", withProperties({ cf_note: "n".repeat(2001) }), "record.properties.cf_note"],
    [
      "more than 100 keys",
      withProperties(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`cf_${i}`, "x"]))),
      "record.properties",
    ],
    [
      "a composed address over 500 chars",
      withProperties({ street: "s".repeat(480), city: "c".repeat(20), zip: "78701" }),
      "record.properties",
    ],
    ["an unknown top-level field", { ...base, priority: "high" }, "priority"],
    ["a NUL character in dedup_id", { ...base, dedup_id: "a\u0000b" }, "dedup_id"],
    ["a NUL character in record.id", withRecord({ id: "r\u0000" }), "record.id"],
    ["an unpaired surrogate in a value", withProperties({ cf_x: "bad \ud800" }), "record.properties.cf_x"],
  ];

  for (const [label, body, field] of rejected) {
    it(`rejects ${label} with 422 naming ${field}`, async () => expect422(body, field));
  }

  it("lists the allowed values of an enumerated field", async () => {
    const response = await sendEvent(ctx, org.key, { ...base, object_type: "invoice" });
    assert.equal(response.status, 422);
    assert.equal(response.body.detail, "object_type: must be one of job, deal, contact");
  });

  it("accepts the limits exactly: 100 keys, 64-char keys, 2000-char values, a 500-char address, +24 h", async () => {
    const properties: Record<string, string> = { street: "s".repeat(490), city: "c".repeat(8) };
    assert.equal(`${properties.street}, ${properties.city}`.length, 500);
    properties[`cf_${"k".repeat(61)}`] = "v".repeat(2000);
    for (let i = 0; properties && Object.keys(properties).length < 100; i++) properties[`cf_${i}`] = "x";
    const response = await sendEvent(
      ctx,
      org.key,
      envelope({ occurred_at: "2026-11-23T12:00:10Z", dedup_id: "d".repeat(255) }, properties),
    );
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.outcomes[0].reason, "queued");
  });

  it("does not count an ignored org_id among the 100 property keys", async () => {
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`cf_${i}`, "x"]));
    const accepted = await sendEvent(
      ctx,
      org.key,
      envelope({ dedup_id: "org-id-101", dry_run: true }, { ...hundred, org_id: "org_other" }),
    );
    assert.equal(accepted.status, 202, accepted.text);
    const over = await sendEvent(
      ctx,
      org.key,
      envelope({ dedup_id: "org-id-102", dry_run: true }, { ...hundred, cf_extra: "x", org_id: "o" }),
    );
    assert.equal(over.status, 422);
    assert.equal(over.body.detail, "record.properties: must NOT have more than 100 properties");
  });

  it("counts the composed address in characters (code points), as the schema limits do", async () => {
    const properties = { street: "🏠".repeat(490), city: "c".repeat(8) };
    const accepted = await sendEvent(
      ctx,
      org.key,
      envelope({ dedup_id: "emoji-500", dry_run: true }, properties),
    );
    assert.equal(accepted.status, 202, accepted.text);
    const over = await sendEvent(
      ctx,
      org.key,
      envelope({ dedup_id: "emoji-501", dry_run: true }, { ...properties, city: "c".repeat(9) }),
    );
    assert.equal(over.status, 422);
    assert.match(over.body.detail, /is 501 characters; at most 500/);
  });

  it("accepts any ISO-8601 date-time as occurred_at: with Z, with an offset, or without one (UTC)", async () => {
    const accepted = [
      "2026-11-22T11:00:00Z",
      "2026-11-22T11:00:00.123456Z",
      "2026-11-22T13:00:00+02:00",
      "2026-11-22T06:00:00-0500",
      "2026-11-22T11:00:00",
      "2026-11-23T12:00:10",
    ];
    for (const [index, occurredAt] of accepted.entries()) {
      const response = await sendEvent(
        ctx,
        org.key,
        envelope({ occurred_at: occurredAt, dedup_id: `occurred-${index}`, dry_run: true }),
      );
      assert.equal(response.status, 202, `${occurredAt}: ${response.text}`);
    }
  });

  it("accepts a null occurred_at and envelopes without properties", async () => {
    const response = await sendEvent(ctx, org.key, { ...base, occurred_at: null, record: { id: "r1" } });
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.outcomes[0].reason, "no_address");
    // An empty CRM field mapped to it by a flow reads as none.
    const blank = await sendEvent(ctx, org.key, { ...base, occurred_at: "", dedup_id: "blank-occurred" });
    assert.equal(blank.status, 202, blank.text);
  });

  it("ignores an org_id anywhere in the body: the key names the organization", async () => {
    const other = await createOrg(ctx);
    const body = envelope({
      org_id: other.orgId,
      record: {
        id: "r-org",
        org_id: other.orgId,
        properties: { ...ADDRESS, org_id: other.orgId },
      },
    });
    const response = await sendEvent(ctx, org.key, body);
    assert.equal(response.status, 202, response.text);
    assert.equal(response.body.outcomes[0].reason, "queued");
    assert.deepEqual(await countRows(ctx, other.orgId), NOTHING_WRITTEN);
    const samples = await call(ctx, "GET", `/admin/v1/orgs/${org.orgId}/event-samples`, {
      key: "test-admin-token-0123456789",
    });
    const stored = JSON.stringify(samples.body);
    assert.ok(!stored.includes("org_id"), stored);
  });

  it("answers 422 naming record.properties.__proto__ for a __proto__ property key", async () => {
    const response = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      payload:
        '{"event_type":"job.completed","object_type":"job","dedup_id":"p1","record":{"id":"r1","properties":{"__proto__":""}}}',
      headers: { "content-type": "application/json" },
    });
    assert.equal(response.status, 422);
    assert.equal(response.body.error, "invalid_payload");
    assert.match(response.body.detail, /^record\.properties\.__proto__: /);
  });

  it("refuses query parameters (422 naming them): ?dry_run=true must not pass for a dry run and mail", async () => {
    const body = envelope({ dedup_id: "q1", record: { id: "r-q", properties: ADDRESS } });
    const response = await call(ctx, "POST", "/api/v1/events?dry_run=true", { key: org.key, body });
    assert.equal(response.status, 422, response.text);
    assert.equal(response.body.error, "invalid_payload");
    assert.equal(response.body.detail, "query parameter dry_run: is not accepted by this endpoint");
    const live = await call(ctx, "POST", "/api/v1/events", { key: org.key, body });
    assert.equal(live.body.outcomes[0].reason, "queued", "the refused call enqueued nothing");
  });

  it("answers 400 invalid_json for malformed JSON", async () => {
    const response = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      payload: '{"event_type": "job.completed",',
      headers: { "content-type": "application/json" },
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, "invalid_json");
  });

  it("answers 400 invalid_payload for an empty body or a declared type that is not JSON", async () => {
    const empty = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      payload: "",
      headers: { "content-type": "application/json" },
    });
    assert.equal(empty.status, 400, empty.text);
    assert.equal(empty.body.error, "invalid_payload");
    for (const contentType of ["application/xml", "text/csv", "multipart/form-data; boundary=x"]) {
      const response = await call(ctx, "POST", "/api/v1/events", {
        key: org.key,
        payload: JSON.stringify(envelope()),
        headers: { "content-type": contentType },
      });
      assert.equal(response.status, 400, `${contentType}: ${response.text}`);
      assert.equal(response.body.error, "invalid_payload");
    }
    const missing = await call(ctx, "POST", "/api/v1/events", { key: org.key });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.body.error, "invalid_payload");
  });

  it("reads a body sent without a JSON content type (none, text/plain, curl's form type) as JSON", async () => {
    for (const contentType of [
      undefined,
      "text/plain;charset=UTF-8",
      "text/json",
      "application/x-www-form-urlencoded",
    ]) {
      const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
      const accepted = await call(ctx, "POST", "/api/v1/events", {
        key: org.key,
        payload: JSON.stringify(envelope({ dry_run: true })),
        headers,
      });
      assert.equal(accepted.status, 202, `${contentType}: ${accepted.text}`);
      assert.equal(accepted.body.outcomes[0].reason, "queued");
      const malformed = await call(ctx, "POST", "/api/v1/events", {
        key: org.key,
        payload: '{"event_type": "job.completed",',
        headers,
      });
      assert.equal(malformed.status, 400, `${contentType}: ${malformed.text}`);
      assert.equal(malformed.body.error, "invalid_json");
    }
    const formFields = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      payload: "event_type=job.completed&object_type=job",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(formFields.status, 400);
    assert.match(
      formFields.body.detail,
      /form fields are not accepted/,
      "says why, for Zapier's form payloads",
    );
  });

  it("answers 413 payload_too_large naming 262144 for a body over the limit, declared or actual", async () => {
    const big = JSON.stringify(envelope({}, { cf_note: "n".repeat(262_144) }));
    const actual = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      payload: big,
      headers: { "content-type": "application/json" },
    });
    assert.equal(actual.status, 413);
    assert.equal(actual.body.error, "payload_too_large");
    assert.match(actual.body.detail, /262144/);

    const declared = await ctx.app.inject({
      method: "POST",
      url: "/api/v1/events",
      headers: {
        authorization: `Bearer ${org.key}`,
        "content-type": "application/json",
        "content-length": "262145",
      },
      payload: "{}",
    });
    assert.equal(declared.statusCode, 413);
    assert.match(JSON.parse(declared.body).detail, /262144/);
  });

  it("accepts a body just under 262144 bytes", async () => {
    const filler = "n".repeat(1900);
    const properties: Record<string, string> = { ...ADDRESS };
    for (let i = 0; i < 90; i++) properties[`cf_${i}`] = filler;
    const body = JSON.stringify(envelope({}, properties));
    assert.ok(body.length > 160_000 && body.length < 262_144);
    const response = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      payload: body,
      headers: { "content-type": "application/json" },
    });
    assert.equal(response.status, 202, response.text);
  });

  it("answers 401 {error: unauthorized} for a missing or unknown key", async () => {
    for (const key of [undefined, "ak_not_a_real_key"]) {
      const response = await sendEvent(ctx, key as string, envelope());
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: "unauthorized" });
    }
  });

  it("answers 403 {error: unauthorized} for a key without events:write; an events-only key works", async () => {
    const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
    const inboundOnly = await issueKey(ctx, org.orgId, { scopes: ["webhooks:inbound"] });
    for (const key of [importOnly, inboundOnly]) {
      const response = await sendEvent(ctx, key, envelope());
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, { error: "unauthorized" });
    }
    const eventsOnly = await issueKey(ctx, org.orgId, { scopes: ["events:write"] });
    assert.equal((await sendEvent(ctx, eventsOnly, envelope())).status, 202);
    assert.equal((await call(ctx, "GET", "/api/v1/me", { key: eventsOnly })).status, 403);
  });

  it("writes nothing for an invalid envelope (no connection is created)", async () => {
    const fresh = await createOrg(ctx);
    await expect422({ ...envelope(), event_type: "bad" }, "event_type");
    const response = await sendEvent(ctx, fresh.key, envelope({}, { zipcode: "1" }));
    assert.equal(response.status, 422);
    assert.deepEqual(await countRows(ctx, fresh.orgId), NOTHING_WRITTEN);
  });
});
