import { Transform } from "node:stream";
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest, RequestPayload } from "fastify";
import { bearerToken } from "../domain/api-key-format.ts";
import type { KeyAuthenticator } from "../domain/auth-context.ts";
import { AppError, authUnavailable } from "../errors.ts";
import { soleAuthorization } from "../http/authorization-header.ts";
import { logServerError, toAppError } from "../http/error-handler.ts";
import { refusedBodyOf } from "../http/json-body.ts";
import { createInjectForwarder } from "./forward.ts";
import {
  fromAppError,
  JsonRpcResponseBody,
  jsonRpcError,
  jsonRpcErrorResponse,
  SERVER_ERROR,
} from "./json-rpc.ts";

export const MCP_PATH = "/api/mcp";

/**
 * Room for the largest body an endpoint accepts (1 MB) plus its JSON-RPC envelope; the endpoint's
 * own ceiling then applies to the forwarded body.
 */
export const MCP_BODY_LIMIT = 2 * 1_048_576;

/**
 * The most a request without a valid key reads. Such a client can only initialize and list tools
 * (a few hundred bytes); its body is read before anything knows who sent it, and a megabyte of small
 * JSON values costs a third of a second of the event loop to parse.
 */
export const MCP_KEYLESS_BODY_LIMIT = 65_536;

/**
 * The tool-protocol proxy (spec: MCP proxy). Stateless: every POST gets a fresh server and
 * transport answering in plain JSON. Tool calls are forwarded through `app`, the root instance,
 * so they pass the same guards as direct calls.
 */
export async function registerMcpRoute(
  app: FastifyInstance,
  options: { publicBaseUrl: string; keyStore: KeyAuthenticator },
): Promise<void> {
  const forward = createInjectForwarder(app);
  const ownOrigin = new URL(options.publicBaseUrl).origin;
  await app.register(async (scope) => {
    // Errors raised before the server runs (the per-IP throttle, unreadable JSON, 413) are
    // answered as JSON-RPC errors here; every other route keeps the global error rendering.
    scope.setErrorHandler((error, request, reply) => {
      const appError = toAppError(error, request);
      logServerError(request, error, appError);
      return reply
        .code(appError.status)
        .headers(appError.headers)
        .send(fromAppError(appError, request.body ?? refusedBodyOf(request)));
    });

    scope.post(
      MCP_PATH,
      {
        bodyLimit: MCP_BODY_LIMIT,
        preParsing: async (request, _reply, payload) => limitKeylessBody(request, payload, options.keyStore),
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
            413: jsonRpcErrorResponse(
              `Body over ${MCP_BODY_LIMIT} bytes, or over ${MCP_KEYLESS_BODY_LIMIT} without a valid key (data.error payload_too_large).`,
            ),
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
        // The protocol SDK (and its schema library) loads with the first call, not at start.
        const { serveToolProtocol } = await import("./serve.ts");
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

/**
 * The body as it may be read: whole for a valid key or a body declared within the keyless limit;
 * a larger declared body without one is refused before a byte is read, and an undeclared one
 * (chunked) is cut off past the limit.
 */
async function limitKeylessBody(
  request: FastifyRequest,
  payload: RequestPayload,
  keyStore: KeyAuthenticator,
): Promise<RequestPayload> {
  const declared = Number(request.headers["content-length"]);
  if (declared <= MCP_KEYLESS_BODY_LIMIT || (await carriesValidKey(request, keyStore))) return payload;
  if (!Number.isNaN(declared)) throw keylessBodyTooLarge();
  let received = 0;
  return payload.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(received > MCP_KEYLESS_BODY_LIMIT ? keylessBodyTooLarge() : null, chunk);
      },
    }),
  );
}

const keylessBodyTooLarge = () =>
  new AppError(
    413,
    "payload_too_large",
    `a request without a valid API key may send at most ${MCP_KEYLESS_BODY_LIMIT} bytes; send the key as Authorization: Bearer ak_…`,
  );

async function carriesValidKey(request: FastifyRequest, keyStore: KeyAuthenticator): Promise<boolean> {
  const token = bearerToken(soleAuthorization(request.raw));
  if (!token) return false;
  try {
    const lookup = keyStore.cachedLookup(token) ?? (await keyStore.authenticate(token));
    return lookup.status === "valid";
  } catch (error) {
    throw authUnavailable(error);
  }
}
