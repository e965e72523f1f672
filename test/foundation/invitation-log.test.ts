import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { Config } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { maskedAddress, maskedAddressesIn } from "../../src/mail/mailer.ts";
import { AppBrowser, createOrg, eventually, inviteAndAccept, outboxMails } from "../app-api/helpers.ts";
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

  it("maskedAddressesIn masks each address in a relay's words and the recipient's local part alone", () => {
    const to = "Jane.Q@invitees.example";
    assert.equal(
      maskedAddressesIn(
        "550 5.1.1 <jane.q@INVITEES.example>: mailbox jane.q unknown (from noreply@porch.test)",
        to,
      ),
      "550 5.1.1 <j***@INVITEES.example>: mailbox J*** unknown (from n***@porch.test)",
    );
    assert.equal(
      maskedAddressesIn("mailbox jane.qx and xjane.q stay", to),
      "mailbox jane.qx and xjane.q stay",
    );
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

  it("a relay refusing the recipient: every line of the failure masks the address, its words included", async () => {
    const refused = new Set<string>();
    const relay = await startSmtpServer({
      refusal: (recipient) =>
        refused.has(recipient)
          ? `5.1.1 <${recipient}>: Recipient address rejected: mailbox ${recipient.split("@")[0]} unknown`
          : undefined,
    });
    const app = await appWithCapturedLog({ smtpUrl: relay.url });
    apps.push(app, relay);
    const ownerEmail = `owner.${suffix()}@owners.example`;
    const inviteeEmail = `jane.${suffix()}@invitees.example`;
    const owner = await inviteAndAccept(app.ctx, await createOrg(app.ctx), ownerEmail, "owner");
    refused.add(inviteeEmail).add(ownerEmail);

    const invited = await owner.browser.request("POST", "/app/api/v1/team/invitations", {
      body: { email: inviteeEmail, role: "member" },
    });
    assert.equal(invited.status, 500, invited.text);
    const reset = await new AppBrowser(app.ctx).request("POST", "/app/api/v1/auth/request-password-reset", {
      body: { email: ownerEmail },
    });
    assert.equal(reset.status, 200, reset.text);

    const failureOf = (message: string) =>
      eventually(() =>
        app
          .log()
          .split("\n")
          .find((line) => line.includes(`"msg":"${message}"`)),
      );
    const requestFailed = JSON.parse(await failureOf("request failed"));
    assert.equal(requestFailed.err.to, "j***@invitees.example");
    assert.equal(requestFailed.err.responseCode, 550);
    assert.equal(requestFailed.err.command, "RCPT TO");
    assert.match(
      requestFailed.err.response,
      /^550 5\.1\.1 <j\*\*\*@invitees\.example>: .* mailbox j\*\*\* unknown$/,
    );
    const resetFailed = JSON.parse(await failureOf("password reset mail not sent"));
    assert.equal(resetFailed.err.to, "o***@owners.example");
    assert.match(resetFailed.err.message, /o\*\*\*@owners\.example/);
    const log = app.log();
    for (const email of [inviteeEmail, ownerEmail]) {
      assert.equal(log.includes(email), false, `${email} is in the log:\n${log}`);
      assert.equal(
        log.includes(email.split("@")[0]!),
        false,
        `the local part of ${email} is in the log:\n${log}`,
      );
    }
  });
});
