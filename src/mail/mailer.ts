import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; links stand on lines of their own so any client shows them. */
  text: string;
  /** The links the message carries (logged when mail goes to the outbox). */
  links: string[];
}

/** The one way the service sends email (invitations, password resets). */
export interface Mailer {
  readonly kind: "smtp" | "outbox";
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export interface MailerDeps {
  smtpUrl: string | undefined;
  from: string;
  dataDir: string;
  logger: Logger;
  clock: Clock;
  /** Counts each message sent or failed (porchlight_emails_total). */
  counter?: { inc(labels: { outcome: "sent" | "failed" }): void };
}

/** SMTP when SMTP_URL is set; otherwise files in DATA_DIR/mail-outbox/, their links logged. */
export function createMailer(deps: MailerDeps): Mailer {
  const mailer = deps.smtpUrl ? createSmtpMailer(deps.smtpUrl, deps) : createOutboxMailer(deps);
  const counter = deps.counter;
  if (!counter) return mailer;
  return {
    ...mailer,
    send: async (message) => {
      try {
        await mailer.send(message);
      } catch (error) {
        counter.inc({ outcome: "failed" });
        throw error;
      }
      counter.inc({ outcome: "sent" });
    },
  };
}

/**
 * Nodemailer (~40 modules) is loaded and its transport made on the first message, not at start:
 * most processes send mail rarely or never.
 */
function createSmtpMailer(smtpUrl: string, deps: MailerDeps): Mailer {
  let transport: Promise<Transporter> | undefined;
  const connect = async () => (await import("nodemailer")).default.createTransport(smtpUrl);
  return {
    kind: "smtp",
    send: async (message) => {
      transport ??= connect();
      await (await transport).sendMail({
        from: deps.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
      deps.logger.info({ to: message.to, subject: message.subject }, "mail sent");
    },
    close: async () => (await transport)?.close(),
  };
}

function createOutboxMailer(deps: MailerDeps): Mailer {
  const outbox = path.join(deps.dataDir, "mail-outbox");
  return {
    kind: "outbox",
    send: async (message) => {
      await mkdir(outbox, { recursive: true, mode: 0o700 });
      const stamp = deps.clock.now().toISOString().replace(/[:.]/g, "-");
      const file = path.join(outbox, `${stamp}-${randomUUID()}.eml`);
      const eml = [
        `From: ${deps.from}`,
        `To: ${message.to}`,
        `Subject: ${message.subject}`,
        `Date: ${deps.clock.now().toUTCString()}`,
        "Content-Type: text/plain; charset=utf-8",
        "",
        message.text,
      ].join("\r\n");
      await writeFile(file, eml, { mode: 0o600 });
      // Offline, the log is how an operator finds the link: the mail never leaves the machine.
      deps.logger.info(
        { to: message.to, subject: message.subject, file, links: message.links },
        "mail written to outbox",
      );
    },
    close: async () => {},
  };
}
