import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { admin, call } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";

type Method = "GET" | "POST" | "PATCH";

/** Every operator route under /orgs/:org_id/, with a body its validation accepts. */
const ROUTES: [Method, string, unknown?][] = [
  ["GET", "conversions"],
  ["GET", "customers"],
  ["GET", "leads"],
  ["GET", "neighbour-jobs"],
  ["POST", "automations", { name: "Storm follow-up" }],
  ["GET", "campaigns"],
  ["GET", "event-samples"],
  ["GET", "webhook-log"],
  ["GET", "connections"],
  ["GET", "imports"],
  ["GET", `imports/${randomUUID()}`],
  ["POST", "lead-fields", { field_id: "size", label: "Size", type: "text" }],
  ["GET", "lead-fields"],
  ["POST", "subscriptions", { target_url: "https://example.com/hook" }],
  ["GET", "subscriptions"],
  ["GET", "deliveries"],
  ["GET", "do-not-mail"],
  ["GET", "mail-safety"],
  ["PATCH", "mail-safety", { frequency_cap_days: 30 }],
  ["POST", "invitations", { email: "a@example.com", role: "member" }],
];

describe(`the operator API's organization guard (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  it("answers the same 404 on every /orgs/:org_id/ route for an organization that does not exist", async () => {
    for (const [method, route, body] of ROUTES) {
      const response = await admin(ctx, method, `/orgs/${randomUUID()}/${route}`, body);
      assert.equal(response.status, 404, `${method} ${route}: ${response.text}`);
      assert.equal((response.body as { error: string }).error, "not_found", `${method} ${route}`);
      assert.equal(
        (response.body as { detail: string }).detail,
        "organization not found",
        `${method} ${route}`,
      );
    }
  });

  it("validates (422) before it looks for the organization, and asks for the token before either", async () => {
    const missing = randomUUID();
    assert.equal((await admin(ctx, "GET", "/orgs/not-a-uuid/leads")).status, 422);
    assert.equal((await admin(ctx, "POST", `/orgs/${missing}/subscriptions`, { target_url: 5 })).status, 422);
    assert.equal((await admin(ctx, "GET", `/orgs/${missing}/imports/not-a-uuid`)).status, 422);
    assert.equal((await call(ctx, "GET", `/admin/v1/orgs/${missing}/leads`)).status, 401);
  });
});
