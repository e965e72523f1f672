import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { testCertificates } from "../../test/helpers/https-receiver.ts";

export interface TimedReceipt {
  receivedAt: number;
  body: Buffer;
}

/**
 * An HTTPS receiver on loopback (test CA) that notes when each delivery arrived, and answers
 * `answerDelayMs` after it (a slow receiver keeps a delivery in flight).
 */
export async function startTimedReceiver(options: { answerDelayMs?: number } = {}) {
  const { ca, key, cert } = testCertificates();
  const receipts: TimedReceipt[] = [];
  const server = createServer({ key, cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      receipts.push({ receivedAt: Date.now(), body: Buffer.concat(chunks) });
      setTimeout(() => response.writeHead(204).end(), options.answerDelayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    ca,
    receipts,
    url: (pathname: string) => `https://localhost:${port}${pathname}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
