import swagger from "@fastify/swagger";
import type { FastifyInstance, FastifySchema, RouteOptions } from "fastify";
import { errorResponse, STANDARD_ERROR_DESCRIPTIONS, standardErrorCodes } from "./error-responses.ts";
import { AUTOMATIONS_DISABLED_SENTENCE } from "./error-style.ts";
import "./route-config.ts";

type ResponseSchemas = Record<string, { description?: string; properties?: { error?: { enum?: string[] } } }>;

/** Adds the errors every route shares, with their exact strings, to the declared responses. */
function withStandardErrors(route: RouteOptions, declared: ResponseSchemas | undefined): ResponseSchemas {
  const responses: ResponseSchemas = { ...declared };
  for (const [status, codes] of Object.entries(standardErrorCodes(route))) {
    const existing = responses[status];
    const declaredCodes = existing?.properties?.error?.enum ?? [];
    const description = existing?.description ?? STANDARD_ERROR_DESCRIPTIONS[status] ?? "Error.";
    responses[status] = errorResponse(description, [
      ...new Set([...codes, ...declaredCodes]),
    ]) as ResponseSchemas[string];
  }
  return responses;
}

/** Codes of a 400 that are retryable and so carry Retry-After (the trigger's kill switch). */
const RETRYABLE_400_CODES = new Set([AUTOMATIONS_DISABLED_SENTENCE]);

type DocumentedResponse = {
  description?: string;
  headers?: Record<string, unknown>;
  content?: { "application/json"?: { schema?: { properties?: { error?: { enum?: string[] } } } } };
};
type OpenApiPaths = Record<string, Record<string, { responses?: Record<string, DocumentedResponse> }>>;

const RETRY_AFTER_SCHEMA = { type: "integer", minimum: 0 };

const SHUTDOWN_CONNECTION_HEADER = {
  schema: { type: "string", enum: ["close"] },
  description: "`close` when this instance is shutting down (send the retry on a new connection).",
};

/**
 * The Retry-After header of an answer, or none (spec: Retry guidance): always sent on 409, 429
 * and 503; on a 400 only with the trigger's kill switch.
 */
function retryAfterHeader(status: string, response: DocumentedResponse) {
  if (status === "429" || status === "503" || status === "409") {
    return { schema: RETRY_AFTER_SCHEMA, description: "Seconds to wait before retrying.", required: true };
  }
  const codes = response.content?.["application/json"]?.schema?.properties?.error?.enum ?? [];
  if (status !== "400" || !codes.some((code) => RETRYABLE_400_CODES.has(code))) return undefined;
  return {
    schema: RETRY_AFTER_SCHEMA,
    description: `Sent with \`${AUTOMATIONS_DISABLED_SENTENCE}\` (retryable).`,
  };
}

/**
 * Declares Retry-After on every answer that sends it, and a shutdown's Connection: close on 503s.
 * Written on the finished document because @fastify/swagger cannot mark a response header required.
 */
function withRetryAfterHeaders<Document extends { paths?: OpenApiPaths }>(document: Document): Document {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const responses = operation.responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        const header = retryAfterHeader(status, response);
        if (!header) continue;
        const { description, headers, ...content } = response;
        const connection = status === "503" ? { Connection: SHUTDOWN_CONNECTION_HEADER } : {};
        responses[status] = {
          description,
          headers: { ...headers, "Retry-After": header, ...connection },
          ...content,
        };
      }
    }
  }
  return document;
}

/** The interface description's version (spec: Versioning). */
export const API_VERSION = "1.0.0";

const DESCRIPTION = `Bearer-key developer API of Porchlight, a direct-mail postcard service for home-services contractors: your CRM sends events, Porchlight mails a postcard of the customer's own home, and the leads and won deals it brings come back to you.

New here? The [quickstart](/docs/guides/quickstart) goes from \`npm start\` to a first event, lead and attributed conversion in a few curl commands; the guides also cover [webhooks](/docs/guides/webhooks), [limits](/docs/guides/limits), [attribution](/docs/guides/attribution), [Zapier](/docs/guides/zapier) and [n8n](/docs/guides/n8n).

Every endpoint requires \`Authorization: Bearer <API_KEY>\` (keys begin with \`ak_\`). The organization is always derived from the key; an \`org_id\` in a body is ignored.

Errors are \`{"error": <code>, "detail"?: <text>}\`. Two code styles coexist; each operation lists its exact strings.
Every endpoint is subject to a pre-auth limit of 60 requests per minute per client IP (429 \`{"error":"rate_limited"}\` with \`Retry-After\` = seconds to the end of the minute).
Per-organization limits use fixed windows that reset on the boundary; they count every authenticated request to the endpoint, also one later refused for its body (400, 413, 422), but not 401 or 403. Any write body over its limit is 413 \`payload_too_large\` with a detail naming the byte ceiling.
A request whose headers and body have not all arrived within 30 s (\`REQUEST_TIMEOUT_MS\`) is answered 408 \`request_timeout\` and its connection closed; headers over 16 KiB are 431 \`headers_too_large\`.
Bodies are JSON, read as UTF-8 unless Content-Type declares another \`charset\` (then decoded from it): invalid UTF-8 is 400 \`invalid_json\`; an unknown charset or a \`Content-Encoding\` other than identity is 400 \`invalid_payload\`. A path with broken percent-encoding is 400 \`bad_request\`. A known path under a method it does not take is 405 \`method_not_allowed\` with \`Allow\`; an unknown path is 404 \`not_found\`.
While an instance shuts down, a request still arriving on an open connection is not run: 503 \`service_unavailable\` with \`Retry-After: 1\` and \`Connection: close\`.
Every answer carries \`X-Request-Id\`, the id the service logged the request under: the request's own \`X-Request-Id\` when it is 1-128 characters of \`A-Z a-z 0-9 . _ : / + = @ -\`, else a fresh UUID.

Retry guidance: 429, 500, 502, 503, 409 \`import_in_progress\` and the trigger's kill-switch 400 are retryable (honour \`Retry-After\`); 400, 401, 403, 404, 413 and 422 are terminal.`;

/** The groups of the reference, in the order /docs shows them; every public operation is in one. */
export const OPERATION_TAGS = [
  { name: "Events", description: "CRM events that queue postcards through automations." },
  { name: "Leads", description: "Leads captured on landing pages, polled." },
  { name: "Webhooks", description: "Subscriptions to `lead.created`, signed deliveries, secret rotation." },
  {
    name: "Attribution",
    description: "Won deals and leads from elsewhere, matched to the mail that caused them.",
  },
  { name: "Customers", description: "Existing customers, never mailed again." },
  {
    name: "Import",
    description:
      "Bulk import of past jobs or customers (a CRM's history), for reactivation mailings and suppression.",
  },
  { name: "Automations", description: "The organization's automations, and the legacy trigger." },
  { name: "Identity", description: "Who a key belongs to." },
  { name: "MCP", description: "The Model Context Protocol endpoint for AI agents." },
] as const;

type OperationTag = (typeof OPERATION_TAGS)[number]["name"];

const TAG_BY_PATH: [RegExp, OperationTag][] = [
  [/^\/api\/v1\/events/, "Events"],
  [/^\/api\/v1\/integrations\/leads/, "Leads"],
  [/^\/api\/v1\/webhooks\/(?:subscribe|rotate)/, "Webhooks"],
  [/^\/api\/v1\/(?:conversions|tracking\/)/, "Attribution"],
  [/^\/api\/v1\/customers\//, "Customers"],
  [/^\/api\/v1\/import\//, "Import"],
  [/^\/api\/v1\/(?:automation\/|webhooks\/trigger)/, "Automations"],
  [/^\/api\/v1\/me$/, "Identity"],
  [/^\/api\/mcp$/, "MCP"],
];

/** The group of a public path; a new path without one fails the document (and so its check). */
function tagOf(url: string): OperationTag {
  const found = TAG_BY_PATH.find(([pattern]) => pattern.test(url));
  if (!found) throw new Error(`no OpenAPI tag for ${url}: add it to TAG_BY_PATH`);
  return found[1];
}

type OutboundWebhooks = Record<string, Record<string, { tags?: string[] }>>;

/** The document's tag list, and the outbound lead.created under Webhooks with the subscriptions. */
function withTags<Document extends { tags?: unknown; webhooks?: OutboundWebhooks }>(
  document: Document,
): Document {
  document.tags = OPERATION_TAGS.map((tag) => ({ ...tag }));
  for (const operations of Object.values(document.webhooks ?? {})) {
    for (const operation of Object.values(operations)) operation.tags = ["Webhooks"];
  }
  return document;
}

/** Scope, limits and body ceiling of an operation, stated in its description. */
function describeOperation(route: RouteOptions, schema: FastifySchema & { description?: string }): string {
  const config = route.config ?? {};
  const lines: string[] = [];
  if (schema.description) lines.push(schema.description);
  if (config.scope)
    lines.push(`Required scope: \`${config.scope}\` (a key declaring no scopes is unrestricted).`);
  if (config.orgRateLimit) {
    lines.push(
      `Rate limit: ${config.orgRateLimit.limit} requests per ${config.orgRateLimit.windowSeconds} s per organization (bucket \`${config.orgRateLimit.bucket}\`); over it, 429 with \`Retry-After: ${config.orgRateLimit.windowSeconds}\`. The pre-auth per-IP limit (60 a minute by default, across every endpoint together) applies first.`,
    );
  }
  const method = String(route.method).toUpperCase();
  if (method !== "GET" && method !== "DELETE") {
    lines.push(`Body limit: ${route.bodyLimit ?? 1_048_576} bytes.`);
  }
  return lines.join("\n\n");
}

/**
 * Registers @fastify/swagger: the document is generated from the same route schemas that
 * validate requests. Only the public /api/v1 routes appear; the operator API and health checks
 * are hidden.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  extras: {
    webhooks?: Record<string, unknown>;
    publicBaseUrl: string;
    /** The JSON-RPC message the MCP route takes (its route validates nothing itself). */
    mcpRequestBody?: unknown;
  },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Porchlight developer API",
        version: API_VERSION,
        description: DESCRIPTION,
        license: { name: "Apache-2.0", identifier: "Apache-2.0" },
      },
      servers: [{ url: extras.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description:
              "Organization API key (`ak_…`). Send one Authorization header: a request with two counts as having none (401).",
          },
        },
      },
      security: [{ bearerAuth: [] }],
      ...(extras.webhooks ? { webhooks: extras.webhooks } : {}),
    } as never,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
    transformObject: (documentObject) =>
      withTags(
        withRetryAfterHeaders(
          (documentObject as { openapiObject: { paths?: OpenApiPaths; webhooks?: OutboundWebhooks } })
            .openapiObject,
        ),
      ),
    transform: ({ schema, url, route }) => {
      const isPublic = url.startsWith("/api/v1/") || url === "/api/mcp";
      if (!isPublic || url === "/api/v1/openapi.json") return { schema: { ...schema, hide: true }, url };
      const transformed = {
        ...schema,
        tags: [tagOf(url)],
        description: describeOperation(route, schema),
        // The MCP route answers JSON-RPC errors, not the REST error body: keep its own declarations.
        response:
          url === "/api/mcp"
            ? schema.response
            : withStandardErrors(route, schema.response as ResponseSchemas | undefined),
      } as FastifySchema & {
        "x-required-scope"?: string;
      };
      // The tool-protocol SDK validates the JSON-RPC message itself; the document still shows it.
      if (url === "/api/mcp" && extras.mcpRequestBody) transformed.body = extras.mcpRequestBody;
      if (route.config?.scope) transformed["x-required-scope"] = route.config.scope;
      return { schema: transformed, url };
    },
  });

  app.get("/api/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
