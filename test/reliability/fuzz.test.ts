import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { fixedClock } from "../../src/clock.ts";
import { createAutomation, createOrg, recordMailing } from "../helpers/api.ts";
import { createLeadsContext, type LeadsTestContext } from "../leads/leads-helpers.ts";
import { skipWithoutPostgres } from "./helpers.ts";

type Method = "GET" | "POST" | "DELETE";
interface Endpoint {
  method: Method;
  path: (ids: Ids) => string;
}
interface Ids {
  automationId: string;
  token: string;
}

const ENDPOINTS: Endpoint[] = [
  { method: "POST", path: () => "/api/v1/events" },
  { method: "POST", path: () => "/api/v1/import/jobs" },
  { method: "POST", path: () => "/api/v1/conversions" },
  { method: "POST", path: () => "/api/v1/tracking/lead" },
  { method: "POST", path: (ids) => `/api/v1/webhooks/trigger?id=${ids.automationId}` },
  { method: "POST", path: () => "/api/v1/customers/webhook" },
  { method: "POST", path: () => "/api/v1/webhooks/subscribe" },
  { method: "DELETE", path: () => "/api/v1/webhooks/subscribe" },
  { method: "POST", path: () => "/api/v1/webhooks/rotate" },
  { method: "GET", path: () => "/api/v1/integrations/leads" },
  { method: "GET", path: () => "/api/v1/me" },
  { method: "GET", path: () => "/api/v1/automation/list" },
  { method: "POST", path: () => "/api/mcp" },
  { method: "POST", path: (ids) => `/l/${ids.token}` },
];

const FIELD_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "event_type",
  "object_type",
  "dedup_id",
  "record",
  "properties",
  "address",
  "addresses",
  "deal_id",
  "deal_amount",
  "source",
  "rows",
  "target_url",
  "id",
  "since",
  "jsonrpc",
  "method",
  "params",
  "first_name",
  "email",
];

const hugeNumber = fc.constantFrom(
  "1e999",
  "-1e999",
  "123456789012345678901234567890123456789",
  "0.1e-400",
  "NaN",
);
const leaf = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("\u0000", "\ud800", "https://127.0.0.1/x", "ak_xxx", "job.completed"),
);
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string()), tie("value"), { maxKeys: 5 }),
})).value;

/** Raw bodies: JSON text with hostile shapes, or bytes that are not even UTF-8. */
const payload = fc.oneof(
  jsonish.map((value) => JSON.stringify(value) ?? "null"),
  fc
    .dictionary(fc.constantFrom(...FIELD_NAMES), jsonish, { maxKeys: 4 })
    .map((value) => JSON.stringify(value).replace(/^\{/, '{"__proto__":{"polluted":true},')),
  hugeNumber.map(
    (number) => `{"deal_amount":${number},"rows":[{"address":${number}}],"record":{"id":${number}}}`,
  ),
  fc.integer({ min: 50, max: 5000 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`),
  fc.integer({ min: 50, max: 2000 }).map((depth) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`),
  fc
    .uint8Array({ minLength: 1, maxLength: 64 })
    .map((bytes) =>
      Buffer.concat([
        Buffer.from('{"a":"'),
        Buffer.from(bytes),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('"}'),
      ]),
    ),
  fc.string(),
);
const contentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
);
const query = fc.dictionary(
  fc.constantFrom("id", "since", "target_url", "event", "__proto__", "limit"),
  fc.oneof(
    fc.string(),
    hugeNumber,
    fc.constantFrom("2024-13-45T99:00:00Z", "https://10.0.0.1/", "%00", "\ud800"),
  ),
  { maxKeys: 3 },
);

const WITHIN_MS = 5_000;

/**
 * Straight through Fastify's inject: the properties checked here are the suite's own (no 5xx, no
 * hang, an error body), independent of the OpenAPI conformance check of the shared call() helper.
 */
async function send(
  ctx: LeadsTestContext,
  method: Method,
  url: string,
  headers: Record<string, string>,
  payload: string | Buffer | undefined,
  query: Record<string, string>,
) {
  const response = await ctx.app.inject({ method, url, headers, payload, query });
  let body: { error?: unknown; jsonrpc?: unknown } | undefined;
  try {
    body = JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return {
    status: response.statusCode,
    body,
    text: response.body,
    html: String(response.headers["content-type"]).startsWith("text/html"),
  };
}

async function withinTime<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${WITHIN_MS} ms`)), WITHIN_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe("fuzzing every public endpoint", { skip: skipWithoutPostgres }, () => {
  const clock = fixedClock(new Date());
  let ctx: LeadsTestContext;
  let key: string;
  let ids: Ids;
  before(async () => {
    ctx = await createLeadsContext({ clock, hosts: { "hooks.example.com": ["93.184.216.34"] } });
    const org = await createOrg(ctx);
    key = org.key;
    const automation = await createAutomation(ctx, org.orgId, {
      name: "Fuzz",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    const mailing = await recordMailing(ctx, org.orgId, [{ address: "1 Fuzz St, Springfield, IL 62701" }]);
    ids = { automationId: automation.id, token: mailing.pieces[0]!.token };
  });
  after(async () => {
    await ctx?.close();
  });

  for (const endpoint of ENDPOINTS) {
    const label = `${endpoint.method} ${endpoint.path({ automationId: "{id}", token: "{token}" })}`;
    it(`${label}: never a 5xx, never a hang, every 4xx an {error: string} body`, async () => {
      await fc.assert(
        fc.asyncProperty(
          payload,
          contentType,
          query,
          fc.constantFrom("valid", "missing", "garbage"),
          async (body, type, params, auth) => {
            // Per-org windows are a minute: step past one so every request reaches validation.
            clock.advance(61_000);
            const headers: Record<string, string> = {};
            if (type) headers["content-type"] = type;
            if (auth === "garbage") headers.authorization = "Bearer ak_\u00ff\u0000";
            if (auth === "valid") headers.authorization = `Bearer ${key}`;
            const response = await withinTime(
              send(
                ctx,
                endpoint.method,
                endpoint.path(ids),
                headers,
                endpoint.method === "GET" ? undefined : body,
                params,
              ),
              label,
            );
            assert.ok(
              response.status < 500,
              `${label} answered ${response.status}: ${response.text.slice(0, 300)}`,
            );
            if (response.status >= 400) {
              const jsonRpc = endpoint.path(ids) === "/api/mcp" && response.body?.jsonrpc === "2.0";
              // A browser's form post to a landing page gets the page back (re-rendered with the error).
              const landingPage = endpoint.path(ids).startsWith("/l/") && response.html;
              if (!jsonRpc && !landingPage)
                assert.equal(typeof response.body?.error, "string", response.text.slice(0, 300));
            }
            assert.equal(({} as Record<string, unknown>).polluted, undefined, "no prototype pollution");
          },
        ),
        { numRuns: 60 },
      );
    });
  }
});
