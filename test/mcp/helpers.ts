import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestContext } from "../helpers/harness.ts";

/** Starts the app on a loopback port and returns the URL of its MCP route. */
export async function listenForMcp(ctx: TestContext): Promise<URL> {
  const address = await ctx.app.listen({ port: 0, host: "127.0.0.1" });
  return new URL("/api/mcp", address);
}

let ipCounter = 0;

/**
 * A client address of its own for each test client (sent as X-Forwarded-For; the MCP tests run
 * with trustProxy on), so the per-IP limit of one test never counts another's requests.
 */
export const nextClientIp = () => `203.0.113.${++ipCounter}`;

export interface McpTestClient {
  client: Client;
  ip: string;
  /** Resolves once every HTTP request the client started (including its optional SSE GET) settled. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** The SDK's own client over Streamable HTTP, with the key (if any) as its bearer token. */
export async function connectMcp(
  url: URL,
  options: { key?: string; ip?: string } = {},
): Promise<McpTestClient> {
  const ip = options.ip ?? nextClientIp();
  const headers: Record<string, string> = { "x-forwarded-for": ip };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const inFlight = new Set<Promise<unknown>>();
  let sawGet = false;
  const trackedFetch: typeof fetch = (input, init) => {
    if ((init?.method ?? "GET") === "GET") sawGet = true;
    const pending = fetch(input, init);
    inFlight.add(pending);
    void pending.finally(() => inFlight.delete(pending)).catch(() => {});
    return pending;
  };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: trackedFetch });
  const client = new Client({ name: "porchlight-tests", version: "1.0.0" });
  await client.connect(transport);
  const idle = async () => {
    // After `initialized` the client opens its optional SSE stream (GET, answered 405) on its own.
    for (let attempt = 0; attempt < 200 && (!sawGet || inFlight.size > 0); attempt++) {
      await Promise.allSettled([...inFlight]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { client, ip, idle, close: () => client.close() };
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function texts(result: CallToolResult): string[] {
  return result.content.map((item) => (item.type === "text" ? item.text : ""));
}

/** The endpoint's JSON as the tool returned it in its text content. */
export function endpointJson(result: CallToolResult): unknown {
  const body = texts(result)[1];
  return body ? JSON.parse(body) : undefined;
}
