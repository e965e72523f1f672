import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { verifyWebhook } from "../../packages/client/src/index.ts";
import { fixedClock } from "../../src/clock.ts";
import { signatureHeaders } from "../../src/webhooks/signer.ts";
import { call, createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { type HttpsReceiver, startHttpsReceiver } from "../helpers/https-receiver.ts";
import { deliverPendingLeads } from "./client-helpers.ts";

const SECRET = "whsec_client-test-secret";
const SENT_AT = 1_795_000_000; // unix seconds of the signature
const NOW = SENT_AT * 1000;
const BODY = Buffer.from('{"id":"7f1c","first_name":"Zoë","message":"Roof leak, call after 5"}', "utf8");
const signed = (body: Buffer = BODY, at = SENT_AT, secret = SECRET) => signatureHeaders(secret, body, at);

describe("verifyWebhook against the server's signer", () => {
  it("accepts a signature over the exact bytes, given as Buffer, Uint8Array or string", () => {
    const headers = signed();
    assert.deepEqual(verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: NOW }), { ok: true });
    assert.deepEqual(verifyWebhook({ secret: SECRET, headers, rawBody: new Uint8Array(BODY), now: NOW }), {
      ok: true,
    });
    assert.deepEqual(verifyWebhook({ secret: SECRET, headers, rawBody: BODY.toString("utf8"), now: NOW }), {
      ok: true,
    });
    assert.deepEqual(verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: new Date(NOW) }), {
      ok: true,
    });
  });

  it("finds the headers whatever their case, in a plain object or a Fetch Headers", () => {
    const { "x-service-timestamp": timestamp, "x-service-signature": signature } = signed();
    const variants = [
      { "X-Service-Timestamp": timestamp, "X-Service-Signature": signature },
      { "X-SERVICE-TIMESTAMP": [timestamp!], "x-Service-Signature": signature },
      new Headers({ "X-Service-Timestamp": timestamp!, "X-Service-Signature": signature! }),
    ];
    for (const headers of variants) {
      assert.deepEqual(verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: NOW }), { ok: true });
    }
  });

  it("rejects a tampered body, a re-serialized body and a wrong secret", () => {
    const headers = signed();
    const tampered = Buffer.from(BODY);
    const flipped = tampered.length - 3;
    tampered[flipped] = tampered[flipped]! ^ 1;
    const reserialized = JSON.stringify(JSON.parse(BODY.toString("utf8")), null, 2);
    for (const rawBody of [tampered, reserialized, Buffer.concat([BODY, Buffer.from("\n")])]) {
      assert.deepEqual(verifyWebhook({ secret: SECRET, headers, rawBody, now: NOW }), {
        ok: false,
        reason: "signature_mismatch",
      });
    }
    assert.deepEqual(verifyWebhook({ secret: "whsec_other", headers, rawBody: BODY, now: NOW }), {
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("accepts up to 300 s of drift either way and rejects 301 s, or the tolerance given", () => {
    const headers = signed();
    for (const driftSeconds of [-300, 0, 300]) {
      const now = NOW + driftSeconds * 1000;
      assert.deepEqual(
        verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now }),
        { ok: true },
        `${driftSeconds}`,
      );
    }
    for (const driftSeconds of [-301, 301, 86_400]) {
      const now = NOW + driftSeconds * 1000;
      assert.deepEqual(verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now }), {
        ok: false,
        reason: "timestamp_out_of_tolerance",
      });
    }
    const late = NOW + 61_000;
    assert.equal(
      verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: late, toleranceSeconds: 60 }).ok,
      false,
    );
  });

  it("rejects a timestamp that is not digits only, even when the signature covers it", () => {
    for (const timestamp of [
      `${SENT_AT}.0`,
      `+${SENT_AT}`,
      ` ${SENT_AT}`,
      `${SENT_AT}\n`,
      "1e9",
      "-1",
      "",
      "１２３",
    ]) {
      const signature = signatureHeaders(SECRET, BODY, 0)["x-service-signature"]!;
      const headers = { "x-service-timestamp": timestamp, "x-service-signature": signature };
      assert.deepEqual(
        verifyWebhook({ secret: SECRET, headers, rawBody: BODY, now: NOW }),
        { ok: false, reason: "invalid_timestamp" },
        JSON.stringify(timestamp),
      );
    }
  });

  it("rejects missing or malformed headers", () => {
    const { "x-service-timestamp": timestamp, "x-service-signature": signature } = signed();
    const cases: [Record<string, unknown>, string][] = [
      [{}, "missing_timestamp"],
      [{ "x-service-signature": signature }, "missing_timestamp"],
      [{ "x-service-timestamp": timestamp }, "missing_signature"],
      [
        { "x-service-timestamp": [timestamp, timestamp], "x-service-signature": signature },
        "missing_timestamp",
      ],
      [
        { "x-service-timestamp": timestamp, "x-service-signature": signature!.slice(7) },
        "invalid_signature_format",
      ],
      [
        { "x-service-timestamp": timestamp, "x-service-signature": `sha1=${signature!.slice(7)}` },
        "invalid_signature_format",
      ],
      [
        { "x-service-timestamp": timestamp, "x-service-signature": signature!.slice(0, -2) },
        "invalid_signature_format",
      ],
      [
        { "x-service-timestamp": timestamp, "x-service-signature": `${signature}00` },
        "invalid_signature_format",
      ],
      [
        { "x-service-timestamp": timestamp, "x-service-signature": `sha256=${"zz".repeat(32)}` },
        "invalid_signature_format",
      ],
      [{ "x-service-timestamp": 1795000000, "x-service-signature": signature }, "missing_timestamp"],
    ];
    for (const [headers, reason] of cases) {
      assert.deepEqual(
        verifyWebhook({ secret: SECRET, headers: headers as never, rawBody: BODY, now: NOW }),
        { ok: false, reason },
        JSON.stringify(headers),
      );
    }
  });

  it("never throws on malformed input", () => {
    const headers = signed();
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("boom");
        },
      },
    );
    const inputs: unknown[] = [
      undefined,
      null,
      {},
      { secret: SECRET },
      { secret: SECRET, headers: null, rawBody: BODY },
      { secret: SECRET, headers: "x-service-timestamp: 1", rawBody: BODY },
      { secret: "", headers, rawBody: BODY, now: NOW },
      { secret: 42, headers, rawBody: BODY, now: NOW },
      { secret: SECRET, headers, rawBody: 42, now: NOW },
      { secret: SECRET, headers, rawBody: { json: true }, now: NOW },
      { secret: SECRET, headers, rawBody: BODY, now: Number.NaN },
      { secret: SECRET, headers, rawBody: BODY, now: "yesterday" },
      { secret: SECRET, headers: hostile, rawBody: BODY, now: NOW },
      { secret: SECRET, headers: { get: () => 7 }, rawBody: BODY, now: NOW },
    ];
    inputs.forEach((input, index) => {
      assert.equal(verifyWebhook(input as never).ok, false, `input #${index}`);
    });
  });
});

describe(`verifyWebhook against a lead delivered by the server (${databaseLabel})`, () => {
  let ctx: TestContext;
  let receiver: HttpsReceiver;
  const clock = fixedClock("2026-11-22T12:00:00Z");

  before(async () => {
    receiver = await startHttpsReceiver();
    ctx = await createTestContext({ clock, config: { webhookAllowPrivateTargets: ["127.0.0.1"] } });
  });
  after(async () => {
    await ctx.close();
    await receiver.close();
  });

  it("verifies the signed delivery of a landing-page lead, and rejects it once tampered or stale", async () => {
    const org = await createOrg(ctx);
    const subscription = await call(ctx, "POST", "/api/v1/webhooks/subscribe", {
      key: org.key,
      body: { target_url: receiver.url("/hooks/leads", "127.0.0.1") },
    });
    assert.equal(subscription.status, 200, subscription.text);
    const secret = subscription.body.signing_secret as string;
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: "742 Evergreen Terrace, Springfield, IL 62704" },
    ]);
    const lead = await call(ctx, "POST", `/l/${mailing.pieces[0]!.token}`, {
      body: {
        first_name: "Zoë",
        last_name: "Quinn",
        email: "zoe@example.com",
        message: "Roof leak — call after 5",
      },
    });
    assert.equal(lead.status, 201, lead.text);

    await deliverPendingLeads(ctx, receiver.ca);
    assert.equal(receiver.requests.length, 1);
    const { headers, raw } = receiver.requests[0]!;
    assert.equal(JSON.parse(raw.toString("utf8")).id, lead.body.lead_id);

    const now = clock.now();
    assert.deepEqual(verifyWebhook({ secret, headers, rawBody: raw, now }), { ok: true });
    assert.deepEqual(verifyWebhook({ secret, headers, rawBody: raw.toString("utf8"), now }), { ok: true });
    const tampered = Buffer.from(raw.toString("utf8").replace("Zoë", "Zoe"), "utf8");
    assert.equal(verifyWebhook({ secret, headers, rawBody: tampered, now }).ok, false);
    assert.equal(verifyWebhook({ secret: `${secret}x`, headers, rawBody: raw, now }).ok, false);
    const stale = new Date(now.getTime() + 301_000);
    assert.deepEqual(verifyWebhook({ secret, headers, rawBody: raw, now: stale }), {
      ok: false,
      reason: "timestamp_out_of_tolerance",
    });
  });
});
