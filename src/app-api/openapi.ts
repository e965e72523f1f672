import type { FastifyInstance, RouteOptions } from "fastify";
import { API_VERSION } from "../http/openapi.ts";
import { APP_API_PREFIX } from "./auth-settings.ts";

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

interface RouteSchema {
  hide?: boolean;
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
  response?: Record<string, JsonSchema & { description?: string }>;
}

const APP_ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: {
          type: "string",
          description:
            "Machine code, e.g. `unauthorized`, `forbidden`, `not_found`, `invalid_payload`, `csrf_rejected`, `rate_limited`.",
        },
        message: { type: "string", description: "A sentence to show the user." },
        details: { description: "Field errors or other detail, when the code has them." },
      },
    },
  },
};

const ERROR_DESCRIPTIONS: Record<string, string> = {
  "401": "No valid session (sign in).",
  "403":
    "`forbidden`: the session's role may not do this (owners only); `csrf_rejected`: a state-changing request without a same-origin Origin / Sec-Fetch-Site.",
  "404": "Not found, or belongs to another organization.",
  "422": "The body or query is not valid.",
  "429": "Too many requests.",
};

const DESCRIPTION = `The API of Porchlight's contractor app (served at /app/). Not the developer API: it authenticates with the
session cookie set by Better Auth's endpoints under \`${APP_API_PREFIX}/auth/\` (sign-in/email, sign-out, get-session,
request-password-reset, reset-password, list-sessions, revoke-sessions, organization/list, organization/set-active), and
the session's organization decides what every route sees.

State-changing requests (POST, PUT, PATCH, DELETE) must carry an \`Origin\` equal to the service's public origin, or
\`Sec-Fetch-Site: same-origin\`; otherwise 403 \`csrf_rejected\`. Errors are \`{"error": {"code", "message", "details"?}}\`.`;

const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\/\*$/, "/{path}");

function parametersOf(where: "path" | "query", schema: JsonSchema | undefined) {
  if (!schema?.properties) return [];
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (schema.required ?? []).includes(name),
    schema: property,
  }));
}

function operationOf(schema: RouteSchema, method: string) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(schema.response ?? {})) {
    const { description, ...body } = response;
    const isEmpty = status === "204";
    responses[status] = {
      description: description ?? "Success.",
      ...(isEmpty ? {} : { content: { "application/json": { schema: body } } }),
    };
  }
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    responses[status] ??= {
      description,
      content: { "application/json": { schema: { $ref: "#/components/schemas/AppError" } } },
    };
  }
  return {
    operationId: schema.operationId,
    ...(schema.summary ? { summary: schema.summary } : {}),
    ...(schema.description ? { description: schema.description } : {}),
    ...(schema.tags ? { tags: schema.tags } : {}),
    parameters: [...parametersOf("path", schema.params), ...parametersOf("query", schema.querystring)],
    ...(schema.body && method !== "get"
      ? { requestBody: { required: true, content: { "application/json": { schema: schema.body } } } }
      : {}),
    responses,
    security: [{ sessionCookie: [] }],
  };
}

/**
 * The app API's own OpenAPI document, built from the same route schemas that validate requests
 * (the developer API's document at /api/v1/openapi.json never lists these routes). Routes are
 * collected as the app API's scope registers them; hidden ones (Better Auth's bridge) are left out.
 */
export function collectAppApiDocument(app: FastifyInstance, publicBaseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  app.addHook("onRoute", (route: RouteOptions) => {
    const schema = route.schema as RouteSchema | undefined;
    if (!schema || schema.hide || !schema.operationId) return;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toLowerCase());
    for (const method of methods) {
      if (method === "head") continue;
      const path = toOpenApiPath(route.url);
      paths[path] ??= {};
      paths[path][method] = operationOf(schema, method);
    }
  });
  return () => ({
    openapi: "3.1.0",
    info: { title: "Porchlight app API", version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: publicBaseUrl }],
    components: {
      securitySchemes: {
        sessionCookie: { type: "apiKey", in: "cookie", name: "porchlight.session_token" },
      },
      schemas: { AppError: APP_ERROR_SCHEMA },
    },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
  });
}
