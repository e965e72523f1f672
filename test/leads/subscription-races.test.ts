import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { admin, type CallResult, call, createOrg } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { createLeadsContext, type LeadsTestContext, subscribe } from "./leads-helpers.ts";

const HOST = "hooks.example.com";

const parallel = <T>(count: number, task: (index: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, index) => task(index)));

const statuses = (responses: CallResult[]) => responses.map((response) => response.status).sort();

describe(`subscription races (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  before(async () => {
    ctx = await createLeadsContext({ hosts: { [HOST]: ["93.184.216.34"] } });
  });
  after(async () => ctx.close());

  const stored = async (orgId: string) =>
    (await admin(ctx, "GET", `/orgs/${orgId}/subscriptions`)).body.subscriptions as { id: string }[];

  it("parallel subscribes of different URLs never take an organization past 20 subscriptions", async () => {
    const org = await createOrg(ctx);
    for (let index = 0; index < 19; index++) {
      assert.equal((await subscribe(ctx, org.key, `https://${HOST}/before/${index}`)).status, 200);
    }
    const responses = await parallel(15, (index) => subscribe(ctx, org.key, `https://${HOST}/race/${index}`));
    assert.deepEqual(statuses(responses), [200, ...Array(14).fill(400)]);
    for (const refused of responses.filter((response) => response.status === 400)) {
      assert.deepEqual(refused.body, {
        error: "Failed to subscribe",
        detail: "an organization may have at most 20 subscriptions",
      });
    }
    assert.equal((await stored(org.orgId)).length, 20);
  });

  it("parallel deletes of one subscription: only the request that removed it answers 200", async () => {
    const org = await createOrg(ctx);
    const byId = (await subscribe(ctx, org.key, `https://${HOST}/delete/by-id`)).body;
    const byUrl = (await subscribe(ctx, org.key, `https://${HOST}/delete/by-url`)).body;
    for (const query of [{ id: byId.id }, { target_url: byUrl.target_url }] as Record<string, string>[]) {
      const responses = await parallel(10, () =>
        call(ctx, "DELETE", "/api/v1/webhooks/subscribe", { key: org.key, query }),
      );
      assert.deepEqual(statuses(responses), [200, ...Array(9).fill(404)], JSON.stringify(query));
      for (const repeat of responses.filter((response) => response.status === 404)) {
        assert.equal(repeat.body.error, "Subscription not found");
      }
    }
    assert.deepEqual(await stored(org.orgId), []);
  });
});
