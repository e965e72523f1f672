import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createPorchlightClient,
  createRetryingFetch,
  retryDelayMs,
  TRIGGER_KILL_SWITCH_ERROR,
} from "../../packages/client/src/index.ts";

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A fetch that answers from a script and records what it was sent; never touches the network. */
function scriptedFetch(answers: (Answer | Error)[]) {
  const sent: { method: string; url: string; body: string; authorization: string | null }[] = [];
  const fetch = async (request: Request) => {
    sent.push({
      method: request.method,
      url: request.url,
      body: await request.text(),
      authorization: request.headers.get("authorization"),
    });
    const next = answers[Math.min(sent.length - 1, answers.length - 1)]!;
    if (next instanceof Error) throw next;
    return new Response(next.body === undefined ? null : JSON.stringify(next.body), {
      status: next.status,
      headers: { "content-type": "application/json", ...next.headers },
    });
  };
  return { fetch, sent };
}

function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const post = (body: unknown = { dedup_id: "d-1" }) =>
  new Request("https://api.test/api/v1/events", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });

/** Sends one request through the retrying fetch; returns the final status, attempts and waits. */
async function run(answers: (Answer | Error)[], options: { maxAttempts?: number; maxDelayMs?: number } = {}) {
  const { fetch, sent } = scriptedFetch(answers);
  const { waits, sleep } = recordingSleep();
  const retrying = createRetryingFetch(fetch, { maxAttempts: 4, random: () => 0.5, sleep, ...options });
  const response = await retrying(post());
  return { response, attempts: sent.length, waits, sent };
}

const ok: Answer = { status: 202, body: { received: true } };

describe("client retry policy", () => {
  const retryable: [string, Answer][] = [
    ["429 rate_limited", { status: 429, body: { error: "rate_limited" }, headers: { "retry-after": "1" } }],
    ["500 internal_error", { status: 500, body: { error: "internal_error" } }],
    ["500 Internal server error", { status: 500, body: { error: "Internal server error" } }],
    ["502 geocoding_failed", { status: 502, body: { error: "geocoding_failed" } }],
    [
      "503 automations_disabled",
      { status: 503, body: { error: "automations_disabled" }, headers: { "retry-after": "3" } },
    ],
    [
      "503 auth_unavailable",
      { status: 503, body: { error: "auth_unavailable" }, headers: { "retry-after": "5" } },
    ],
    ["503 geocoding_unavailable", { status: 503, body: { error: "geocoding_unavailable" } }],
    [
      "409 import_in_progress",
      { status: 409, body: { error: "import_in_progress" }, headers: { "retry-after": "2" } },
    ],
    ["the trigger's kill-switch 400", { status: 400, body: { error: TRIGGER_KILL_SWITCH_ERROR } }],
  ];
  for (const [name, answer] of retryable) {
    it(`retries ${name} and returns the success that follows`, async () => {
      const { response, attempts, waits, sent } = await run([answer, ok]);
      assert.equal(response.status, 202);
      assert.equal(attempts, 2);
      assert.equal(waits.length, 1);
      assert.equal(sent[1]!.body, sent[0]!.body, "the retry sends the same body (same dedup_id)");
    });
  }

  const terminal: [string, Answer][] = [
    ["400 invalid_json", { status: 400, body: { error: "invalid_json" } }],
    ["400 invalid_payload", { status: 400, body: { error: "invalid_payload" } }],
    ["400 Failed to subscribe", { status: 400, body: { error: "Failed to subscribe" } }],
    ["400 No address found in payload", { status: 400, body: { error: "No address found in payload" } }],
    ["401 unauthorized", { status: 401, body: { error: "unauthorized" } }],
    ["403 Unauthorized", { status: 403, body: { error: "Unauthorized" } }],
    ["404 not_found", { status: 404, body: { error: "not_found" } }],
    ["409 other than import_in_progress", { status: 409, body: { error: "conflict" } }],
    ["413 payload_too_large", { status: 413, body: { error: "payload_too_large" } }],
    ["422 invalid_payload", { status: 422, body: { error: "invalid_payload", detail: "event_type" } }],
    ["a 400 without a JSON body", { status: 400 }],
  ];
  for (const [name, answer] of terminal) {
    it(`never retries ${name}`, async () => {
      const { response, attempts, waits } = await run([answer, ok]);
      assert.equal(response.status, answer.status);
      assert.equal(attempts, 1);
      assert.deepEqual(waits, []);
      if (answer.body !== undefined)
        assert.deepEqual(await response.json(), answer.body, "the body is still readable");
    });
  }

  it("waits Retry-After seconds plus at most 20 % (≤ 1 s) of jitter, never less", async () => {
    const limited = (seconds: string): Answer => ({
      status: 429,
      body: { error: "rate_limited" },
      headers: { "retry-after": seconds },
    });
    for (const random of [0, 0.5, 0.999]) {
      const { fetch } = scriptedFetch([limited("2"), limited("60"), ok]);
      const { waits, sleep } = recordingSleep();
      const retrying = createRetryingFetch(fetch, {
        maxAttempts: 5,
        maxDelayMs: 120_000,
        sleep,
        random: () => random,
      });
      assert.equal((await retrying(post())).status, 202);
      assert.equal(waits.length, 2);
      assert.ok(waits[0]! >= 2000 && waits[0]! <= 2400, `2 s → ${waits[0]}`);
      assert.ok(waits[1]! >= 60_000 && waits[1]! <= 61_000, `60 s → ${waits[1]}`);
    }
  });

  it("caps the wait at maxDelayMs, and returns a Retry-After beyond the cap instead of retrying early", async () => {
    assert.equal(retryDelayMs(1, 10_000, { maxDelayMs: 10_000, random: () => 0.99 }), 10_000);
    const { response, attempts, waits } = await run(
      [{ status: 429, body: { error: "rate_limited" }, headers: { "retry-after": "3600" } }, ok],
      { maxDelayMs: 30_000 },
    );
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "3600");
    assert.equal(attempts, 1);
    assert.deepEqual(waits, []);
  });

  it("by default waits the kill switch's Retry-After: 300 but hands back a daily-limit Retry-After", async () => {
    const disabled: Answer = {
      status: 503,
      body: { error: "automations_disabled" },
      headers: { "retry-after": "300" },
    };
    const { fetch } = scriptedFetch([disabled, ok]);
    const { waits, sleep } = recordingSleep();
    assert.equal((await createRetryingFetch(fetch, { sleep, random: () => 0 })(post())).status, 202);
    assert.deepEqual(waits, [300_000]);

    const daily: Answer = {
      status: 429,
      body: { error: "rate_limited" },
      headers: { "retry-after": "43200" },
    };
    const importLimited = scriptedFetch([daily, ok]);
    const idle = recordingSleep();
    assert.equal((await createRetryingFetch(importLimited.fetch, { sleep: idle.sleep })(post())).status, 429);
    assert.deepEqual(idle.waits, []);
  });

  it("backs off exponentially with jitter when there is no Retry-After, within the cap", async () => {
    const failure: Answer = { status: 502, body: { error: "geocoding_failed" } };
    const { waits } = await run([failure, failure, failure, failure, ok], {
      maxAttempts: 5,
      maxDelayMs: 1500,
    });
    // Equal jitter at random 0.5: three quarters of 500, 1000, then the 1500 cap (twice).
    assert.deepEqual(waits, [375, 750, 1125, 1125]);
  });

  it("stops after maxAttempts and returns the last retryable answer", async () => {
    const unavailable: Answer = {
      status: 503,
      body: { error: "service_unavailable" },
      headers: { "retry-after": "5" },
    };
    const { response, attempts, waits } = await run([unavailable], { maxAttempts: 3 });
    assert.equal(response.status, 503);
    assert.deepEqual(await response.json(), { error: "service_unavailable" });
    assert.equal(attempts, 3);
    assert.equal(waits.length, 2);
  });

  it("retries a network failure and rethrows it once attempts run out, but never an abort or other error", async () => {
    const refused = Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    const recovered = await run([refused, ok]);
    assert.equal(recovered.response.status, 202);
    assert.equal(recovered.attempts, 2);
    await assert.rejects(run([refused], { maxAttempts: 2 }), /fetch failed/);
    const abort = Object.assign(new Error("aborted"), { name: "AbortError" });
    const { fetch, sent } = scriptedFetch([abort, ok]);
    await assert.rejects(createRetryingFetch(fetch, { sleep: async () => {} })(post()), /aborted/);
    assert.equal(sent.length, 1);
    const bug = scriptedFetch([new RangeError("a bug in a custom fetch"), ok]);
    await assert.rejects(createRetryingFetch(bug.fetch, { sleep: async () => {} })(post()), /a bug/);
    assert.equal(bug.sent.length, 1);
  });

  it("retries through the typed client with the key and the same body", async () => {
    const { fetch, sent } = scriptedFetch([
      { status: 429, body: { error: "rate_limited" }, headers: { "retry-after": "1" } },
      { status: 200, body: { org_id: "org-1", org_name: "Acme" } },
    ]);
    const { waits, sleep } = recordingSleep();
    const client = createPorchlightClient({
      baseUrl: "https://api.test/",
      apiKey: "ak_test",
      fetch,
      retry: { sleep, random: () => 0 },
    });
    const { data, error } = await client.GET("/api/v1/me");
    assert.equal(error, undefined);
    assert.deepEqual(data, { org_id: "org-1", org_name: "Acme" });
    assert.deepEqual(waits, [1000]);
    assert.deepEqual(
      sent.map((request) => [request.method, request.url, request.authorization]),
      [
        ["GET", "https://api.test/api/v1/me", "Bearer ak_test"],
        ["GET", "https://api.test/api/v1/me", "Bearer ak_test"],
      ],
    );
  });

  it("does not retry when maxAttempts is 1", async () => {
    const { response, attempts } = await run([{ status: 500, body: { error: "internal_error" } }, ok], {
      maxAttempts: 1,
    });
    assert.equal(response.status, 500);
    assert.equal(attempts, 1);
  });
});
