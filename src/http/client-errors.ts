/**
 * Errors Node's HTTP parser raises before any route runs (a request that did not arrive in time,
 * oversized headers, bytes that are not HTTP). There is no request object yet, so the answer is
 * written to the socket directly, in the service's `{error, detail}` shape, and the connection is
 * closed.
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger } from "fastify";

interface ClientError {
  status: number;
  code: string;
  detail: string;
}

function classify(error: NodeJS.ErrnoException, requestTimeoutMs: number): ClientError {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: 408,
        code: "request_timeout",
        detail: `the request's headers and body must arrive within ${requestTimeoutMs} ms`,
      };
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "headers_too_large", detail: "request headers exceed 16384 bytes" };
    default:
      return { status: 400, code: "bad_request", detail: "malformed HTTP request" };
  }
}

export function createClientErrorHandler(requestTimeoutMs: number) {
  return function onClientError(this: { log: FastifyBaseLogger }, error: Error, socket: Socket) {
    const errno = error as NodeJS.ErrnoException;
    if (errno.code === "ECONNRESET" || socket.destroyed) return;
    const { status, code, detail } = classify(errno, requestTimeoutMs);
    this.log.debug({ err: error, status }, "client error before routing");
    if (socket.writable) {
      const body = JSON.stringify({ error: code, detail });
      // The headers every answer carries (request-log.ts), though no request object exists yet.
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `X-Request-Id: ${randomUUID()}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
