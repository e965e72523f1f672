import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createPorchlightClient } from "../../packages/client/src/index.ts";
import { generateApiKey } from "../../src/domain/api-key-format.ts";
import { admin, createAutomation, createOrg, issueKey, type TestOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { documentCheckingFetch, listen } from "./client-helpers.ts";

const HOME = { street: "12 Oak Lane", city: "Austin", state: "TX", zip: "78701", client_name: "Jane Doe" };

describe(`typed client against the running server (${databaseLabel})`, () => {
  let ctx: TestContext;
  let baseUrl: string;
  let org: TestOrg;

  before(async () => {
    ctx = await createTestContext();
    baseUrl = await listen(ctx);
    org = await createOrg(ctx, { name: "Client Roofing" });
  });
  after(async () => ctx.close());

  const clientFor = (apiKey: string, retry: Parameters<typeof createPorchlightClient>[0]["retry"] = {}) => {
    const { fetch, sent } = documentCheckingFetch(ctx);
    return { client: createPorchlightClient({ baseUrl, apiKey, fetch, retry }), sent };
  };

  it("identifies the organization with GET /api/v1/me", async () => {
    const { client } = clientFor(org.key);
    const { data, error, response } = await client.GET("/api/v1/me");
    assert.equal(response.status, 200);
    assert.equal(error, undefined);
    assert.deepEqual(data, { org_id: org.orgId, org_name: "Client Roofing" });
  });

  it("lists the organization's automations with GET /api/v1/automation/list", async () => {
    const first = await createAutomation(ctx, org.orgId, { name: "Roof follow-up" });
    const second = await createAutomation(ctx, org.orgId, { name: "Paused one", enabled: false });
    const { client } = clientFor(org.key);
    const { data } = await client.GET("/api/v1/automation/list");
    assert.ok(data);
    const byId = new Map(data.automations.map((automation) => [automation.id, automation]));
    assert.deepEqual(byId.get(first.id), { id: first.id, name: "Roof follow-up", enabled: true });
    assert.deepEqual(byId.get(second.id), { id: second.id, name: "Paused one", enabled: false });
  });

  it("returns the documented error body of a terminal answer without retrying it", async () => {
    // Well formed (its checksum matches) but never issued: the bare spec body, no detail.
    const { client: unknownKey, sent } = clientFor(generateApiKey());
    const unauthorized = await unknownKey.GET("/api/v1/me");
    assert.equal(unauthorized.response.status, 401);
    assert.deepEqual(unauthorized.error, { error: "Unauthorized" });
    assert.equal(sent.length, 1);

    const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
    const { client: wrongScope, sent: wrongScopeSent } = clientFor(importOnly);
    const forbidden = await wrongScope.GET("/api/v1/automation/list");
    assert.equal(forbidden.response.status, 403);
    assert.deepEqual(forbidden.error, { error: "Unauthorized" });
    assert.equal(wrongScopeSent.length, 1);

    const { client, sent: invalidSent } = clientFor(org.key);
    const invalid = await client.POST("/api/v1/events", {
      body: {
        event_type: "Job Done",
        object_type: "job",
        dedup_id: "d-1",
        record: { id: "r-1" },
      },
    });
    assert.equal(invalid.response.status, 422);
    assert.equal(invalid.error?.error, "invalid_payload");
    assert.equal(invalidSent.length, 1);
  });

  it("retries an event through the kill switch's 503 and delivers it once the switch is off", async () => {
    await createAutomation(ctx, org.orgId, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    const waits: number[] = [];
    const { fetch, sent } = documentCheckingFetch(ctx);
    const client = createPorchlightClient({
      baseUrl,
      apiKey: org.key,
      fetch,
      retry: {
        random: () => 0,
        // Instead of waiting five minutes, the operator lifts the switch during the back-off.
        sleep: async (ms) => {
          waits.push(ms);
          await admin(ctx, "PUT", "/kill-switch", { paused: false });
        },
      },
    });
    const dedupId = `job-${randomUUID()}`;
    const { data, response } = await client.POST("/api/v1/events", {
      body: {
        event_type: "job.completed",
        object_type: "job",
        dedup_id: dedupId,
        record: { id: "job-77", properties: HOME },
      },
    });
    assert.equal(response.status, 202);
    assert.deepEqual(waits, [300_000], "waited the 503's Retry-After: 300");
    assert.equal(sent.length, 2);
    assert.equal(data?.matched_automations, 1);
    assert.equal(data?.outcomes[0]?.reason, "queued");
  });

  it("retries the legacy trigger's kill-switch 400 and fires once the switch is off", async () => {
    const automation = await createAutomation(ctx, org.orgId, { name: "Legacy trigger" });
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    const waits: number[] = [];
    const { fetch, sent } = documentCheckingFetch(ctx);
    const client = createPorchlightClient({
      baseUrl,
      apiKey: org.key,
      fetch,
      // The default cap (300 s) covers the kill switch's Retry-After: 300.
      retry: {
        random: () => 0,
        sleep: async (ms) => {
          waits.push(ms);
          await admin(ctx, "PUT", "/kill-switch", { paused: false });
        },
      },
    });
    const { data, error, response } = await client.POST("/api/v1/webhooks/trigger", {
      params: { query: { id: automation.id } },
      body: { address: "12 Oak Lane, Austin, TX 78701", deal_id: `deal-${randomUUID()}` },
    });
    assert.equal(response.status, 202, JSON.stringify(error));
    assert.equal(sent.length, 2);
    assert.deepEqual(waits, [300_000]);
    assert.equal(data?.automation, "Legacy trigger");
    assert.equal(data?.success, true);
  });
});
