import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { Config } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { maskedAddress } from "../../src/mail/mailer.ts";
import { createOrg, inviteAndAccept, outboxMails } from "../app-api/helpers.ts";
import { createTestContext } from "../helpers/harness.ts";
import { startSmtpServer } from "../helpers/smtp-server.ts";

const suffix = () => Math.random().toString(36).slice(2, 10);

/** An app logging through the service's own logger at info, its lines kept. */
async function appWithCapturedLog(config: Partial<Config> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-invitation-log-"));
  const lines: string[] = [];
  const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
  const ctx = await createTestContext({ logger, config: { dataDir, ...config } });
  return {
    ctx,
    dataDir,
    log: () => lines.join(""),
    close: async () => {
      await ctx.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The operator invites an owner, who signs in and invites a team member: the log of both. */
async function inviteThroughHttp(app: Awaited<ReturnType<typeof appWithCapturedLog>>) {
  const ownerEmail = `owner.${suffix()}@owners.example`;
  const inviteeEmail = `jane.${suffix()}@invitees.example`;
  const orgId = await createOrg(app.ctx);
  const owner = await inviteAndAccept(app.ctx, orgId, ownerEmail, "owner");
  const invited = await owner.browser.request("POST", "/app/api/v1/team/invitations", {
    body: { email: inviteeEmail, role: "member" },
  });
  assert.equal(invited.status, 201, invited.text);
  return { ownerEmail, inviteeEmail };
}

describe("invitations are logged without the invitee's email address", () => {
  const apps: { close(): Promise<void> }[] = [];
  after(async () => {
    for (const app of apps) await app.close();
  });

  it("maskedAddress keeps the first character and the domain only", () => {
    assert.equal(maskedAddress("jane.doe@example.com"), "j***@example.com");
    assert.equal(maskedAddress("j@example.com"), "j***@example.com");
    assert.equal(maskedAddress("not an address"), "***");
    assert.equal(maskedAddress("@example.com"), "***");
  });

  it("without SMTP_URL: the outbox line names the file and a masked recipient, never the address", async () => {
    const app = await appWithCapturedLog();
    apps.push(app);
    const { ownerEmail, inviteeEmail } = await inviteThroughHttp(app);
    const log = app.log();
    // The invitation went out, to the invitee, in a file the operator opens.
    assert.ok(outboxMails(app.dataDir).some((mail) => mail.includes(`To: ${inviteeEmail}`)));
    const mailLines = log.split("\n").filter((line) => line.includes('"msg":"mail written to outbox"'));
    assert.equal(mailLines.length, 2, log);
    assert.ok(
      mailLines.some((line) => line.includes(`"to":"j***@invitees.example"`)),
      log,
    );
    assert.ok(
      mailLines.some((line) => line.includes(`"to":"o***@owners.example"`)),
      log,
    );
    for (const email of [inviteeEmail, ownerEmail]) {
      assert.equal(log.includes(email), false, `${email} is in the log:\n${log}`);
      assert.equal(log.includes(email.split("@")[0]!), false, `the local part of ${email} is in the log`);
    }
  });

  it("with SMTP_URL: the mail-sent line has a masked recipient and no subject", async () => {
    const relay = await startSmtpServer();
    const app = await appWithCapturedLog({ smtpUrl: relay.url });
    apps.push(app, relay);
    const { ownerEmail, inviteeEmail } = await inviteThroughHttp(app);
    const log = app.log();
    assert.ok(
      relay.mails.some((mail) => mail.to.includes(inviteeEmail)),
      "the relay got the invitation",
    );
    const mailLines = log.split("\n").filter((line) => line.includes('"msg":"mail sent"'));
    assert.equal(mailLines.length, 2, log);
    assert.ok(
      mailLines.some((line) => line.includes(`"to":"j***@invitees.example"`)),
      log,
    );
    // The subject names the business (and a lead alert's the home): not logged either.
    assert.equal(log.includes("Invitation to join"), false, log);
    for (const email of [inviteeEmail, ownerEmail]) {
      assert.equal(log.includes(email), false, `${email} is in the log:\n${log}`);
    }
  });
});
