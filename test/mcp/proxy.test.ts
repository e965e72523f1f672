import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { fixedClock } from "../../src/clock.ts";
import { DATA_NOTICE } from "../../src/mcp/results.ts";
import { MCP_KEYLESS_BODY_LIMIT } from "../../src/mcp/route.ts";
import { admin, call, createAutomation, createOrg, issueKey } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { callTool, connectMcp, endpointJson, listenForMcp, nextClientIp, texts } from "./helpers.ts";

const TOOL_NAMES = [
  "whoami",
  "list_automations",
  "send_event",
  "subscribe_leads",
  "unsubscribe_leads",
  "list_recent_leads",
  "report_conversion",
  "sync_lead",
  "import_jobs",
  "suppress_customer",
];
const IP_LIMIT = 30;
const ADDRESS = "12 Oak Lane, Austin, TX 78701";

describe(`MCP proxy at /api/mcp (${databaseLabel})`, () => {
  let ctx: TestContext;
  let url: URL;
  // 15 s into the minute: the per-IP window ends 45 s later.
  const clock = fixedClock("2026-11-22T12:00:15Z");

  before(async () => {
    ctx = await createTestContext({ clock, config: { trustProxy: true, ipRateLimitPerMinute: IP_LIMIT } });
    url = await listenForMcp(ctx);
  });
  after(async () => ctx.close());

  it("lets a client without a key initialize and list the ten tools, with annotations and the endpoints' schemas", async () => {
    const mcp = await connectMcp(url);
    try {
      // Stateless, no stream: the server never announces tool list changes.
      assert.deepEqual(mcp.client.getServerCapabilities()?.tools, { listChanged: false });
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        TOOL_NAMES,
      );
      const unknown = await mcp.client
        .callTool({ name: "nope", arguments: {} })
        .catch((error: Error) => error);
      assert.ok(unknown instanceof Error);
      // One "MCP error -32602:" prefix, the client's own.
      assert.equal(unknown.message, "MCP error -32602: Unknown tool: nope");
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      for (const name of ["whoami", "list_automations", "list_recent_leads"]) {
        assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, name);
      }
      for (const name of ["send_event", "import_jobs", "suppress_customer", "unsubscribe_leads"]) {
        assert.equal(byName.get(name)?.annotations?.destructiveHint, true, name);
        assert.equal(byName.get(name)?.annotations?.readOnlyHint, false, name);
      }
      const sendEvent = byName.get("send_event")!.inputSchema as any;
      assert.deepEqual(sendEvent.required, ["event_type", "object_type", "dedup_id", "record"]);
      assert.equal(sendEvent.properties.dry_run.default, true);
      assert.equal(sendEvent.properties.event_type.pattern, "^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$");
      const importJobs = byName.get("import_jobs")!.inputSchema as any;
      assert.equal(importJobs.properties.rows.maxItems, 500);
      assert.equal(importJobs.properties.idempotency_key.type, "string");
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, "object", tool.name);
        assert.ok(!JSON.stringify(tool.inputSchema).includes('"$id"'), `${tool.name} schema stands alone`);
        assert.ok(!JSON.stringify(tool.inputSchema).includes('"$ref"'), `${tool.name} schema stands alone`);
      }
      assert.ok(!tools.some((tool) => tool.name.includes("trigger")), "the legacy trigger is not exposed");
    } finally {
      await mcp.close();
    }
  });

  it("lists the same tools to a client with a key", async () => {
    const org = await createOrg(ctx);
    const mcp = await connectMcp(url, { key: org.key });
    try {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        TOOL_NAMES,
      );
    } finally {
      await mcp.close();
    }
  });

  it("whoami returns the key's organization as text and structuredContent, with the data notice", async () => {
    const org = await createOrg(ctx, { name: "Acme Roofing" });
    const mcp = await connectMcp(url, { key: org.key });
    try {
      const result = await callTool(mcp.client, "whoami");
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent, { org_id: org.orgId, org_name: "Acme Roofing" });
      assert.deepEqual(endpointJson(result), { org_id: org.orgId, org_name: "Acme Roofing" });
      assert.match(texts(result)[0]!, /^GET \/api\/v1\/me answered 200\./);
      assert.ok(texts(result)[0]!.includes(DATA_NOTICE));
    } finally {
      await mcp.close();
    }
  });

  it("list_automations returns the organization's automations and no other organization's", async () => {
    const org = await createOrg(ctx);
    const other = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, { name: "Roof follow-up" });
    await createAutomation(ctx, other.orgId, { name: "Not yours" });
    const mcp = await connectMcp(url, { key: org.key });
    try {
      const result = await callTool(mcp.client, "list_automations");
      assert.deepEqual(result.structuredContent, {
        automations: [{ id: automation.id, name: "Roof follow-up", enabled: automation.enabled }],
      });
      assert.ok(texts(result)[0]!.includes(DATA_NOTICE));
    } finally {
      await mcp.close();
    }
  });

  it("without a key every tool call carries its endpoint's 401 as a tool error", async () => {
    const mcp = await connectMcp(url);
    try {
      for (const name of TOOL_NAMES) {
        const result = await callTool(mcp.client, name);
        assert.equal(result.isError, true, name);
        const expected = name === "send_event" ? "unauthorized" : "Unauthorized";
        assert.deepEqual(result.structuredContent, { status: 401, body: { error: expected } }, name);
        assert.deepEqual(endpointJson(result), { error: expected }, name);
        assert.match(texts(result)[0]!, /failed with HTTP 401\./, name);
        assert.ok(texts(result)[0]!.includes(DATA_NOTICE), name);
      }
    } finally {
      await mcp.close();
    }
  });

  it("a key lacking the endpoint's scope gets that endpoint's 403 with status and body", async () => {
    const org = await createOrg(ctx);
    const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
    const mcp = await connectMcp(url, { key: importOnly });
    try {
      const whoami = await callTool(mcp.client, "whoami");
      assert.equal(whoami.isError, true);
      assert.deepEqual(whoami.structuredContent, { status: 403, body: { error: "Unauthorized" } });
      assert.match(texts(whoami)[0]!, /^GET \/api\/v1\/me failed with HTTP 403\./);

      const sendEvent = await callTool(mcp.client, "send_event", eventArguments("dedup-scope"));
      assert.deepEqual(sendEvent.structuredContent, { status: 403, body: { error: "unauthorized" } });
    } finally {
      await mcp.close();
    }
  });

  it("send_event is a dry run unless dry_run is explicitly false", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, {
      name: "Job completed",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    const mcp = await connectMcp(url, { key: org.key });
    try {
      const dryRun = await callTool(mcp.client, "send_event", eventArguments("dedup-1"));
      assert.equal(dryRun.isError, undefined, texts(dryRun).join("\n"));
      const queued = { automation_id: automation.id, name: "Job completed", matched: true, reason: "queued" };
      assert.deepEqual(dryRun.structuredContent, {
        received: true,
        duplicate: false,
        dry_run: true,
        matched_automations: 1,
        outcomes: [queued],
      });

      // The dry run wrote nothing: the same dedup_id still queues when sent live.
      const live = await callTool(mcp.client, "send_event", { ...eventArguments("dedup-1"), dry_run: false });
      assert.deepEqual(live.structuredContent, {
        received: true,
        duplicate: false,
        matched_automations: 1,
        outcomes: [queued],
      });

      const replay = await callTool(mcp.client, "send_event", eventArguments("dedup-1"));
      assert.equal((replay.structuredContent as any).dry_run, true);
      assert.equal((replay.structuredContent as any).outcomes[0].reason, "duplicate");
    } finally {
      await mcp.close();
    }
  });

  it("carries an endpoint's 429 with the seconds to wait from Retry-After", async () => {
    const org = await createOrg(ctx);
    const mcp = await connectMcp(url, { key: org.key });
    try {
      // Use up the organization's 120 events of this minute: send_event gets the endpoint's 429.
      while ((await ctx.limiter.hit("events", org.orgId, 120, 60)).count < 120);
      const result = await callTool(mcp.client, "send_event", eventArguments("dedup-over-limit"));
      assert.equal(result.isError, true);
      const structured = result.structuredContent as any;
      assert.equal(structured.status, 429);
      assert.equal(structured.body.error, "rate_limited");
      assert.equal(structured.retry_after_seconds, 60);
      assert.match(
        texts(result)[0]!,
        /^POST \/api\/v1\/events failed with HTTP 429\. Retry after 60 seconds/,
      );
      assert.ok(texts(result)[0]!.includes(DATA_NOTICE));
    } finally {
      await mcp.close();
    }
  });

  it("counts a tool call once against the per-IP limit, like a direct call", async () => {
    const org = await createOrg(ctx);
    const mcp = await connectMcp(url, { key: org.key });
    try {
      await mcp.idle();
      // Leave exactly one request in this minute: the tool call uses it, its forwarded call is not counted again.
      while ((await ctx.limiter.hit("ip", mcp.ip, IP_LIMIT, 60)).count < IP_LIMIT - 1);
      const result = await callTool(mcp.client, "whoami");
      assert.equal(result.isError, undefined, texts(result).join("\n"));
      assert.deepEqual(result.structuredContent, { org_id: org.orgId, org_name: org.orgName });
      // The next request of that IP is over the limit at the route itself.
      await assert.rejects(callTool(mcp.client, "whoami"), (error: unknown) => {
        assert.ok(error instanceof StreamableHTTPError);
        assert.equal(error.code, 429);
        return true;
      });
    } finally {
      await mcp.close();
    }
  });

  it("serves clients whose Accept header lists only JSON, a wildcard or nothing, and bodies sent without a JSON content type", async () => {
    const org = await createOrg(ctx);
    const cases: [string | undefined, string | undefined][] = [
      [undefined, "application/json"],
      ["application/json", "application/json"],
      ["*/*", "application/json"],
      ["*/*", "text/plain;charset=UTF-8"],
      [undefined, undefined],
    ];
    for (const [accept, contentType] of cases) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${org.key}`,
        "x-forwarded-for": nextClientIp(),
      };
      if (contentType) headers["content-type"] = contentType;
      if (accept) headers.accept = accept;
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "whoami", arguments: {} },
        }),
      });
      assert.equal(response.status, 200, `${accept} ${contentType}: ${response.status}`);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      const body = (await response.json()) as any;
      assert.equal(body.id, 7);
      assert.deepEqual(body.result.structuredContent, { org_id: org.orgId, org_name: org.orgName });
    }
  });

  it("carries the kill switch's 503 with the seconds to wait from Retry-After", async () => {
    const org = await createOrg(ctx);
    const mcp = await connectMcp(url, { key: org.key });
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    try {
      const result = await callTool(mcp.client, "send_event", eventArguments("dedup-paused"));
      assert.equal(result.isError, true);
      const structured = result.structuredContent as { status: number; body: { error: string } };
      assert.equal(structured.status, 503);
      assert.equal(structured.body.error, "automations_disabled");
      assert.equal((result.structuredContent as any).retry_after_seconds, 300);
      assert.match(texts(result)[0]!, /failed with HTTP 503\. Retry after 300 seconds/);
    } finally {
      assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: false })).status, 200);
      await mcp.close();
    }
  });

  it("answers its own pre-auth per-IP throttle with HTTP 429, Retry-After and a JSON-RPC error -32000", async () => {
    const ip = nextClientIp();
    for (let i = 0; i < IP_LIMIT; i++) await call(ctx, "GET", "/api/v1/me", { ip });
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-forwarded-for": ip,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "45");
    assert.deepEqual(await response.json(), {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "rate_limited",
        data: { status: 429, error: "rate_limited", retry_after_seconds: 45 },
      },
      id: null,
    });

    await assert.rejects(connectMcp(url, { ip }), (error: unknown) => {
      assert.ok(error instanceof StreamableHTTPError);
      assert.equal(error.code, 429);
      assert.match(error.message, /-32000/);
      return true;
    });
  });

  it("answers a call to a tool it does not publish (such as the legacy trigger) with a JSON-RPC error", async () => {
    const org = await createOrg(ctx);
    const mcp = await connectMcp(url, { key: org.key });
    try {
      await assert.rejects(callTool(mcp.client, "trigger_automation", { id: "x" }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, ErrorCode.InvalidParams);
        return true;
      });
    } finally {
      await mcp.close();
    }
  });

  it("answers every method but POST with 405, Allow: POST and a JSON-RPC error", async () => {
    for (const method of ["GET", "DELETE", "PUT", "PATCH", "OPTIONS"]) {
      const response = await fetch(url, { method, headers: { "x-forwarded-for": nextClientIp() } });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get("allow"), "POST");
      assert.deepEqual(await response.json(), {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed." },
        id: null,
      });
    }
  });

  it("answers malformed JSON with HTTP 400 and a JSON-RPC parse error", async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": nextClientIp() },
      body: '{"jsonrpc": "2.0", "method": ',
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as any;
    assert.equal(body.error.code, -32700);
    assert.equal(body.id, null);
    // An empty body is no JSON either.
    const empty = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": nextClientIp() },
      body: "",
    });
    assert.equal(empty.status, 400);
    assert.equal(((await empty.json()) as any).error.code, -32700);
  });

  it("answers a call refused before the protocol ran (a NUL in its arguments) to the call's own id", async () => {
    const org = await createOrg(ctx);
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${org.key}`,
        "x-forwarded-for": nextClientIp(),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "call-7",
        method: "tools/call",
        params: { name: "whoami", arguments: { note: "a\u0000b" } },
      }),
    });
    const answer = (await response.json()) as any;
    assert.equal(answer.id, "call-7", JSON.stringify(answer));
    assert.match(answer.error.message, /NUL/);
  });

  it("reads at most 64 KiB from a request without a valid key, refused as a JSON-RPC error before it is parsed", async () => {
    // A megabyte of tiny keys cost a third of a second of the event loop to parse, before any key was asked for.
    const manyKeys = `{${Array.from({ length: 12_000 }, (_, index) => `"k${index}":1`).join(",")}}`;
    assert.ok(manyKeys.length > MCP_KEYLESS_BODY_LIMIT);
    for (const authorization of [undefined, "Bearer ak_not_a_real_key"]) {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "x-forwarded-for": nextClientIp(),
      };
      if (authorization) headers.authorization = authorization;
      const declared = await fetch(url, { method: "POST", headers, body: manyKeys });
      assert.equal(declared.status, 413, `declared length, ${authorization ?? "no key"}`);
      const answer = (await declared.json()) as any;
      assert.equal(answer.error.data.error, "payload_too_large");
      assert.match(answer.error.message, /without a valid API key may send at most 65536 bytes/);
      // Sent in chunks, without a length: cut off once past the limit.
      const chunked = await fetch(url, {
        method: "POST",
        headers,
        body: new Blob([manyKeys]).stream(),
        duplex: "half",
      } as RequestInit);
      assert.equal(chunked.status, 413, `chunked, ${authorization ?? "no key"}`);
    }
    // Within the limit, a client without a key is served as before.
    const list = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": nextClientIp() },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { padding: "x".repeat(60_000) } },
      }),
    });
    assert.equal(list.status, 200);
    assert.equal(((await list.json()) as any).result.tools.length, TOOL_NAMES.length);
  });

  it("reads a large body from a valid key, declared or chunked, up to the route's own limit", async () => {
    const org = await createOrg(ctx);
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: "big",
      method: "tools/call",
      params: {
        name: "send_event",
        arguments: {
          event_type: "job.completed",
          object_type: "job",
          dedup_id: "mcp-big-body",
          // 80 custom fields of 1,900 characters: 150 kB, within the events body's 256 KB.
          record: {
            id: "rec-big",
            properties: Object.fromEntries(
              Array.from({ length: 80 }, (_, index) => [`cf_note_${index}`, "n".repeat(1900)]),
            ),
          },
        },
      },
    });
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${org.key}`,
      "x-forwarded-for": nextClientIp(),
    };
    for (const body of [call, new Blob([call]).stream()]) {
      const response = await fetch(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
      assert.equal(response.status, 200);
      const answer = (await response.json()) as any;
      assert.equal(answer.id, "big");
      assert.notEqual(answer.result.isError, true, JSON.stringify(answer).slice(0, 400));
      assert.equal(answer.result.structuredContent.received, true);
    }
  });

  it("answers valid JSON that is no JSON-RPC message with HTTP 400 and -32600 (invalid request)", async () => {
    for (const body of [
      '{"jsonrpc":"2.0","id":1}',
      "null",
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      "42",
    ]) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": nextClientIp() },
        body,
      });
      assert.equal(response.status, 400, body);
      const answer = (await response.json()) as any;
      assert.equal(answer.error.code, -32600, body);
      assert.equal(answer.id, null);
    }
  });

  it("refuses every batch, even of one (one per-IP count must not buy many tool calls)", async () => {
    const org = await createOrg(ctx);
    const post = (body: unknown) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${org.key}`,
          "x-forwarded-for": nextClientIp(),
        },
        body: JSON.stringify(body),
      });
    const whoami = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "whoami", arguments: {} },
    });
    // A batch of one used to be answered with a bare object, which no batch client can read.
    for (const batch of [[whoami(1), whoami(2)], [], [whoami(3)]]) {
      const refused = await post(batch);
      assert.equal(refused.status, 400);
      const body = (await refused.json()) as any;
      assert.equal(body.error.code, -32600);
      assert.equal(body.id, null);
    }
    const single = await post(whoami(4));
    assert.equal(single.status, 200);
    assert.equal(single.headers.get("x-content-type-options"), "nosniff");
    const answer = (await single.json()) as any;
    assert.equal(answer.id, 4);
    assert.equal(answer.result.structuredContent.org_id, org.orgId);
    const badParams: [unknown, RegExp][] = [
      ...["x", 5, null, ["a"]].map((args): [unknown, RegExp] => [
        { name: "whoami", arguments: args },
        /^Invalid params: params\.arguments: /,
      ]),
      [{ name: 5 }, /^Invalid params: params\.name: /],
    ];
    for (const [params, message] of badParams) {
      const bad = await post({ ...whoami(5), params });
      assert.equal(bad.status, 200);
      const body = (await bad.json()) as any;
      assert.equal(body.id, 5);
      assert.equal(body.error.code, -32602, JSON.stringify(params));
      assert.match(body.error.message, message);
    }
    // An initialize without what the protocol requires is invalid params too, not an internal error.
    const badInitialize = await post({ jsonrpc: "2.0", id: 7, method: "initialize", params: {} });
    const badInitializeBody = (await badInitialize.json()) as any;
    assert.equal(badInitializeBody.id, 7);
    assert.equal(badInitializeBody.error.code, -32602);
    assert.match(badInitializeBody.error.message, /^Invalid params: params\.protocolVersion: /);
    // Nested 5000 deep, written by hand: the forwarder's JSON.stringify overflowed the stack (-32603).
    const deepArguments = `${'{"a":'.repeat(5000)}{}${"}".repeat(5000)}`;
    const deep = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${org.key}`,
        "x-forwarded-for": nextClientIp(),
      },
      body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"send_event","arguments":${deepArguments}}}`,
    });
    const deepBody = (await deep.json()) as any;
    assert.equal(deepBody.id, 6);
    assert.equal(deepBody.error.code, -32602);
    assert.equal(deepBody.error.message, "Invalid params: arguments: nested more than 64 levels deep");
  });

  it("refuses a browser page of another origin (DNS rebinding), serves its own origin and non-browsers", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const post = (origin?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-forwarded-for": nextClientIp(),
          ...(origin ? { origin } : {}),
        },
        body: JSON.stringify(initialize),
      });
    const foreign = await post("http://rebound.example:3000");
    assert.equal(foreign.status, 403);
    const body = (await foreign.json()) as any;
    assert.equal(body.error.code, -32000);
    assert.equal(body.error.data.error, "origin_not_allowed");
    assert.equal((await post(new URL(ctx.config.publicBaseUrl).origin)).status, 200);
    assert.equal((await post()).status, 200);
  });

  describe("happy paths of the endpoint tools", () => {
    it("subscribe_leads then unsubscribe_leads", async () => {
      const org = await createOrg(ctx);
      const mcp = await connectMcp(url, { key: org.key });
      try {
        const targetUrl = "https://93.184.215.14/hooks/porchlight";
        const subscribed = await callTool(mcp.client, "subscribe_leads", { target_url: targetUrl });
        assert.equal(subscribed.isError, undefined, texts(subscribed).join("\n"));
        const subscription = subscribed.structuredContent as { id: string; signing_secret: string };
        assert.equal(typeof subscription.signing_secret, "string");

        // An id sent twice is the endpoint's 422, as in a direct call with ?id=a&id=b.
        const twice = await callTool(mcp.client, "unsubscribe_leads", {
          id: [subscription.id, subscription.id],
        });
        assert.equal(twice.isError, true);
        assert.equal((twice.structuredContent as { status: number }).status, 422, texts(twice).join("\n"));
        const removed = await callTool(mcp.client, "unsubscribe_leads", { id: subscription.id });
        assert.equal(removed.isError, undefined, texts(removed).join("\n"));
        assert.deepEqual(removed.structuredContent, {
          id: subscription.id,
          target_url: targetUrl,
          event: "lead.created",
          deleted: true,
        });
      } finally {
        await mcp.close();
      }
    });

    it("list_recent_leads returns the sample lead to an organization without leads", async () => {
      const org = await createOrg(ctx);
      const mcp = await connectMcp(url, { key: org.key });
      try {
        const result = await callTool(mcp.client, "list_recent_leads", { since: "2026-01-01T00:00:00Z" });
        assert.equal(result.isError, undefined, texts(result).join("\n"));
        const { leads } = result.structuredContent as { leads: { test?: boolean }[] };
        assert.equal(leads.length, 1);
        assert.equal(leads[0]!.test, true);
      } finally {
        await mcp.close();
      }
    });

    it("report_conversion and sync_lead answer with the endpoints' results", async () => {
      const org = await createOrg(ctx);
      const mcp = await connectMcp(url, { key: org.key });
      try {
        const conversion = await callTool(mcp.client, "report_conversion", {
          address: ADDRESS,
          deal_id: "D-1",
          deal_amount: "1200",
        });
        assert.equal(conversion.isError, undefined, texts(conversion).join("\n"));
        assert.deepEqual(conversion.structuredContent, { matched: false });

        const lead = await callTool(mcp.client, "sync_lead", { address: ADDRESS, crm_record_id: "C-1" });
        assert.equal(lead.isError, undefined, texts(lead).join("\n"));
        assert.deepEqual(lead.structuredContent, { matched: false });
      } finally {
        await mcp.close();
      }
    });

    it("import_jobs passes idempotency_key as the Idempotency-Key header", async () => {
      const org = await createOrg(ctx);
      const mcp = await connectMcp(url, { key: org.key });
      try {
        const args = { source: "jobs", rows: [{ address: ADDRESS }, { customer_name: "No address" }] };
        const first = await callTool(mcp.client, "import_jobs", { ...args, idempotency_key: "mcp-batch-1" });
        assert.equal(first.isError, undefined, texts(first).join("\n"));
        assert.match(texts(first)[0]!, /^POST \/api\/v1\/import\/jobs answered 201\./);
        const staged = first.structuredContent as { import_id: string; skipped_no_address: number };
        assert.equal(staged.skipped_no_address, 1);

        const replay = await callTool(mcp.client, "import_jobs", { ...args, idempotency_key: "mcp-batch-1" });
        assert.match(texts(replay)[0]!, /^POST \/api\/v1\/import\/jobs answered 200\./);
        assert.deepEqual(replay.structuredContent, first.structuredContent);

        // Non-ASCII keys count in characters like a direct call's UTF-8 header; 255 "é" fit.
        const accented = await callTool(mcp.client, "import_jobs", {
          ...args,
          idempotency_key: "é".repeat(255),
        });
        assert.equal(accented.isError, undefined, texts(accented).join("\n"));
        const controlCharacter = await callTool(mcp.client, "import_jobs", {
          ...args,
          idempotency_key: "a\r\nb",
        });
        assert.equal(controlCharacter.isError, true);
        assert.match(texts(controlCharacter)[0]!, /HTTP 422/);
        await assert.rejects(
          callTool(mcp.client, "import_jobs", { ...args, idempotency_key: 5 }),
          /idempotency_key: must be a string/,
        );
      } finally {
        await mcp.close();
      }
    });

    it("suppress_customer registers the address", async () => {
      const org = await createOrg(ctx);
      const mcp = await connectMcp(url, { key: org.key });
      try {
        const result = await callTool(mcp.client, "suppress_customer", { address: ADDRESS });
        assert.equal(result.isError, undefined, texts(result).join("\n"));
        assert.deepEqual(result.structuredContent, { added: 1, total: 1 });
      } finally {
        await mcp.close();
      }
    });
  });
});

function eventArguments(dedupId: string): Record<string, unknown> {
  return {
    event_type: "job.completed",
    object_type: "job",
    dedup_id: dedupId,
    record: { id: "job-1", properties: { street: "12 Oak Lane", city: "Austin", state: "TX", zip: "78701" } },
  };
}
