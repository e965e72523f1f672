import type { IncomingMessage } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { FastifyReply, FastifyRequest } from "fastify";
import { soleAuthorization } from "../http/authorization-header.ts";
import type { Forwarder } from "./forward.ts";
import { INVALID_PARAMS, INVALID_REQUEST, jsonRpcError, PARSE_ERROR, SERVER_ERROR } from "./json-rpc.ts";
import { createProxyServer } from "./server.ts";
import { PROXY_TOOLS } from "./tools.ts";

/**
 * Serving one tool-protocol POST (mcp/route.ts holds the route). This module and the protocol
 * SDK it imports are loaded by the route's first call.
 */

const BOTH_MEDIA_TYPES = "application/json, text/event-stream";

/** Sets one header on the raw request, in the parsed headers and the raw list alike. */
function setRawHeader(raw: IncomingMessage, name: string, value: string): void {
  raw.headers[name] = value;
  // The transport may read the raw header list rather than the parsed headers: keep both in step.
  const list = raw.rawHeaders;
  for (let index = list.length - 2; index >= 0; index -= 2) {
    if (list[index]?.toLowerCase() === name) list.splice(index, 2);
  }
  list.push(name, value);
}

/**
 * The transport refuses a POST whose Accept does not list both application/json and
 * text/event-stream (406), or whose Content-Type is not application/json (415). This route only
 * ever answers plain JSON, the body has already been read as JSON by the app's parser (which, as
 * on every endpoint, reads a body sent without a JSON content type as JSON), and the spec sets
 * neither rule: any client sending a JSON-RPC body is served.
 */
export function normalizeForTransport(raw: IncomingMessage): void {
  const accept = raw.headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    setRawHeader(raw, "accept", BOTH_MEDIA_TYPES);
  }
  if (!(raw.headers["content-type"] ?? "").includes("application/json")) {
    setRawHeader(raw, "content-type", "application/json");
  }
}

/** Deeper tool arguments are refused: no endpoint takes them, and re-serializing them overflows the stack. */
const MAX_ARGUMENT_DEPTH = 64;

/** The requests whose params are checked here, before the SDK sees them. */
const CHECKED_REQUESTS = new Map<string, typeof CallToolRequestSchema | typeof InitializeRequestSchema>([
  ["tools/call", CallToolRequestSchema],
  ["initialize", InitializeRequestSchema],
]);

/**
 * A request whose params the SDK's own schema refuses (a tool name that is not a string,
 * arguments that are not an object, an initialize without protocolVersion or clientInfo): the SDK
 * answers an internal error (-32603) dumping its schema library's issues; it is the caller's
 * error, invalid params, naming the field. Tool arguments nested absurdly deep are refused the
 * same way (they crashed the forwarder's JSON.stringify).
 */
function invalidParams(body: unknown): { id: string | number; detail: string } | undefined {
  const message = body as { method?: unknown; id?: unknown; params?: { arguments?: unknown } } | null;
  const schema = typeof message?.method === "string" ? CHECKED_REQUESTS.get(message.method) : undefined;
  if (!schema || !message) return undefined;
  if (typeof message.id !== "string" && typeof message.id !== "number") return undefined;
  if (message.method === "tools/call" && exceedsDepth(message.params?.arguments, MAX_ARGUMENT_DEPTH)) {
    return { id: message.id, detail: `arguments: nested more than ${MAX_ARGUMENT_DEPTH} levels deep` };
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return { id: message.id, detail: `${issue?.path.join(".") ?? "params"}: ${issue?.message ?? "invalid"}` };
}

/** Whether objects and arrays nest deeper than `limit` (walked without recursion). */
function exceedsDepth(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

export async function serveToolProtocol(request: FastifyRequest, reply: FastifyReply, forward: Forwarder) {
  // An empty body is no JSON at all: a parse error, as unreadable JSON is (docs/mcp.md).
  if (request.body === undefined || request.body === "") {
    return reply
      .code(400)
      .send(jsonRpcError(PARSE_ERROR, "Parse error: the body is empty; send one JSON-RPC message."));
  }
  // A batch would run many tool calls for one count against the per-IP limit, and the protocol
  // versions from 2025-06-18 on removed batching: one message per request, whatever the version.
  if (Array.isArray(request.body)) {
    return reply
      .code(400)
      .send(
        jsonRpcError(INVALID_REQUEST, "Batches are not supported: send one JSON-RPC message per request."),
      );
  }
  // Valid JSON that is no JSON-RPC message (`{"jsonrpc":"2.0","id":1}`, `null`): the transport
  // calls that a parse error (-32700); JSON-RPC 2.0 says -32600.
  if (!JSONRPCMessageSchema.safeParse(request.body).success) {
    return reply
      .code(400)
      .send(
        jsonRpcError(
          INVALID_REQUEST,
          'Invalid Request: not a JSON-RPC 2.0 message (send "jsonrpc": "2.0" and a "method")',
        ),
      );
  }
  const invalid = invalidParams(request.body);
  if (invalid) {
    return reply.send({
      ...jsonRpcError(INVALID_PARAMS, `Invalid params: ${invalid.detail}`),
      id: invalid.id,
    });
  }
  const server = createProxyServer({
    forward,
    tools: PROXY_TOOLS,
    caller: { authorization: soleAuthorization(request.raw), ip: request.ip },
    logger: request.log,
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  normalizeForTransport(request.raw);
  reply.hijack();
  reply.raw.setHeader("x-request-id", request.id);
  reply.raw.setHeader("x-content-type-options", "nosniff");
  reply.raw.setHeader("cache-control", "no-store");
  reply.raw.on("close", () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    request.log.error({ err: error }, "mcp request failed");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json; charset=utf-8" });
      reply.raw.end(JSON.stringify(jsonRpcError(SERVER_ERROR, "Internal server error")));
    }
  }
}
