import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Transporter } from "nodemailer";
import type Mail from "nodemailer/lib/mailer/index.js";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; links stand on lines of their own so any client shows them. */
  text: string;
  /** The links the message carries (credentials: never logged). */
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

/**
 * The message as nodemailer's own objects: the recipient an address object (never parsed from a
 * string, so a comma or a line break cannot add one), the subject a header value that nodemailer
 * encodes and folds. No header is ever built by joining strings (issue 37: a business name with
 * CR/LF put real `Bcc:` and `X-Injected:` lines into an invitation's outbox file).
 */
function mailOptions(message: MailMessage, from: string): Mail.Options {
  return { from, to: { name: "", address: message.to }, subject: message.subject, text: message.text };
}

/**
 * The .eml of a message: its header block built by nodemailer's MIME node (the same encoding and
 * folding its SMTP transport applies; a line break in a value cannot start a header), then the
 * plain text as written (8bit), so the links in the file stay readable and copyable.
 */
async function composeEml(message: MailMessage, deps: MailerDeps): Promise<string> {
  const { default: MimeNode } = await import("nodemailer/lib/mime-node/index.js");
  const node = new MimeNode("text/plain; charset=utf-8");
  node.setHeader({
    From: deps.from,
    To: [{ name: "", address: message.to }],
    Subject: message.subject,
    Date: deps.clock.now(),
    "Content-Transfer-Encoding": "8bit",
  });
  return `${node.buildHeaders()}\r\n\r\n${message.text.replace(/\r?\n/g, "\r\n")}`;
}

/**
 * A recipient as the log shows it: the local part's first character and the domain,
 * `j***@example.com`. The address is personal data (an invitee's, a member's) and logs travel
 * further than the database (shippers, support tickets); the domain still tells an operator which
 * relay or organization a failure concerns. Something without an `@` shows as `***`.
 */
export function maskedAddress(address: string): string {
  const at = address.lastIndexOf("@");
  if (at < 1) return "***";
  return `${String.fromCodePoint(address.codePointAt(0)!)}***${address.slice(at)}`;
}

/** `text` with every address in it masked, and the recipient's local part where it stands alone. */
export function maskedAddressesIn(text: string, recipient: string): string {
  const localPart = recipient.slice(0, Math.max(recipient.lastIndexOf("@"), 0));
  const masked = text.replace(/[^\s<>()[\]"',;:@]+@[^\s<>()[\]"',;:@]+/g, maskedAddress);
  if (localPart.length < 2) return masked;
  const escaped = localPart.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return masked.replace(
    new RegExp(`(?<![\\w.+-])${escaped}(?![\\w.+-])`, "gi"),
    maskedAddress(recipient).split("@")[0]!,
  );
}

/**
 * A message the relay did not take, as the mailer passes it on. Nodemailer's error quotes the
 * recipient in its message, in the server's response and in its `rejected` lists, and every caller
 * logs the error it gets (the request's 500, the password reset's and the lead alert's failure
 * lines): this one keeps what tells an operator why (nodemailer's code, the SMTP command and
 * response code, the server's words) with each address masked, and nothing else of the original.
 */
export class MailNotSentError extends Error {
  readonly to: string;
  readonly code: string | undefined;
  readonly command: string | undefined;
  readonly responseCode: number | undefined;
  readonly response: string | undefined;

  constructor(cause: unknown, recipient: string) {
    const failure = (typeof cause === "object" && cause !== null ? cause : {}) as Record<string, unknown>;
    const text = (value: unknown) =>
      typeof value === "string" ? maskedAddressesIn(value, recipient) : undefined;
    super(text(failure.message) ?? "mail not sent");
    this.name = "MailNotSentError";
    this.to = maskedAddress(recipient);
    this.code = typeof failure.code === "string" ? failure.code : undefined;
    this.command = typeof failure.command === "string" ? failure.command : undefined;
    this.responseCode = typeof failure.responseCode === "number" ? failure.responseCode : undefined;
    this.response = text(failure.response);
  }
}

/** SMTP when SMTP_URL is set; otherwise files in DATA_DIR/mail-outbox/, each file's name logged. */
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
      try {
        await (await transport).sendMail(mailOptions(message, deps.from));
      } catch (error) {
        throw new MailNotSentError(error, message.to);
      }
      // Not the address nor the subject: personal data stays out of the log (see maskedAddress).
      deps.logger.info({ to: maskedAddress(message.to) }, "mail sent");
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
      await writeFile(file, await composeEml(message, deps), { mode: 0o600 });
      // The file, not its links: a reset or invitation link is a credential, and logs travel
      // further than DATA_DIR (shippers, support tickets). The operator opens the file.
      // Not the subject: a lead alert's names the homeowner (personal data stays out of the log);
      // nor the whole address (maskedAddress).
      deps.logger.info({ to: maskedAddress(message.to), file }, "mail written to outbox");
    },
    close: async () => {},
  };
}
