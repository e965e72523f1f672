import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";

/** What Node's HTTP server keeps on each socket it parses (an internal, checked before use). */
type ParsedSocket = Socket & { parser?: { remove?: () => void } };

/**
 * A route whose body may take longer than REQUEST_TIMEOUT_MS to arrive (a 1 GB file over a slow
 * link): Node's `requestTimeout` bounds the whole request, headers and body, so such an upload
 * would be cut at 30 s. Its connection leaves Node's list of timed connections (the parser's
 * `remove()`, which Node itself calls when a socket closes) and gets an idle guard instead: a
 * client that sends nothing for `idleMs` is disconnected, so a stalled client still cannot hold a
 * socket. The answer closes the connection, which is no longer in Node's list for the requests
 * that would follow on it. A Node without that internal keeps the whole-request deadline.
 */
export function allowLongUpload(request: FastifyRequest, reply: FastifyReply, idleMs: number): void {
  const socket = request.raw.socket as ParsedSocket;
  if (typeof socket.parser?.remove !== "function") return;
  socket.parser.remove();
  socket.setTimeout(idleMs, () => socket.destroy());
  reply.header("connection", "close");
}
