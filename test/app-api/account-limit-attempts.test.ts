import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { RESET_REQUESTS_PER_ACCOUNT, SIGN_IN_PER_ACCOUNT } from "../../src/app-api/auth-routes.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  AppBrowser,
  clearOfWindowEdge,
  createAppTestContext,
  eventually,
  outboxMails,
  ownerOfNewOrg,
  PASSWORD,
  unfold,
} from "./helpers.ts";

// The counters are Redis's when the suite runs with REDIS_URL (no memoryLimiter here): a unit given
// back must leave the same count on both.

describe(`an account's limits count attempts, not refusals (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  let nextIp = 0;
  /** A browser from an address of its own: Better Auth's per-IP limit stays out of the way. */
  const fresh = () => new AppBrowser(ctx, `10.61.${Math.floor(++nextIp / 250)}.${(nextIp % 250) + 1}`);
  before(async () => {
    ctx = await createAppTestContext();
  });
  after(() => ctx.close());

  test("sign-ins refused before any password check leave the account's budget whole", async () => {
    // Whoever knows an email could lock its owner out with requests that were never attempts: an
    // address Better Auth refuses as malformed ("TARGET@… " with a space) counted for the account.
    const owner = await ownerOfNewOrg(ctx, "locked-out@example.com");
    await clearOfWindowEdge(SIGN_IN_PER_ACCOUNT.windowSeconds, 60);
    for (let refused = 0; refused < SIGN_IN_PER_ACCOUNT.limit + 2; refused++) {
      const malformed = await fresh().signIn(" LOCKED-OUT@example.com ", `guess ${refused}`);
      assert.equal(malformed.status, 400, malformed.text);
    }
    assert.equal((await fresh().signIn(owner.email, PASSWORD)).status, 200, "the owner still signs in");

    // Guesses at the password still count, all of them.
    for (let guess = 1; guess < SIGN_IN_PER_ACCOUNT.limit; guess++) {
      assert.equal((await fresh().signIn(owner.email, `wrong guess ${guess}`)).status, 401);
    }
    const blocked = await fresh().signIn(owner.email, PASSWORD);
    assert.equal(blocked.status, 429, "the right password signed in once, then nine wrong ones: ten");
    assert.equal(blocked.body.error.code, "rate_limited");
  });

  test("reset requests that mail nothing leave the budget whole; each counted one mails a working link", async () => {
    const owner = await ownerOfNewOrg(ctx, "reset-budget@example.com");
    await clearOfWindowEdge(RESET_REQUESTS_PER_ACCOUNT.windowSeconds, 60);
    const ask = (body: Record<string, unknown>) =>
      fresh().request("POST", "/app/api/v1/auth/request-password-reset", { body });
    const resetLinks = () =>
      outboxMails(ctx.dataDir)
        .map(unfold)
        .filter((text) => text.includes(`To: ${owner.email}`))
        .flatMap((text) => /reset-password\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? []);

    for (let refused = 0; refused < RESET_REQUESTS_PER_ACCOUNT.limit; refused++) {
      const foreign = await ask({ email: owner.email, redirectTo: "https://evil.example/steal" });
      assert.equal(foreign.status, 403, foreign.text);
      const malformed = await ask({ email: ` ${owner.email.toUpperCase()} ` });
      assert.equal(malformed.status, 400, malformed.text);
    }
    assert.deepEqual(resetLinks(), [], "nothing was mailed");

    for (let asked = 1; asked <= RESET_REQUESTS_PER_ACCOUNT.limit; asked++) {
      const answer = await ask({ email: owner.email });
      assert.equal(answer.status, 200, `request ${asked}: ${answer.text}`);
      await eventually(() => (resetLinks().length === asked ? true : undefined));
    }
    const spent = await ask({ email: owner.email });
    assert.equal(spent.status, 429, "the budget is spent by requests that mailed the owner");

    // Whoever spent it mailed the owner links that still work: a newer one does not void an older one.
    for (const token of resetLinks()) {
      const checked = await fresh().request("GET", `/app/api/v1/password-resets/${token}`);
      assert.deepEqual(checked.body, { valid: true });
    }
  });
});
