import type { IncomingMessage } from "node:http";
import { Type } from "@fastify/type-provider-typebox";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { soleAuthorization } from "../http/authorization-header.ts";
import { logServerError, toAppError } from "../http/error-handler.ts";
import { createInjectForwarder, type Forwarder } from "../mcp/forward.ts";
import {
  fromAppError,
  INVALID_PARAMS,
  INVALID_REQUEST,
  JsonRpcResponseBody,
  jsonRpcError,
  jsonRpcErrorResponse,
  SERVER_ERROR,
} from "../mcp/json-rpc.ts";
import { createProxyServer } from "../mcp/server.ts";
import { PROXY_TOOLS } from "../mcp/tools.ts";

export const MCP_PATH = "/api/mcp";

/**
 * Room for the largest body an endpoint accepts (1 MB) plus its JSON-RPC envelope; the endpoint's
 * own ceiling then applies to the forwarded body.
 */
export const MCP_BODY_LIMIT = 2 * 1_048_576;

/**
 * The tool-protocol proxy (spec: MCP proxy). Stateless: every POST gets a fresh server and
 * transport answering in plain JSON. Tool calls are forwarded through `app`, the root instance,
 * so they pass the same guards as direct calls.
 */
export async function registerMcpRoute(
  app: FastifyInstance,
  options: { publicBaseUrl: string },
): Promise<void> {
  const forward = createInjectForwarder(app);
  const ownOrigin = new URL(options.publicBaseUrl).origin;
  await app.register(async (scope) => {
    // Errors raised before the server runs (the per-IP throttle, unreadable JSON, 413) are
    // answered as JSON-RPC errors here; every other route keeps the global error rendering.
    scope.setErrorHandler((error, request, reply) => {
      const appError = toAppError(error, request);
      logServerError(request, error, appError);
      return reply.code(appError.status).headers(appError.headers).send(fromAppError(appError));
    });

    scope.post(
      MCP_PATH,
      {
        bodyLimit: MCP_BODY_LIMIT,
        schema: {
          operationId: "mcp",
          summary: "Tool-protocol (MCP) proxy",
          description:
            "Streamable HTTP transport of the Model Context Protocol, stateless, JSON responses. Each tool forwards the caller's Authorization header unchanged to its endpoint, so authentication, scopes, limits, validation and idempotency are that endpoint's. Without a key a client can initialize and list tools; every call returns the endpoint's 401 as a tool error. The pre-auth per-IP throttle answers HTTP 429 with Retry-After and a JSON-RPC error of code -32000. A tool call counts once against the per-IP limit, here (its forwarded call is not counted again). Any Accept header is served (answers are always plain JSON), and a body sent without a JSON content type is read as JSON. JSON-RPC batches (arrays, even of one message) are refused (HTTP 400, code -32600): send one message per request. A tools/call whose params the protocol refuses (a name that is not a string, arguments that are not an object) is a JSON-RPC error -32602 (invalid params) naming the field; so are tool arguments nested more than 64 levels deep.",
          // Without a key a client may initialize and list tools (calls then carry the endpoints' 401).
          security: [{}, { bearerAuth: [] }],
          response: {
            200: JsonRpcResponseBody,
            202: Type.Null({ description: "A notification (a message without id) was accepted; no body." }),
            400: jsonRpcErrorResponse(
              "Unreadable JSON (code -32700), an invalid JSON-RPC message or a batch (code -32600).",
            ),
            413: jsonRpcErrorResponse(`Body over ${MCP_BODY_LIMIT} bytes.`),
            403: jsonRpcErrorResponse(
              "An Origin header other than the service's own (PUBLIC_BASE_URL): a browser page of another site (data.error origin_not_allowed).",
            ),
            422: jsonRpcErrorResponse("A NUL character inside the message (data.error invalid_payload)."),
            429: jsonRpcErrorResponse("The pre-auth per-IP limit (code -32000, data.error rate_limited)."),
            500: jsonRpcErrorResponse("Unexpected error."),
            503: jsonRpcErrorResponse(
              "The database cannot be reached, or this instance is shutting down (then with Connection: close). Code -32000; retry after Retry-After.",
            ),
          },
        },
      },
      async (request, reply) => {
        // The transport's rule against DNS rebinding: a browser page of another origin (a name
        // re-pointed at this host) may not drive the tools. Clients that are not browsers send
        // no Origin.
        const origin = request.headers.origin;
        if (origin !== undefined && origin !== ownOrigin) {
          return reply
            .code(403)
            .send(
              jsonRpcError(SERVER_ERROR, "Origin not allowed", { status: 403, error: "origin_not_allowed" }),
            );
        }
        return serveToolProtocol(request, reply, forward);
      },
    );

    scope.route({
      // Every other method: 405 with `Allow: POST` (Fastify's own 405 would list these too).
      method: ["GET", "DELETE", "PUT", "PATCH", "OPTIONS"],
      url: MCP_PATH,
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply.code(405).header("allow", "POST").send(jsonRpcError(SERVER_ERROR, "Method not allowed.")),
    });
  });
}

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

async function serveToolProtocol(request: FastifyRequest, reply: FastifyReply, forward: Forwarder) {
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
