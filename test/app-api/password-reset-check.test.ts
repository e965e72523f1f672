import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "../../src/db/database.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { startSmtpServer } from "../helpers/smtp-server.ts";
import {
  AppBrowser,
  createAppTestContext,
  eventually,
  outboxMails,
  ownerOfNewOrg,
  PASSWORD,
  unfold,
} from "./helpers.ts";

describe(`app API: checking a password reset link before the form (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  /** The reset mails to `email` in the outbox, oldest first. */
  const resetMails = (email: string) =>
    outboxMails(ctx.dataDir)
      .map(unfold)
      .filter((text) => text.includes(`To: ${email}`) && text.includes("reset-password?token="));

  /** Asks for a reset link for `email` and answers the token in the new mail to it. */
  async function resetToken(email: string): Promise<string> {
    const before = resetMails(email).length;
    const asked = await new AppBrowser(ctx).request("POST", "/app/api/v1/auth/request-password-reset", {
      body: { email },
    });
    assert.equal(asked.status, 200, asked.text);
    const mail = await eventually(() => resetMails(email)[before]);
    const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail)?.[1];
    assert.ok(token, "the reset mail carries its link");
    return token;
  }

  const check = (token: string) =>
    new AppBrowser(ctx).request("GET", `/app/api/v1/password-resets/${encodeURIComponent(token)}`);

  test("a fresh link is valid and stays usable after the check; a used one is not", async () => {
    await ownerOfNewOrg(ctx, "checker@example.com");
    const token = await resetToken("checker@example.com");
    const fresh = await check(token);
    assert.equal(fresh.status, 200, fresh.text);
    assert.deepEqual(fresh.body, { valid: true });
    assert.deepEqual((await check(token)).body, { valid: true }, "checking does not use the link up");

    const browser = new AppBrowser(ctx);
    const reset = await browser.request("POST", "/app/api/v1/auth/reset-password", {
      body: { token, newPassword: "a brand new passphrase" },
    });
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual((await check(token)).body, { valid: false }, "a used link");
    assert.equal((await browser.signIn("checker@example.com", PASSWORD)).status, 401);
  });

  test("a reset ends every other link of the account, and so does a password change", async () => {
    // Until this, a second link asked for the same account stayed usable for its hour after the
    // first one was used: whoever else had read one of the mails could take the account back.
    await ownerOfNewOrg(ctx, "two-links@example.com");
    const first = await resetToken("two-links@example.com");
    const second = await resetToken("two-links@example.com");
    assert.notEqual(first, second);
    const browser = new AppBrowser(ctx, "10.3.0.1");
    const reset = await browser.request("POST", "/app/api/v1/auth/reset-password", {
      body: { token: first, newPassword: "a brand new passphrase" },
    });
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual((await check(second)).body, { valid: false }, "the other link ended with the reset");
    const again = await browser.request("POST", "/app/api/v1/auth/reset-password", {
      body: { token: second, newPassword: "the attacker's password" },
    });
    assert.equal(again.status, 400, again.text);

    const owner = await ownerOfNewOrg(ctx, "changes-password@example.com");
    const pending = await resetToken("changes-password@example.com");
    const changed = await owner.browser.request("POST", "/app/api/v1/me/password", {
      body: { current_password: PASSWORD, new_password: "a brand new passphrase" },
    });
    assert.equal(changed.status, 204, changed.text);
    assert.deepEqual((await check(pending)).body, { valid: false }, "a password change ends the links");
  });

  test("an expired link and an unknown one answer the same, with nothing about any account", async () => {
    await ownerOfNewOrg(ctx, "late@example.com");
    const token = await resetToken("late@example.com");
    await ctx.database.db.execute(
      sql`UPDATE auth_verifications SET expires_at = now() - interval '1 minute'
          WHERE identifier = ${`reset-password:${token}`}`,
    );
    const expired = await check(token);
    const unknown = await check("NoSuchTokenAtAll1234567");
    assert.equal(expired.status, 200, expired.text);
    assert.equal(unknown.status, 200, unknown.text);
    assert.deepEqual(expired.body, { valid: false });
    assert.deepEqual(unknown.body, expired.body);
    const tooLong = await check("x".repeat(101));
    assert.equal(tooLong.status, 404, "longer than any token: no such link");
  });
});

describe(`app API: asking for a reset link says nothing about the account (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  before(async () => {
    smtp = await startSmtpServer({ delayMs: 1500 });
    ctx = await createAppTestContext({ config: { smtpUrl: smtp.url }, memoryLimiter: true });
  });
  after(async () => {
    await ctx.close();
    await smtp.close();
  });

  const ask = (email: string, ip: string) =>
    new AppBrowser(ctx, ip).request("POST", "/app/api/v1/auth/request-password-reset", { body: { email } });

  test("an account's answer does not wait for its mail: as fast as one for no account", async () => {
    // The reset mail was sent before the answer: with a relay taking 1.5 s, an existing account
    // answered 1.5 s later than an unknown email, so the answer's timing told which emails have one.
    await ownerOfNewOrg(ctx, "slow-relay@example.com");
    const started = performance.now();
    const asked = await ask("slow-relay@example.com", "10.1.0.1");
    const elapsed = performance.now() - started;
    const unknown = await ask("no-account@example.com", "10.1.0.2");
    assert.equal(asked.status, 200, asked.text);
    assert.deepEqual(asked.body, unknown.body);
    assert.ok(elapsed < 1000, `answered after ${Math.round(elapsed)} ms, with the mail`);
    const mail = await eventually(() =>
      smtp.mails.find((m) => m.to.includes("slow-relay@example.com") && /reset-password/.test(unfold(m.raw))),
    );
    assert.match(unfold(mail.raw), /reset-password\?token=/, "the mail still goes out");
  });

  test("a relay that is down answers the same as no account (the failure is only logged)", async () => {
    const relay = await startSmtpServer();
    const down = await createAppTestContext({ config: { smtpUrl: relay.url }, memoryLimiter: true });
    try {
      await ownerOfNewOrg(down, "relay-down@example.com");
      await relay.close();
      const path = "/app/api/v1/auth/request-password-reset";
      const ask = (email: string, ip: string) =>
        new AppBrowser(down, ip).request("POST", path, { body: { email } });
      const known = await ask("relay-down@example.com", "10.2.0.1");
      const unknown = await ask("nobody@example.com", "10.2.0.2");
      assert.equal(known.status, 200, known.text);
      assert.deepEqual(known.body, unknown.body);
    } finally {
      await down.close();
    }
  });
});
