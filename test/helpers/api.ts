import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { ADMIN_TOKEN, type TestContext } from "./harness.ts";
import { assertMatchesDocument } from "./openapi-check.ts";

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Raw payload sent as is (for malformed JSON, wrong content types, huge bodies). */
  payload?: string | Buffer;
  headers?: Record<string, string>;
  ip?: string;
  query?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: LightMyRequestResponse["headers"];
  body: any;
  text: string;
}

/** One request through the real HTTP stack (Fastify inject), JSON in and out. */
export async function call(
  ctx: TestContext,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let payload: string | Buffer | undefined = options.payload;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await ctx.app.inject({
    method,
    url,
    headers,
    payload,
    query: options.query,
    remoteAddress: options.ip ?? "127.0.0.1",
  });
  let body: unknown;
  try {
    body = response.body ? JSON.parse(response.body) : undefined;
  } catch {
    body = undefined;
  }
  assertMatchesDocument(ctx.app, method, url, response.statusCode, body, response.headers);
  return { status: response.statusCode, headers: response.headers, body, text: response.body };
}

export const admin = (
  ctx: TestContext,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  body?: unknown,
) => call(ctx, method, `/admin/v1${url}`, { key: ADMIN_TOKEN, body });

export interface TestOrg {
  orgId: string;
  orgName: string;
  /** An unrestricted key of this org. */
  key: string;
}

let orgCounter = 0;

/** A fresh organization with one unrestricted key (and more through issueKey). */
export async function createOrg(ctx: TestContext, options: { billingOwner?: boolean; name?: string } = {}) {
  const name = options.name ?? `Org ${++orgCounter}`;
  const org = await admin(ctx, "POST", "/orgs", { name, billing_owner: options.billingOwner ?? true });
  assert.equal(org.status, 201, org.text);
  const key = await issueKey(ctx, org.body.org_id);
  return { orgId: org.body.org_id as string, orgName: name, key } satisfies TestOrg;
}

export async function issueKey(
  ctx: TestContext,
  orgId: string,
  options: { scopes?: string[]; expires_at?: string; name?: string } = {},
): Promise<string> {
  const created = await admin(ctx, "POST", `/orgs/${orgId}/keys`, options);
  assert.equal(created.status, 201, created.text);
  return created.body.key as string;
}

export async function createAutomation(ctx: TestContext, orgId: string, input: Record<string, unknown>) {
  const created = await admin(ctx, "POST", `/orgs/${orgId}/automations`, input);
  assert.equal(created.status, 201, created.text);
  return created.body as { id: string; name: string; enabled: boolean };
}

export async function recordMailing(
  ctx: TestContext,
  orgId: string,
  pieces: { address: string; recipient_name?: string; mailed_at?: string }[],
  campaignName?: string,
) {
  const created = await admin(ctx, "POST", `/orgs/${orgId}/mailings`, {
    campaign_name: campaignName,
    pieces,
  });
  assert.equal(created.status, 201, created.text);
  return created.body as {
    campaign_id: string;
    pieces: { id: string; address: string; token: string; landing_url: string; mailed_at: string }[];
  };
}
