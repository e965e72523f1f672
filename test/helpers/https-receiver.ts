import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export interface TestCertificates {
  /** The test CA (PEM) a client must trust to reach the receiver. */
  ca: string;
  key: string;
  cert: string;
}

let certificates: TestCertificates | undefined;

/**
 * A throwaway CA and a server certificate signed by it, generated once per test process with
 * openssl: valid for `receiver.test`, `localhost` and 127.0.0.1.
 */
export function testCertificates(): TestCertificates {
  if (certificates) return certificates;
  const dir = mkdtempSync(path.join(tmpdir(), "porchlight-ca-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  try {
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    run(
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Porchlight Test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    );
    run("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=receiver.test");
    writeFileSync(
      path.join(dir, "server.ext"),
      "subjectAltName=DNS:receiver.test,DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    );
    run(
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "2",
      "-extfile",
      "server.ext",
    );
    certificates = {
      ca: readFileSync(path.join(dir, "ca.pem"), "utf8"),
      key: readFileSync(path.join(dir, "server.key"), "utf8"),
      cert: readFileSync(path.join(dir, "server.pem"), "utf8"),
    };
    return certificates;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The exact bytes received. */
  raw: Buffer;
}

export type ReceiverBehaviour = number | "hang" | { status: number; afterMs: number };

export interface HttpsReceiver {
  port: number;
  ca: string;
  /** https://<host>:<port><path>, default host receiver.test. */
  url(pathname?: string, host?: string): string;
  requests: ReceivedRequest[];
  /** What the receiver answers next: a status, "hang" to never answer, or a status after a delay. */
  respondWith(behaviour: ReceiverBehaviour): void;
  /** The most requests it held unanswered at once. */
  peakOpen(): number;
  close(): Promise<void>;
}

/** A real HTTPS server on loopback that records every request it receives. */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const { ca, key, cert } = testCertificates();
  const requests: ReceivedRequest[] = [];
  let behaviour: ReceiverBehaviour = 200;
  let open = 0;
  let peak = 0;
  const server: Server = createServer({ key, cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    open++;
    peak = Math.max(peak, open);
    response.on("close", () => open--);
    request.on("end", () => {
      requests.push({
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        raw: Buffer.concat(chunks),
      });
      if (behaviour === "hang") return;
      const { status, afterMs } =
        typeof behaviour === "number" ? { status: behaviour, afterMs: 0 } : behaviour;
      const answer = () => response.writeHead(status, { "content-type": "text/plain" }).end("ok");
      if (afterMs > 0) setTimeout(answer, afterMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    ca,
    url: (pathname = "/hooks/leads", host = "receiver.test") => `https://${host}:${port}${pathname}`,
    requests,
    respondWith: (next) => {
      behaviour = next;
    },
    peakOpen: () => peak,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
