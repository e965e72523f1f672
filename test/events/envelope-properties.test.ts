import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { fixedClock } from "../../src/clock.ts";
import { RESERVED_PROPERTY_KEYS } from "../../src/trigger/envelope.ts";
import { createAutomation, createOrg, type TestOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { boundAutomation, sendEvent } from "./helpers.ts";

/** Any JSON value, including the ones the envelope must refuse. */
const anyValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 10 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

/** Usually well-formed, sometimes wrong: valid values, boundary lengths, wrong types. */
const maybe = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: anyValue });

/** Mostly absent (dropped by JSON.stringify), now and then present. */
const rarely = <T>(present: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 15, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: present });

const eventType = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("job.completed", "deal.won", "contact.created") },
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,40}\.[a-z][a-z0-9_]{0,40}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
);

const propertyKey = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom(...RESERVED_PROPERTY_KEYS, "org_id") },
  { weight: 20, arbitrary: fc.stringMatching(/^cf_[a-z0-9_]{0,64}$/) },
  { weight: 1, arbitrary: fc.constantFrom("zipcode", "Street", "cf-x", "roof", "", "__proto__x") },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

const propertyValue = fc.oneof(
  { weight: 40, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1990, maxLength: 2010 }) },
  { weight: 2, arbitrary: anyValue },
);

const properties = fc.oneof(
  { weight: 12, arbitrary: fc.dictionary(propertyKey, propertyValue, { maxKeys: 8 }) },
  { weight: 1, arbitrary: anyValue },
);

const occurredAt = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  fc.constant(null),
  fc
    .integer({ min: Date.parse("2020-01-01T00:00:00Z"), max: Date.parse("2026-11-24T12:00:00Z") })
    .map((ms) => new Date(ms).toISOString()),
  fc.constantFrom("2026-11-22T12:00:00+02:00", "2026-13-01T00:00:00Z", "yesterday", "2026-11-22"),
  anyValue,
);

const envelopeArbitrary = fc.record(
  {
    event_type: maybe(eventType),
    object_type: maybe(fc.constantFrom("job", "deal", "contact", "invoice")),
    dedup_id: maybe(fc.string({ maxLength: 260 })),
    occurred_at: occurredAt,
    dry_run: maybe(fc.boolean()),
    record: fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record(
          { id: maybe(fc.string({ maxLength: 130 })), properties },
          { requiredKeys: ["id"] },
        ),
      },
      { weight: 1, arbitrary: anyValue },
    ),
    org_id: rarely(anyValue),
    unexpected: rarely(anyValue),
  },
  { requiredKeys: ["event_type", "object_type", "dedup_id", "record", "org_id", "unexpected"] },
);

const REQUIRED_PATHS = ["event_type", "object_type", "dedup_id", "record", "record.id"];

const keysOf = (value: unknown) =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? Object.keys(value) : [];

/** Every field path a detail may name for this body: the body itself, required fields, sent keys. */
function fieldPaths(body: Record<string, unknown>): string[] {
  const record = body.record as Record<string, unknown> | undefined;
  return [
    "body",
    ...REQUIRED_PATHS,
    ...keysOf(body),
    ...keysOf(record).map((key) => `record.${key}`),
    ...keysOf(record?.properties).map((key) => `record.properties.${key}`),
  ];
}

/** A 422 detail starts with a path into the body that was sent, then ": ". */
function assertNamesAField(detail: string, body: Record<string, unknown>) {
  const named = fieldPaths(body).some((path) => detail.startsWith(`${path}: `));
  assert.ok(named, `detail does not name a field of the body: ${detail}`);
}

describe(`POST /api/v1/events: random envelopes (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: TestOrg;
  const clock = fixedClock("2026-11-22T12:00:10Z");
  before(async () => {
    ctx = await createTestContext({ clock, memoryLimiter: true });
    org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
    await createAutomation(ctx, org.orgId, boundAutomation("deal.won", { object_type: "deal" }));
  });
  after(async () => ctx.close());

  it("never answers 5xx; every 422 names a field; every 202 is a well-formed result", async () => {
    let minute = 0;
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(envelopeArbitrary, async (body) => {
        // A fresh rate-limit window for every run: the property is about validation, not quotas.
        clock.set(new Date(Date.parse("2026-11-22T12:00:10Z") + ++minute * 60_000));
        const response = await sendEvent(ctx, org.key, body);
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
        assert.ok([202, 422].includes(response.status), `${response.status}: ${response.text}`);
        if (response.status === 422) {
          assert.equal(response.body.error, "invalid_payload");
          assertNamesAField(response.body.detail, body);
        } else {
          assert.equal(response.body.received, true);
          assert.equal(response.body.matched_automations, response.body.outcomes.length);
        }
      }),
      { numRuns: 300 },
    );
    // The generator must reach both sides, or the property says nothing.
    assert.ok((seen.get(202) ?? 0) > 10 && (seen.get(422) ?? 0) > 10, JSON.stringify([...seen]));
  });

  it("accepts every well-formed envelope", async () => {
    const wellFormed = fc.record({
      event_type: fc.stringMatching(/^[a-z][a-z0-9_]{0,30}\.[a-z][a-z0-9_]{0,30}$/),
      object_type: fc.constantFrom("job", "deal", "contact"),
      dedup_id: fc.string({ minLength: 1, maxLength: 255 }),
      dry_run: fc.boolean(),
      record: fc.record({
        id: fc.string({ minLength: 1, maxLength: 128 }),
        properties: fc.dictionary(
          fc.oneof(fc.constantFrom(...RESERVED_PROPERTY_KEYS), fc.stringMatching(/^cf_[a-z0-9_]{0,61}$/)),
          fc.string({ maxLength: 60 }),
          { maxKeys: 100 },
        ),
      }),
    });
    let minute = 1000;
    await fc.assert(
      fc.asyncProperty(wellFormed, async (body) => {
        clock.set(new Date(Date.parse("2026-11-22T12:00:10Z") + ++minute * 60_000));
        const response = await sendEvent(ctx, org.key, body);
        assert.equal(response.status, 202, response.text);
      }),
      { numRuns: 100 },
    );
  });
});
