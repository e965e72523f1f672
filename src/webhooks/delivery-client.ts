import type { LookupAddress, LookupOptions } from "node:dns";
import type { Logger } from "pino";
import type { Agent, Dispatcher, request } from "undici";
import { causeChain } from "../errors.ts";
import { BlockedTargetError, type TargetGuard } from "./target-guard.ts";

export type DeliveryOutcome =
  | { outcome: "attempted"; statusCode: number }
  | { outcome: "blocked" | "timeout" | "error"; error: string };

export interface DeliveryClient {
  /** POSTs the bytes as JSON once. Never throws for network problems; reports them instead. */
  post(targetUrl: string, body: Buffer, headers: Record<string, string>): Promise<DeliveryOutcome>;
  close(): Promise<void>;
}

export interface DeliveryClientOptions {
  guard: TargetGuard;
  logger: Logger;
  /** Extra trusted CA (PEM). Tests pass their own; production keeps the system store only. */
  ca?: string | Buffer;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The connect-time half of the SSRF guard: the socket connects only to addresses the guard
 * approved in this very lookup, so a name that re-resolves to a private address between
 * subscription and delivery (DNS rebinding) is refused. Node skips `lookup` for IP literals;
 * those are checked by guard.checkUrl before the request.
 */
function guardedLookup(guard: TargetGuard) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    guard.resolveAllowed(hostname).then(
      (answers) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? answers.filter((answer) => answer.family === wanted) : answers;
        if (usable.length === 0) {
          callback(Object.assign(new Error(`no usable address for ${hostname}`), { code: "ENOTFOUND" }), []);
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

function findBlocked(error: unknown): BlockedTargetError | undefined {
  return causeChain(error, 6).find(
    (cause): cause is BlockedTargetError => cause instanceof BlockedTargetError,
  );
}

/**
 * What gave up, in words, or undefined when the error is not one of our timeouts: a TLS
 * handshake that never completes ends at the connect timeout, not the total one, and the log
 * must say so.
 */
function timeoutMessage(error: unknown, limits: { connectTimeoutMs: number; totalTimeoutMs: number }) {
  const candidate = error as { name?: string; code?: string };
  switch (candidate?.code) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return `no connection (TCP and TLS) within the ${limits.connectTimeoutMs} ms connect timeout`;
    case "UND_ERR_HEADERS_TIMEOUT":
      return `no response within ${limits.totalTimeoutMs} ms`;
  }
  return candidate?.name === "TimeoutError" ? `no response within ${limits.totalTimeoutMs} ms` : undefined;
}

interface Limits {
  connectTimeoutMs: number;
  totalTimeoutMs: number;
}

function newAgent(AgentClass: typeof Agent, options: DeliveryClientOptions, limits: Limits): Dispatcher {
  return new AgentClass({
    connect: {
      timeout: limits.connectTimeoutMs,
      lookup: guardedLookup(options.guard),
      rejectUnauthorized: true,
      ...(options.ca ? { ca: options.ca } : {}),
    } as Agent.Options["connect"],
    headersTimeout: limits.totalTimeoutMs,
    bodyTimeout: limits.totalTimeoutMs,
    // One delivery per connection: nothing is gained by pooling sockets to many receivers.
    pipelining: 0,
  });
}

export function createDeliveryClient(options: DeliveryClientOptions): DeliveryClient {
  const limits = {
    connectTimeoutMs: options.connectTimeoutMs ?? 3_000,
    totalTimeoutMs: options.totalTimeoutMs ?? 10_000,
  };
  // undici (110 modules) loads with the first delivery: a process that delivers nothing never loads it.
  let client: Promise<{ dispatcher: Dispatcher; request: typeof request }> | undefined;
  const connect = () =>
    (client ??= import("undici").then((undici) => ({
      dispatcher: newAgent(undici.Agent, options, limits),
      request: undici.request,
    })));

  const post = async (targetUrl: string, body: Buffer, headers: Record<string, string>) => {
    try {
      options.guard.checkUrl(targetUrl);
      const { dispatcher, request } = await connect();
      const response = await request(targetUrl, {
        method: "POST",
        dispatcher,
        body,
        headers: { "content-type": "application/json", "user-agent": "porchlight-webhooks/1", ...headers },
        signal: AbortSignal.timeout(limits.totalTimeoutMs),
        // undici's request never follows redirects unless a redirect interceptor is added.
      });
      // The receiver's status is not inspected and its body is not read beyond draining it.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return { outcome: "attempted", statusCode: response.statusCode } satisfies DeliveryOutcome;
    } catch (error) {
      const blocked = findBlocked(error);
      if (blocked) {
        // The delivery log is read by the org's people: the caller's words (a name that resolved
        // privately reads like one that does not resolve); the address it resolved to goes to the
        // operator's log only.
        options.logger.info({ reason: blocked.reason }, "webhook delivery blocked");
        return { outcome: "blocked", error: blocked.callerReason } satisfies DeliveryOutcome;
      }
      const timedOut = timeoutMessage(error, limits);
      if (timedOut) return { outcome: "timeout", error: timedOut } satisfies DeliveryOutcome;
      const message = error instanceof Error ? error.message : String(error);
      options.logger.debug({ err: error }, "webhook delivery failed");
      return { outcome: "error", error: message } satisfies DeliveryOutcome;
    }
  };

  const close = async () => {
    if (client) await (await client).dispatcher.close();
  };
  return { post, close };
}
