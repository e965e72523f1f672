import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SIGN_IN_PER_ACCOUNT } from "../../src/app-api/auth-routes.ts";
import { SIGN_IN_PER_IP } from "../../src/app-api/auth-settings.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { AppBrowser, clearOfWindowEdge, createAppTestContext, ownerOfNewOrg, PASSWORD } from "./helpers.ts";

describe(`app sign-in rate limits (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  test(`one account takes ${SIGN_IN_PER_ACCOUNT.limit} sign-in attempts per window, from any IP`, async () => {
    const owner = await ownerOfNewOrg(ctx, "target@example.com");
    // The window is fixed (on the quarter hour): one turning between the attempts and the refused
    // sign-in let it through once in CI. Start the attempts clear of its edge.
    await clearOfWindowEdge(SIGN_IN_PER_ACCOUNT.windowSeconds, 60);
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

describe(`changing the password counts as a password guess (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  test("a session cannot guess the current password past the account's sign-in limit", async () => {
    // Whoever holds a session (a borrowed laptop, a stolen cookie) once had an unlimited oracle for
    // the account's password: every wrong current_password answered 422, never 429.
    const owner = await ownerOfNewOrg(ctx, "guessed@example.com");
    for (let attempt = 0; attempt < SIGN_IN_PER_ACCOUNT.limit; attempt++) {
      const wrong = await owner.browser.request("POST", "/app/api/v1/me/password", {
        body: { current_password: `guess number ${attempt}`, new_password: "a brand new passphrase" },
      });
      assert.equal(wrong.status, 422, `attempt ${attempt + 1}: ${wrong.text}`);
      // Named on its field, so the form says it there (once, no toast).
      assert.deepEqual(wrong.body.error.details, {
        fields: { current_password: "The current password is not right." },
      });
    }
    const blocked = await owner.browser.request("POST", "/app/api/v1/me/password", {
      body: { current_password: PASSWORD, new_password: "a brand new passphrase" },
    });
    assert.equal(blocked.status, 429, blocked.text);
    assert.equal(blocked.body.error.code, "rate_limited");
    assert.ok(Number(blocked.headers["retry-after"]) > 0);
    const signIn = await new AppBrowser(ctx, "10.7.7.7").signIn(owner.email, PASSWORD);
    assert.equal(signIn.status, 429, "the guesses count against signing in too");
    const session = await owner.browser.request("GET", "/app/api/v1/session");
    assert.equal(session.status, 200, "the session itself stays signed in");
  });
});
