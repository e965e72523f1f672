import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SIGN_IN_PER_ACCOUNT } from "../../src/app-api/auth-routes.ts";
import { SIGN_IN_PER_IP } from "../../src/app-api/auth-settings.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { AppBrowser, createAppTestContext, ownerOfNewOrg, PASSWORD } from "./helpers.ts";

describe(`app sign-in rate limits (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  test(`one account takes ${SIGN_IN_PER_ACCOUNT.limit} sign-in attempts per window, from any IP`, async () => {
    const owner = await ownerOfNewOrg(ctx, "target@example.com");
    for (let attempt = 0; attempt < SIGN_IN_PER_ACCOUNT.limit; attempt++) {
      const browser = new AppBrowser(ctx, `10.0.${attempt}.1`);
      assert.equal((await browser.signIn(owner.email, "wrong password!")).status, 401);
    }
    const blocked = await new AppBrowser(ctx, "10.9.9.9").signIn(owner.email, PASSWORD);
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.error.code, "rate_limited");
    assert.ok(Number(blocked.headers["retry-after"]) > 0);
  });

  test(`one IP takes ${SIGN_IN_PER_IP.max} sign-in attempts per minute, whatever the accounts`, async () => {
    const browser = new AppBrowser(ctx, "192.0.2.77");
    for (let attempt = 0; attempt < SIGN_IN_PER_IP.max; attempt++) {
      const response = await browser.signIn(`nobody-${attempt}@example.com`, "wrong password!");
      assert.equal(response.status, 401, `attempt ${attempt + 1}`);
    }
    const blocked = await browser.signIn("nobody-else@example.com", "wrong password!");
    assert.equal(blocked.status, 429);
    const otherIp = await new AppBrowser(ctx, "192.0.2.78").signIn(
      "nobody-else@example.com",
      "wrong password!",
    );
    assert.equal(otherIp.status, 401, "another IP is not held back");
  });
});
