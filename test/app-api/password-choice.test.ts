import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { admin } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  AppBrowser,
  createAppTestContext,
  createOrg,
  eventually,
  outboxMails,
  ownerOfNewOrg,
  PASSWORD,
  tokenOfInviteUrl,
  unfold,
} from "./helpers.ts";

/** Passwords of ten characters or more that a guesser tries first, and why. */
const GUESSED_FIRST: [string, RegExp][] = [
  ["password123", /most used passwords/],
  ["1q2w3e4r5t", /most used passwords/],
  ["QWERTYUIOP", /most used passwords/],
  ["aaaaaaaaaaaa", /run of one character/],
  ["9876543210", /run of one character/],
  ["lkjhgfdsalk", /run of one character/],
  ["porchlight2026", /email, your name or Porchlight/],
];

describe(`a chosen password is refused when it is guessed first (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  test("accepting an invitation: each refusal names the password field; the link still works after", async () => {
    const orgId = await createOrg(ctx);
    const invited = await admin(ctx, "POST", `/orgs/${orgId}/invitations`, {
      email: "morgan.hale@example.com",
      role: "owner",
    });
    const token = encodeURIComponent(tokenOfInviteUrl(invited.body.invite_url));
    const browser = new AppBrowser(ctx);
    const accept = (password: string) =>
      browser.request("POST", `/app/api/v1/invitations/${token}/accept`, {
        body: { name: "Morgan Hale", password },
      });
    for (const [password, why] of [
      ...GUESSED_FIRST,
      ["morgan.hale!!", /email, your name/],
      ["Morgan Hale 1", /email, your name/],
    ] as const) {
      const refused = await accept(password);
      assert.equal(refused.status, 422, `${password}: ${refused.text}`);
      assert.equal(refused.body.error.code, "invalid_payload");
      assert.match(refused.body.error.details.fields.password, why, password);
    }
    assert.equal((await browser.request("GET", "/app/api/v1/session")).status, 401, "no account yet");
    const accepted = await accept(PASSWORD);
    assert.equal(accepted.status, 200, accepted.text);
  });

  test("changing the password: a refused one changes nothing and counts no attempt at the current one", async () => {
    const owner = await ownerOfNewOrg(ctx, "riley@example.com");
    const change = (new_password: string, current_password = PASSWORD) =>
      owner.browser.request("POST", "/app/api/v1/me/password", { body: { current_password, new_password } });
    // More refusals than the account's sign-in budget: none of them spends it.
    for (let round = 0; round < 2; round++) {
      for (const [password, why] of GUESSED_FIRST) {
        const refused = await change(password, "not the current one");
        assert.equal(refused.status, 422, `${password}: ${refused.text}`);
        assert.match(refused.body.error.details.fields.new_password, why, password);
      }
    }
    assert.equal((await change("riley@example.com")).status, 422, "the email itself");
    assert.equal((await change("a quiet harbour at dusk")).status, 204);
    assert.equal((await new AppBrowser(ctx).signIn(owner.email, "a quiet harbour at dusk")).status, 200);
  });

  test("resetting it by the mailed link: refused without using the link up, then a good one works", async () => {
    const owner = await ownerOfNewOrg(ctx, "forgot-again@example.com");
    const browser = new AppBrowser(ctx, "10.62.0.1");
    const asked = await browser.request("POST", "/app/api/v1/auth/request-password-reset", {
      body: { email: owner.email },
    });
    assert.equal(asked.status, 200, asked.text);
    const token = await eventually(
      () =>
        outboxMails(ctx.dataDir)
          .map(unfold)
          .filter((text) => text.includes(`To: ${owner.email}`))
          .flatMap((text) => /reset-password\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? [])[0],
    );
    const reset = (newPassword: string) =>
      browser.request("POST", "/app/api/v1/auth/reset-password", { body: { token, newPassword } });
    for (const [password, why] of [
      ...GUESSED_FIRST.slice(0, 4),
      ["forgotagain123", /email, your name/],
    ] as const) {
      const refused = await reset(password);
      assert.equal(refused.status, 422, `${password}: ${refused.text}`);
      assert.match(refused.body.error.details.fields.newPassword, why, password);
    }
    // The link's token sent in the query, as Better Auth also reads it, meets the same rule.
    const inQuery = await browser.request(
      "POST",
      `/app/api/v1/auth/reset-password?token=${encodeURIComponent(token!)}`,
      { body: { newPassword: "aaaaaaaaaa" } },
    );
    assert.equal(inQuery.status, 422, inQuery.text);
    assert.equal((await browser.signIn(owner.email, PASSWORD)).status, 200, "the password is unchanged");
    assert.equal((await reset("lanterns over the bay")).status, 200);
    assert.equal(
      (await new AppBrowser(ctx, "10.62.0.2").signIn(owner.email, "lanterns over the bay")).status,
      200,
    );
    // An unknown link gets Better Auth's own answer, whatever the password.
    const unknown = await browser.request("POST", "/app/api/v1/auth/reset-password", {
      body: { token: "not-a-link", newPassword: "password123" },
    });
    assert.equal(unknown.status, 400, unknown.text);
  });
});
