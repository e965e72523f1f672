import type { FastifyInstance } from "fastify";
import { shuttingDown } from "../errors.ts";
import { forwardedCallMark } from "../http/forwarded-call.ts";
import type { ForwardRequest } from "./tools.ts";

/** Who called the proxy: exactly what the endpoint needs to treat the call as the caller's own. */
export interface Caller {
  /** The Authorization header as received, unchanged (absent when the client sent none). */
  authorization: string | undefined;
  /** The client IP the proxy route saw, so the endpoint sees the real caller. */
  ip: string;
}

export interface ForwardedResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** Parsed JSON, or the raw text when the endpoint answered something else, or undefined when empty. */
  body: unknown;
}

export type Forwarder = (request: ForwardRequest, caller: Caller) => Promise<ForwardedResponse>;

/**
 * Forwards through the app's own routing (Fastify inject): the endpoint's guards, validation,
 * limits and idempotency run exactly as for a direct call, and nothing else is carried over. The
 * pre-auth per-IP limit already counted the client's request at /api/mcp, so the forwarded call is
 * marked not to be counted again: a tool call costs the IP one request, like a direct call.
 */
export function createInjectForwarder(app: FastifyInstance): Forwarder {
  return async (request, caller) => {
    const headers: Record<string, string> = { ...request.headers, ...forwardedCallMark() };
    if (caller.authorization !== undefined) headers.authorization = caller.authorization;
    let payload: string | undefined;
    if (request.body !== undefined) {
      payload = JSON.stringify(request.body);
      headers["content-type"] = "application/json";
    }
    let response: Awaited<ReturnType<FastifyInstance["inject"]>>;
    try {
      response = await app.inject({
        method: request.method,
        url: request.path,
        query: request.query ?? {},
        headers,
        ...(payload === undefined ? {} : { payload }),
        remoteAddress: caller.ip,
      });
    } catch (error) {
      if (isClosingError(error)) return shuttingDownAnswer();
      throw error;
    }
    return { status: response.statusCode, headers: response.headers, body: parseBody(response.body) };
  };
}

/** Fastify refuses inject once the app began to close: the tool call was not run. */
function isClosingError(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "FST_ERR_REOPENED_CLOSE_SERVER";
}

/** The answer the endpoint gives a request that reaches a closing instance (http/shutdown-gate.ts). */
function shuttingDownAnswer(): ForwardedResponse {
  const refused = shuttingDown();
  return {
    status: refused.status,
    headers: refused.headers,
    body: { error: refused.code, detail: refused.detail },
  };
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
