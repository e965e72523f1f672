import { ErrorCode, McpError, type ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { ConversionRequest, TrackingLeadRequest } from "../attribution/schemas.ts";
import { CustomersRequest } from "../customers/schemas.ts";
import { ImportHeaders, ImportRequest } from "../imports/schemas.ts";
import { PollLeadsQuery } from "../leads/schemas.ts";
import { EventEnvelope } from "../trigger/envelope.ts";
import { SubscribeRequest, UnsubscribeQuery } from "../webhooks/schemas.ts";
import { type ToolInputSchema, toToolInputSchema, withProperties } from "./input-schema.ts";

export type ToolArguments = Record<string, unknown>;

/** The endpoint call a tool makes; the caller's Authorization header is added by the forwarder. */
export interface ForwardRequest {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string | string[]>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ProxyTool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: ToolInputSchema;
  toRequest(args: ToolArguments): ForwardRequest;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
const WRITES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };

const NO_ARGUMENTS: ToolInputSchema = { type: "object", properties: {}, additionalProperties: false };

/**
 * Query strings carry text, as a direct call's URL would: a string as it is, an array as the
 * parameter repeated (`?id=a&id=b`, which the endpoint refuses as a direct call's), anything else
 * as its JSON text. The endpoint judges it.
 */
export function toQuery(args: ToolArguments): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    query[name] = Array.isArray(value) ? value.map(queryText) : queryText(value);
  }
  return query;
}

const queryText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

const get = (path: string) => (args: ToolArguments) => ({
  method: "GET" as const,
  path,
  query: toQuery(args),
});
const post = (path: string) => (args: ToolArguments) => ({ method: "POST" as const, path, body: args });

/**
 * `send_event` mails only on an explicit `dry_run: false`: an agent that leaves the flag out gets
 * the outcomes a live call would have, and nothing is written.
 */
export function sendEventRequest(args: ToolArguments): ForwardRequest {
  const body = args.dry_run === undefined ? { ...args, dry_run: true } : args;
  return { method: "POST", path: "/api/v1/events", body };
}

/**
 * `import_jobs` takes the endpoint's Idempotency-Key header as the `idempotency_key` argument,
 * sent as its UTF-8 bytes like any HTTP client's (the endpoint reads them back as UTF-8). A
 * header is text: any other argument type is invalid params, never coerced ("5" is not 5).
 */
export function importJobsRequest(args: ToolArguments): ForwardRequest {
  const { idempotency_key: idempotencyKey, ...body } = args;
  const request: ForwardRequest = { method: "POST", path: "/api/v1/import/jobs", body };
  if (idempotencyKey === undefined) return request;
  if (typeof idempotencyKey !== "string") {
    throw new McpError(ErrorCode.InvalidParams, "idempotency_key: must be a string");
  }
  request.headers = { "idempotency-key": Buffer.from(idempotencyKey, "utf8").toString("latin1") };
  return request;
}

const sendEventSchema = withProperties(toToolInputSchema(EventEnvelope), {
  dry_run: {
    type: "boolean",
    default: true,
    description:
      "Defaults to true through this tool: the outcomes are evaluated and nothing is written or mailed. Only an explicit false mails postcards.",
  },
});

const idempotencyKeyHeader = toToolInputSchema(ImportHeaders).properties?.["idempotency-key"] ?? {};
const importJobsSchema = withProperties(toToolInputSchema(ImportRequest), {
  idempotency_key: {
    ...idempotencyKeyHeader,
    description:
      `Sent as the Idempotency-Key header. ${(idempotencyKeyHeader as { description?: string }).description ?? ""}`.trim(),
  },
});

/** The ten tools of the spec's MCP table, in its order. The legacy trigger is deliberately absent. */
export const PROXY_TOOLS: readonly ProxyTool[] = [
  {
    name: "whoami",
    title: "Identify the organization",
    description:
      "GET /api/v1/me: the organization the key belongs to (org_id, org_name). Scope webhooks:inbound.",
    annotations: READ_ONLY,
    inputSchema: NO_ARGUMENTS,
    toRequest: get("/api/v1/me"),
  },
  {
    name: "list_automations",
    title: "List automations",
    description:
      "GET /api/v1/automation/list: the organization's automations (id, name, enabled). Scope webhooks:inbound.",
    annotations: READ_ONLY,
    inputSchema: NO_ARGUMENTS,
    toRequest: get("/api/v1/automation/list"),
  },
  {
    name: "send_event",
    title: "Send an event",
    description:
      "POST /api/v1/events: match a job, deal or contact event against the automations bound to custom.<event_type>. A dry run (the default here) returns the outcomes a live call would have; dry_run false enqueues postcard campaigns. Replays with the same dedup_id are absorbed. Scope events:write.",
    annotations: DESTRUCTIVE,
    inputSchema: sendEventSchema,
    toRequest: sendEventRequest,
  },
  {
    name: "subscribe_leads",
    title: "Subscribe to new leads",
    description:
      "POST /api/v1/webhooks/subscribe: deliver lead.created to a public https URL. The signing secret is returned once, at creation; re-subscribing the same URL returns the existing id with signing_secret null. Scope webhooks:inbound.",
    annotations: { ...WRITES, idempotentHint: true },
    inputSchema: toToolInputSchema(SubscribeRequest),
    toRequest: post("/api/v1/webhooks/subscribe"),
  },
  {
    name: "unsubscribe_leads",
    title: "Unsubscribe from new leads",
    description:
      "DELETE /api/v1/webhooks/subscribe: remove a subscription of the organization, named by id or target_url. Scope webhooks:inbound.",
    annotations: { ...DESTRUCTIVE, idempotentHint: true },
    inputSchema: toToolInputSchema(UnsubscribeQuery),
    toRequest: (args) => ({ method: "DELETE", path: "/api/v1/webhooks/subscribe", query: toQuery(args) }),
  },
  {
    name: "list_recent_leads",
    title: "List recent leads",
    description:
      "GET /api/v1/integrations/leads: up to 50 landing-page leads, newest first, optionally only those created after `since`. De-duplicate by id. Scope webhooks:inbound.",
    annotations: READ_ONLY,
    inputSchema: toToolInputSchema(PollLeadsQuery),
    toRequest: get("/api/v1/integrations/leads"),
  },
  {
    name: "report_conversion",
    title: "Report a won deal",
    description:
      "POST /api/v1/conversions: attribute a won deal to the campaign that mailed its address (geo-first, last-touch, 180 days). Idempotent on deal_id. Scope webhooks:inbound.",
    annotations: { ...WRITES, idempotentHint: true },
    inputSchema: toToolInputSchema(ConversionRequest),
    toRequest: post("/api/v1/conversions"),
  },
  {
    name: "sync_lead",
    title: "Sync a lead captured elsewhere",
    description:
      "POST /api/v1/tracking/lead: record a CRM lead as an indirect lead of the campaign that mailed its address. Idempotent on crm_record_id, else email or phone. Scope webhooks:inbound.",
    annotations: { ...WRITES, idempotentHint: true },
    inputSchema: toToolInputSchema(TrackingLeadRequest),
    toRequest: post("/api/v1/tracking/lead"),
  },
  {
    name: "import_jobs",
    title: "Import past jobs",
    description:
      "POST /api/v1/import/jobs: stage 1 to 500 past jobs or customers for a later reactivation campaign; every address is geocoded and nothing is mailed. At most 10 batches a day. Scope import:write.",
    annotations: DESTRUCTIVE,
    inputSchema: importJobsSchema,
    toRequest: importJobsRequest,
  },
  {
    name: "suppress_customer",
    title: "Suppress existing customers",
    description:
      "POST /api/v1/customers/webhook: register existing customers' addresses (one address, or addresses: up to 1000) so they are never mailed. Cannot be reversed through the API. Scope webhooks:inbound.",
    annotations: DESTRUCTIVE,
    inputSchema: toToolInputSchema(CustomersRequest),
    toRequest: post("/api/v1/customers/webhook"),
  },
];
