import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newLandingToken } from "../../src/pieces/campaigns.ts";

describe("landing tokens", () => {
  it("are 24 URL-safe characters (144 bits), never repeated across many draws of the pool", () => {
    const tokens = Array.from({ length: 2_000 }, () => newLandingToken());
    for (const token of tokens) assert.match(token, /^[A-Za-z0-9_-]{24}$/);
    assert.equal(new Set(tokens).size, tokens.length);
  });

  it("use every random byte once: consecutive tokens share no 6-byte run", () => {
    const decoded = Array.from({ length: 600 }, () => Buffer.from(newLandingToken(), "base64url"));
    const runs = new Set<string>();
    for (const bytes of decoded) {
      assert.equal(bytes.length, 18);
      for (let start = 0; start + 6 <= bytes.length; start += 6) {
        const run = bytes.subarray(start, start + 6).toString("hex");
        assert.ok(!runs.has(run), "a byte run came back: the pool handed out bytes twice");
        runs.add(run);
      }
    }
  });
});
