import { Type } from "@fastify/type-provider-typebox";
import type { AppError } from "../errors.ts";

/** JSON-RPC error codes this route answers with outside the tool-protocol server itself. */
export const PARSE_ERROR = -32700;
/** A body that is JSON but not one JSON-RPC request (here: a batch). */
export const INVALID_REQUEST = -32600;
/** A tools/call whose `arguments` are not an object. */
export const INVALID_PARAMS = -32602;
/** The transport-level "server error" code the tool protocol's HTTP examples use (throttle, 405…). */
export const SERVER_ERROR = -32000;

/** A JSON-RPC error answer of the MCP route, described for one HTTP status. */
export function jsonRpcErrorResponse(description: string) {
  return Type.Object(
    {
      jsonrpc: Type.Literal("2.0"),
      error: Type.Object({
        code: Type.Integer(),
        message: Type.String(),
        data: Type.Optional(
          Type.Object({
            status: Type.Integer({ description: "The HTTP status of this answer." }),
            error: Type.String({ description: "The machine code the REST endpoints would send." }),
            retry_after_seconds: Type.Optional(Type.Integer()),
          }),
        ),
      }),
      id: Type.Union([Type.String(), Type.Number(), Type.Null()], {
        description: "The request's id when its body could be read (a refused NUL), else null.",
      }),
    },
    { title: "JsonRpcError", description },
  );
}

/** What a client posts (documentation only: the tool-protocol SDK validates the message). */
export const JsonRpcRequestBody = Type.Object(
  {
    jsonrpc: Type.Literal("2.0"),
    id: Type.Optional(
      Type.Union([Type.String(), Type.Number()], { description: "Absent on a notification." }),
    ),
    method: Type.String({ examples: ["initialize", "tools/list", "tools/call"] }),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  {
    title: "JsonRpcRequest",
    description: "One JSON-RPC message of the Model Context Protocol (a batch of more than one is refused).",
  },
);

/** What the tool-protocol server answers (documentation only: the transport writes it). */
export const JsonRpcResponseBody = Type.Object(
  { jsonrpc: Type.Literal("2.0"), id: Type.Union([Type.String(), Type.Number()]) },
  {
    title: "JsonRpcResponse",
    additionalProperties: true,
    description:
      "A JSON-RPC response of the Model Context Protocol: `result`, or `error` for a protocol error.",
  },
);

export interface JsonRpcError {
  jsonrpc: "2.0";
  error: {
    code: number;
    message: string;
    data?: { status: number; error: string; retry_after_seconds?: number };
  };
  id: JsonRpcId;
}

type JsonRpcId = string | number | null;

/** A JSON-RPC error response, tied to the request `id` when one could be read (else `id: null`). */
export function jsonRpcError(
  code: number,
  message: string,
  data?: JsonRpcError["error"]["data"],
  id: JsonRpcId = null,
): JsonRpcError {
  return { jsonrpc: "2.0", error: { code, message, ...(data ? { data } : {}) }, id };
}

/** The id of a parsed JSON-RPC request, when it has a valid one. */
export function requestIdOf(body: unknown): JsonRpcId {
  if (!body || typeof body !== "object" || Array.isArray(body)) return null;
  const { id } = body as { id?: unknown };
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/**
 * The JSON-RPC rendering of an error the HTTP layer raised before the tool-protocol server ran,
 * answered to the request's id when its body could be read (a NUL refused in its arguments).
 */
export function fromAppError(error: AppError, body?: unknown): JsonRpcError {
  const code = error.code === "invalid_json" ? PARSE_ERROR : SERVER_ERROR;
  const message = error.detail ? `${error.code}: ${error.detail}` : error.code;
  const retryAfter = Number(error.headers["retry-after"]);
  return jsonRpcError(
    code,
    message,
    {
      status: error.status,
      error: error.code,
      ...(Number.isInteger(retryAfter) ? { retry_after_seconds: retryAfter } : {}),
    },
    requestIdOf(body),
  );
}
