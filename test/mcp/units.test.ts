import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@fastify/type-provider-typebox";
import { AppError, ipRateLimited } from "../../src/errors.ts";
import { toToolInputSchema } from "../../src/mcp/input-schema.ts";
import { fromAppError } from "../../src/mcp/json-rpc.ts";
import { DATA_NOTICE, retryAfterSeconds, toToolResult } from "../../src/mcp/results.ts";
import { importJobsRequest, sendEventRequest, toQuery } from "../../src/mcp/tools.ts";

describe("MCP tool rules", () => {
  it("send_event sends dry_run true unless the caller set it, and never rewrites an explicit value", () => {
    const cases: [unknown, unknown][] = [
      [undefined, true],
      [true, true],
      [false, false],
      [null, null],
      ["false", "false"],
    ];
    for (const [given, sent] of cases) {
      const args =
        given === undefined
          ? { event_type: "job.completed" }
          : { event_type: "job.completed", dry_run: given };
      const request = sendEventRequest(args);
      assert.equal((request.body as { dry_run: unknown }).dry_run, sent, String(given));
      assert.equal(request.path, "/api/v1/events");
    }
  });

  it("import_jobs moves idempotency_key into the Idempotency-Key header and out of the body", () => {
    assert.deepEqual(importJobsRequest({ source: "jobs", rows: [], idempotency_key: "k-1" }), {
      method: "POST",
      path: "/api/v1/import/jobs",
      body: { source: "jobs", rows: [] },
      headers: { "idempotency-key": "k-1" },
    });
    assert.deepEqual(importJobsRequest({ source: "jobs", rows: [] }).headers, undefined);
  });

  it("query arguments are sent as text, non-strings as their JSON for the endpoint to judge", () => {
    assert.deepEqual(toQuery({ since: "2026-01-01T00:00:00Z", id: 7, skip: undefined }), {
      since: "2026-01-01T00:00:00Z",
      id: "7",
    });
    // An array is the parameter repeated, as in a URL: the endpoint refuses it as a direct call's.
    assert.deepEqual(toQuery({ id: ["a", "b"] }), { id: ["a", "b"] });
  });

  it("publishes a TypeBox schema as standalone JSON Schema", () => {
    const schema = toToolInputSchema(
      Type.Object(
        { a: Type.String(), b: Type.Optional(Type.Object({ c: Type.Number() }, { $id: "Inner" })) },
        { $id: "Outer" },
      ),
    );
    assert.deepEqual(schema, {
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "object", properties: { c: { type: "number" } }, required: ["c"] },
      },
      required: ["a"],
    });
    assert.throws(() => toToolInputSchema(Type.String()), /JSON object/);
  });

  it("reads Retry-After seconds, ignoring anything else", () => {
    assert.equal(retryAfterSeconds({ "retry-after": "60" }), 60);
    assert.equal(retryAfterSeconds({ "retry-after": ["5"] }), 5);
    assert.equal(retryAfterSeconds({ "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }), undefined);
    assert.equal(retryAfterSeconds({}), undefined);
  });

  it("turns an endpoint answer into a tool result with the notice, the JSON and, on errors, the status", () => {
    const request = { method: "POST" as const, path: "/api/v1/customers/webhook" };
    const ok = toToolResult(request, { status: 200, headers: {}, body: { added: 1, total: 1 } });
    assert.equal(ok.isError, undefined);
    assert.deepEqual(ok.structuredContent, { added: 1, total: 1 });
    assert.deepEqual(ok.content, [
      { type: "text", text: `POST /api/v1/customers/webhook answered 200.\n${DATA_NOTICE}` },
      { type: "text", text: '{"added":1,"total":1}' },
    ]);

    const limited = toToolResult(request, {
      status: 429,
      headers: { "retry-after": "60" },
      body: { error: "Too many requests" },
    });
    assert.equal(limited.isError, true);
    assert.deepEqual(limited.structuredContent, {
      status: 429,
      body: { error: "Too many requests" },
      retry_after_seconds: 60,
    });
    assert.match(
      (limited.content[0] as { text: string }).text,
      /^POST \/api\/v1\/customers\/webhook failed with HTTP 429\. Retry after 60 seconds/,
    );

    const empty = toToolResult(request, { status: 204, headers: {}, body: undefined });
    assert.deepEqual(empty.structuredContent, { status: 204 });
  });

  it("renders the route's own errors as JSON-RPC errors: parse error for bad JSON, -32000 otherwise", () => {
    assert.deepEqual(fromAppError(ipRateLimited(12)), {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "rate_limited",
        data: { status: 429, error: "rate_limited", retry_after_seconds: 12 },
      },
      id: null,
    });
    const parse = fromAppError(new AppError(400, "invalid_json", "request body is not valid JSON"));
    assert.equal(parse.error.code, -32700);
    assert.deepEqual(parse.error.data, { status: 400, error: "invalid_json" });
  });
});
