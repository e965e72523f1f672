import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { call, createAutomation, createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext } from "../helpers/harness.ts";
import { createLeadsContext } from "../leads/leads-helpers.ts";
import { liveEvent, skipWithoutPostgres } from "./helpers.ts";

const parallel = <T>(count: number, task: (index: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, index) => task(index)));

describe("races on PostgreSQL: exactly one effect each", { skip: skipWithoutPostgres }, () => {
  it("50 parallel identical events enqueue one campaign", async () => {
    const ctx = await createTestContext();
    try {
      const org = await createOrg(ctx);
      await createAutomation(ctx, org.orgId, {
        name: "Race",
        trigger: { type: "custom_api", event_type: "job.completed", object_type: "job" },
      });
      const responses = await parallel(50, () =>
        call(ctx, "POST", "/api/v1/events", { key: org.key, body: liveEvent("same-dedup") }),
      );
      assert.ok(responses.every((response) => response.status === 202));
      const reasons = responses.map((response) => response.body.outcomes[0].reason).sort();
      assert.equal(reasons.filter((reason) => reason === "queued").length, 1);
      assert.equal(reasons.filter((reason) => reason === "duplicate").length, 49);
      const campaigns = await queryRows<{ n: string }>(
        ctx.database.db,
        sql`SELECT count(*) AS n FROM campaigns WHERE org_id = ${org.orgId} AND dedup_key = 'same-dedup'`,
      );
      assert.equal(Number(campaigns[0]!.n), 1);
    } finally {
      await ctx.close();
    }
  });

  it("20 parallel imports with one Idempotency-Key stage one batch", async () => {
    const ctx = await createTestContext();
    try {
      const org = await createOrg(ctx);
      const body = {
        source: "jobs",
        rows: Array.from({ length: 50 }, (_, index) => ({
          address: `${index + 1} Race St, Springfield, IL 62701`,
        })),
      };
      const responses = await parallel(20, () =>
        call(ctx, "POST", "/api/v1/import/jobs", {
          key: org.key,
          body,
          headers: { "idempotency-key": "race" },
        }),
      );
      const statuses = responses.map((response) => response.status);
      assert.equal(statuses.filter((status) => status === 201).length, 1, JSON.stringify(statuses));
      assert.ok(
        statuses.every((status) => [200, 201, 409].includes(status)),
        JSON.stringify(statuses),
      );
      const created = responses.find((response) => response.status === 201)!;
      for (const replay of responses.filter((response) => response.status === 200)) {
        assert.equal(replay.body.import_id, created.body.import_id);
      }
      const batches = await queryRows<{ n: string; rows: string }>(
        ctx.database.db,
        sql`SELECT count(*) AS n, (SELECT count(*) FROM import_rows WHERE org_id = ${org.orgId}) AS rows
            FROM imports WHERE org_id = ${org.orgId}`,
      );
      assert.equal(Number(batches[0]!.n), 1);
      assert.equal(Number(batches[0]!.rows), 50);
    } finally {
      await ctx.close();
    }
  });

  it("50 parallel conversions with one deal_id record one conversion", async () => {
    const ctx = await createTestContext();
    try {
      const org = await createOrg(ctx);
      await recordMailing(ctx, org.orgId, [{ address: "7 Race Ave, Springfield, IL 62701" }]);
      const responses = await parallel(50, () =>
        call(ctx, "POST", "/api/v1/conversions", {
          key: org.key,
          body: { address: "7 Race Ave, Springfield, IL 62701", deal_id: "deal-race", deal_amount: 900 },
        }),
      );
      assert.ok(responses.every((response) => response.status === 200 && response.body.matched === true));
      assert.equal(new Set(responses.map((response) => response.body.conversion_id)).size, 1);
      const rows = await queryRows<{ n: string }>(
        ctx.database.db,
        sql`SELECT count(*) AS n FROM conversions WHERE org_id = ${org.orgId}`,
      );
      assert.equal(Number(rows[0]!.n), 1);
    } finally {
      await ctx.close();
    }
  });

  it("parallel customer batches sharing addresses in different orders neither deadlock nor count twice", async () => {
    const ctx = await createTestContext();
    try {
      const org = await createOrg(ctx);
      const addresses = Array.from(
        { length: 300 },
        (_, index) => `${index + 1} Shared Ln, Springfield, IL 62701`,
      );
      // Each batch takes a different slice of the shared addresses, half of them reversed.
      const responses = await parallel(12, (index) => {
        const slice = addresses.slice(index * 10, index * 10 + 200);
        const ordered = index % 2 === 0 ? slice : [...slice].reverse();
        return call(ctx, "POST", "/api/v1/customers/webhook", {
          key: org.key,
          body: { addresses: ordered.map((address) => ({ address })) },
        });
      });
      assert.deepEqual(
        responses.map((response) => response.status),
        responses.map(() => 200),
        JSON.stringify(responses.find((response) => response.status !== 200)?.body),
      );
      const distinct = new Set(addresses.slice(0, 11 * 10 + 200)).size;
      const added = responses.reduce((sum, response) => sum + Number(response.body.added), 0);
      assert.equal(added, distinct, "each address is added by exactly one batch");
      const [count] = await queryRows<{ n: string }>(
        ctx.database.db,
        sql`SELECT count(*) AS n FROM customers WHERE org_id = ${org.orgId}`,
      );
      assert.equal(Number(count!.n), distinct);
    } finally {
      await ctx.close();
    }
  });

  it("50 parallel re-subscribes of one URL create one subscription and disclose its secret once", async () => {
    const ctx = await createLeadsContext({ hosts: { "hooks.example.com": ["93.184.216.34"] } });
    try {
      const org = await createOrg(ctx);
      const responses = await parallel(50, () =>
        call(ctx, "POST", "/api/v1/webhooks/subscribe", {
          key: org.key,
          body: { target_url: "https://hooks.example.com/leads" },
        }),
      );
      assert.ok(
        responses.every((response) => response.status === 200),
        JSON.stringify(responses[0]?.body),
      );
      assert.equal(new Set(responses.map((response) => response.body.id)).size, 1);
      assert.equal(responses.filter((response) => response.body.signing_secret !== null).length, 1);
      const rows = await queryRows<{ n: string }>(
        ctx.database.db,
        sql`SELECT count(*) AS n FROM subscriptions WHERE org_id = ${org.orgId}`,
      );
      assert.equal(Number(rows[0]!.n), 1);
    } finally {
      await ctx.close();
    }
  });
});
