import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { boundAutomation } from "../events/helpers.ts";
import { call, createAutomation, createOrg, recordMailing } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { createLeadsContext, type LeadsTestContext } from "../leads/leads-helpers.ts";

interface MediaType {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Document {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, MediaType> } }>>;
}

/** The examples the OpenAPI document shows for an operation's JSON body (one, or several named). */
function bodyExamples(ctx: LeadsTestContext, method: string, path: string): unknown[] {
  const document = (ctx.app as unknown as { swagger(): Document }).swagger();
  const media = document.paths[path]?.[method]?.requestBody?.content["application/json"];
  assert.ok(media, `${method} ${path} documents a JSON body`);
  const examples =
    media.example !== undefined
      ? [media.example]
      : Object.values(media.examples ?? {}).map((named) => named.value);
  assert.ok(examples.length > 0, `${method} ${path} shows an example`);
  return examples;
}

describe(`the OpenAPI document's request examples work as shown (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  let key: string;
  let triggerId: string;
  before(async () => {
    ctx = await createLeadsContext({
      clock: fixedClock("2026-11-25T14:00:00Z"),
      hosts: { "crm.example.com": ["93.184.216.34"] },
    });
    const org = await createOrg(ctx);
    key = org.key;
    await createAutomation(ctx, org.orgId, boundAutomation("job.completed"));
    triggerId = (await createAutomation(ctx, org.orgId, { name: "Won deal", kind: "deal_won" })).id;
    await recordMailing(ctx, org.orgId, [
      { address: "742 Evergreen Terrace, Springfield, IL 62704", mailed_at: "2026-11-02T10:00:00Z" },
    ]);
  });
  after(async () => ctx.close());

  const cases: [string, string, string, number][] = [
    ["post", "/api/v1/events", "/api/v1/events", 202],
    ["post", "/api/v1/conversions", "/api/v1/conversions", 200],
    ["post", "/api/v1/tracking/lead", "/api/v1/tracking/lead", 200],
    ["post", "/api/v1/customers/webhook", "/api/v1/customers/webhook", 200],
    ["post", "/api/v1/import/jobs", "/api/v1/import/jobs", 201],
    ["post", "/api/v1/webhooks/subscribe", "/api/v1/webhooks/subscribe", 200],
    ["post", "/api/v1/webhooks/trigger", "/api/v1/webhooks/trigger?id=", 202],
  ];
  for (const [method, path, url, status] of cases) {
    it(`${method.toUpperCase()} ${path}`, async () => {
      for (const example of bodyExamples(ctx, method, path)) {
        const target = url.endsWith("?id=") ? `${url}${triggerId}` : url;
        const response = await call(ctx, "POST", target, { key, body: example });
        assert.equal(response.status, status, response.text);
      }
    });
  }

  it("POST /api/v1/webhooks/rotate (by URL, after the subscribe example)", async () => {
    const [, byUrl] = bodyExamples(ctx, "post", "/api/v1/webhooks/rotate");
    const response = await call(ctx, "POST", "/api/v1/webhooks/rotate", { key, body: byUrl });
    assert.equal(response.status, 200, response.text);
    assert.match(response.body.signing_secret, /^whsec_/);
  });

  it("the conversion example attributes the mailed home", async () => {
    const [example] = bodyExamples(ctx, "post", "/api/v1/conversions");
    const response = await call(ctx, "POST", "/api/v1/conversions", { key, body: example });
    assert.equal(response.body.matched, true, response.text);
  });
});
