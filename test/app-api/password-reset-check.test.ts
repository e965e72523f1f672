import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "../../src/db/database.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { AppBrowser, createAppTestContext, ownerOfNewOrg, PASSWORD } from "./helpers.ts";

/** Quoted-printable soft line breaks folded back, so a long link reads whole. */
const unfold = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");

describe(`app API: checking a password reset link before the form (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  /** Asks for a reset link for `email` and answers the token in the newest mail to it. */
  async function resetToken(email: string): Promise<string> {
    const asked = await new AppBrowser(ctx).request("POST", "/app/api/v1/auth/request-password-reset", {
      body: { email },
    });
    assert.equal(asked.status, 200, asked.text);
    const outbox = path.join(ctx.dataDir, "mail-outbox");
    const mails = readdirSync(outbox)
      .sort()
      .map((file) => unfold(readFileSync(path.join(outbox, file), "utf8")))
      .filter((text) => text.includes(`To: ${email}`));
    const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(mails.at(-1) ?? "")?.[1];
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
