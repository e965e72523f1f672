import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { DEMO_OWNER_EMAIL, seedDemoOnFirstRun } from "../../src/bootstrap.ts";
import { systemClock } from "../../src/clock.ts";
import { createMailer } from "../../src/mail/mailer.ts";
import type { TestContext } from "../helpers/harness.ts";
import { AppBrowser, createAppTestContext, eventually, outboxMails, ownerOfNewOrg } from "./helpers.ts";

describe("mail without SMTP_URL", () => {
  let ctx: TestContext & { dataDir: string };
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  test("a reset email is written to DATA_DIR/mail-outbox with its link", async () => {
    await ownerOfNewOrg(ctx, "offline@example.com");
    const asked = await new AppBrowser(ctx).request("POST", "/app/api/v1/auth/request-password-reset", {
      body: { email: "offline@example.com" },
    });
    assert.equal(asked.status, 200, asked.text);
    const reset = await eventually(() =>
      outboxMails(ctx.dataDir).find(
        (text) => text.includes("To: offline@example.com") && text.includes("reset-password?token="),
      ),
    ).catch(() => undefined);
    assert.ok(reset, "the reset mail is in the outbox");
  });

  test("the outbox's log line names the file, never the link (a reset link signs its holder in)", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    const mailer = createMailer({
      smtpUrl: undefined,
      from: "Porchlight <no-reply@porchlight.invalid>",
      dataDir: ctx.dataDir,
      logger,
      clock: systemClock,
    });
    const link = "http://porchlight.test/app/reset-password?token=secret-token-123";
    await mailer.send({ to: "someone@example.com", subject: "Reset", text: `Open ${link}`, links: [link] });
    const logged = lines.join("\n");
    assert.match(logged, /mail written to outbox/);
    assert.match(logged, /mail-outbox/);
    assert.doesNotMatch(logged, /secret-token-123/);
    assert.ok(
      outboxMails(ctx.dataDir).some((text) => text.includes("secret-token-123")),
      "the file has it",
    );
  });

  test("the first start on an empty database prints the demo key and an owner set-up link that works", async () => {
    const lines: string[] = [];
    const empty = await createAppTestContext({ memoryLimiter: true });
    try {
      await seedDemoOnFirstRun(
        empty.database.db,
        empty.config,
        pino({ level: "silent" }),
        empty.mailer,
        (line) => lines.push(line),
      );
      const link = lines.map((l) => l.trim()).find((l) => l.startsWith("http://porchlight.test/app/invite/"));
      assert.ok(link, `an invite link is printed: ${lines.join("\n")}`);
      const token = link.split("/").at(-1)!;
      const page = await new AppBrowser(empty).request("GET", `/app/api/v1/invitations/${token}`);
      assert.equal(page.body.email, DEMO_OWNER_EMAIL);
      assert.equal(page.body.role, "owner");
      assert.equal(page.body.organization_name, "Demo Contractor");
    } finally {
      await empty.close();
    }
  });
});
