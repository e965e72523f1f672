import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkHubSpotSignature, signHubSpotRequest } from "../../src/hubspot/signature.ts";
import { createTokenCipher } from "../../src/hubspot/token-cipher.ts";

describe("HubSpot's tokens sealed at rest", () => {
  const cipher = createTokenCipher("a-long-random-auth-secret-of-32-chars+");

  test("a sealed token opens to itself, and sealing twice gives two different texts", () => {
    const token = "CKDZpunPLhICAQEYs-gDIIGOBii1hQIyGQAf3xBKEgsYjYMJVvlHEz9tFHAwSq1TQAM40s0D";
    const once = cipher.seal(token);
    assert.equal(cipher.open(once), token);
    assert.notEqual(cipher.seal(token), once, "a fresh nonce each time");
    assert.ok(!once.includes(token));
  });

  test("another key, a changed byte, or a malformed text opens to nothing", () => {
    const sealed = cipher.seal("na1-refresh-token");
    const [format, nonce, tag, body] = sealed.split(".") as [string, string, string, string];
    const flipped = `${body.slice(0, -2)}${body.endsWith("AA") ? "AB" : "AA"}`;
    for (const [why, text] of [
      ["another key", undefined],
      ["a changed ciphertext", [format, nonce, tag, flipped].join(".")],
      ["a changed tag", [format, nonce, `${tag.slice(0, -2)}AA`, body].join(".")],
      ["another format", ["v0", nonce, tag, body].join(".")],
      ["a missing part", [format, nonce, tag].join(".")],
      ["an extra part", `${sealed}.x`],
      ["nothing", ""],
    ] as const) {
      const opened =
        text === undefined
          ? createTokenCipher("another-secret-entirely-32-chars!!").open(sealed)
          : cipher.open(text);
      assert.equal(opened, undefined, why);
    }
  });
});

describe("X-HubSpot-Signature-v3", () => {
  const secret = "yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy";
  const now = new Date("2026-11-28T09:00:00Z");
  const rawBody = Buffer.from('[{"eventId":1,"portalId":62515}]');
  const timestamp = String(now.getTime());
  const request = {
    method: "POST",
    uri: "https://example.com/connectors/hubspot/webhooks",
    rawBody,
    timestamp,
  };
  const signature = signHubSpotRequest(secret, request);

  test("is the base64 HMAC-SHA256 of method + URI + body + timestamp", async () => {
    const { createHmac } = await import("node:crypto");
    const expected = createHmac("sha256", secret)
      .update(`POST${request.uri}${rawBody.toString("utf8")}${timestamp}`, "utf8")
      .digest("base64");
    assert.equal(signature, expected);
  });

  test("the URI is signed with HubSpot's listed characters decoded", () => {
    const encoded = { ...request, uri: "https%3A%2F%2Fexample.com%2Fconnectors%2Fhubspot%2Fwebhooks" };
    assert.equal(signHubSpotRequest(secret, encoded), signature);
  });

  for (const [why, change, expected] of [
    ["the request as signed", {}, "valid"],
    ["4 minutes 59 seconds old", { at: now.getTime() + 299_000 }, "valid"],
    ["over 5 minutes old", { at: now.getTime() + 300_001 }, "stale"],
    ["over 5 minutes ahead", { at: now.getTime() - 300_001 }, "stale"],
    ["no signature", { signature: undefined }, "missing"],
    ["no timestamp", { timestamp: undefined }, "missing"],
    ["a timestamp that is not digits", { timestamp: "1.7e12" }, "missing"],
    ["another signature", { signature: signHubSpotRequest("other", request) }, "mismatch"],
    ["a signature with a character added", { signature: `${signature}=` }, "mismatch"],
    ["another method", { method: "PUT" }, "mismatch"],
    ["another body", { rawBody: Buffer.from("[]") }, "mismatch"],
  ] as const) {
    test(`${why}: ${expected}`, () => {
      const { at, ...fields } = change as Record<string, unknown> & { at?: number };
      const checked = checkHubSpotSignature(
        secret,
        { ...request, signature, ...fields } as Parameters<typeof checkHubSpotSignature>[1],
        at === undefined ? now : new Date(at),
      );
      assert.equal(checked, expected);
    });
  }
});
