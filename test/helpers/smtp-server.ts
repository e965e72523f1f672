import { SMTPServer } from "smtp-server";

/** One message as the server received it: its envelope recipients and raw text. */
export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface TestSmtpServer {
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives (the outside world, not a mock);
 * `delayMs` holds each message that long before accepting it, as a slow mail relay does;
 * `refusal` answers a recipient's RCPT TO with 550 and the words it returns, when it returns any.
 */
export async function startSmtpServer(
  options: { delayMs?: number; refusal?: (recipient: string) => string | undefined } = {},
): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(recipient, _session, callback) {
      const refusal = options.refusal?.(recipient.address);
      callback(refusal === undefined ? undefined : Object.assign(new Error(refusal), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        setTimeout(callback, options.delayMs ?? 0);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
