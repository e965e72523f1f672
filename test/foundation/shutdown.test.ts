import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { envelope } from "../events/helpers.ts";
import { createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel } from "../helpers/harness.ts";

/** Everything the server sends on `socket` until it closes the connection. */
function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error(`the connection stayed open; received so far:\n${text}`));
    });
  });
}

/** The HTTP/1.1 responses in `text`, each as status, lower-cased headers and body. */
function parseResponses(text: string) {
  const responses: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = text;
  while (rest.startsWith("HTTP/1.1 ")) {
    const headEnd = rest.indexOf("\r\n\r\n");
    const [statusLine, ...headerLines] = rest.slice(0, headEnd).split("\r\n");
    const headers = Object.fromEntries(
      headerLines.map((line) => {
        const colon = line.indexOf(":");
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers["content-length"]);
    const bodyStart = headEnd + 4;
    responses.push({
      status: Number(statusLine!.split(" ")[1]),
      headers,
      body: rest.slice(bodyStart, bodyStart + length),
    });
    rest = rest.slice(bodyStart + length);
  }
  return responses;
}

/**
 * A connection whose first request is sent but for the last bytes of its body, so it is in flight
 * (past its onRequest hooks) when the close begins.
 */
async function holdRequestInFlight(port: number, head: string[], body: string) {
  const socket = connect(port, "127.0.0.1");
  const received = readUntilClosed(socket);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write([...head, `Content-Length: ${Buffer.byteLength(body)}`, "", body.slice(0, 10)].join("\r\n"));
  return {
    /** Sends the rest of the body with `nextRequest` pipelined behind it; resolves to both answers. */
    finish: async (nextRequest: string) => {
      socket.write(body.slice(10) + nextRequest);
      return parseResponses(await received);
    },
  };
}

/** Resolves once the server refuses new connections: its close has begun (preClose ran). */
async function untilRefusingConnections(port: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = connect(port, "127.0.0.1");
      probe.once("connect", () => {
        probe.destroy();
        resolve(false);
      });
      probe.once("error", () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the server kept accepting connections after close()");
}

const rpc = (id: number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });

describe(`graceful shutdown (${databaseLabel})`, () => {
  it("finishes the requests in flight and refuses the next ones in the endpoint's 503 shape", async () => {
    const ctx = await createTestContext();
    let closed: Promise<void> | undefined;
    try {
      await ctx.app.listen({ port: 0, host: "127.0.0.1" });
      const port = (ctx.app.server.address() as AddressInfo).port;
      const { key } = await createOrg(ctx);
      const json = ["Host: 127.0.0.1", `Authorization: Bearer ${key}`, "Content-Type: application/json"];
      const rest = await holdRequestInFlight(
        port,
        ["POST /api/v1/events HTTP/1.1", ...json],
        JSON.stringify(envelope({ dry_run: true })),
      );
      const mcp = await holdRequestInFlight(
        port,
        ["POST /api/mcp HTTP/1.1", ...json],
        rpc(1, "tools/call", { name: "whoami", arguments: {} }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      closed = ctx.app.close();
      await untilRefusingConnections(port);
      const ping = rpc(2, "ping");
      const [restAnswers, mcpAnswers] = await Promise.all([
        rest.finish(`GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`),
        mcp.finish(
          ["POST /api/mcp HTTP/1.1", ...json, `Content-Length: ${ping.length}`, "", ping].join("\r\n"),
        ),
      ]);

      const [event, refusedRest, ...afterRest] = restAnswers;
      assert.equal(event?.status, 202, "the event in flight is answered normally");
      assert.equal(JSON.parse(event!.body).dry_run, true);
      // The tool call in flight ran, but its forwarded call found the app closing: a retryable 503.
      const [toolCall, refusedMcp, ...afterMcp] = mcpAnswers;
      assert.equal(toolCall?.status, 200);
      const tool = JSON.parse(toolCall!.body).result;
      assert.equal(tool.isError, true);
      assert.deepEqual(tool.structuredContent, {
        status: 503,
        body: { error: "service_unavailable", detail: "this instance is shutting down; retry" },
        retry_after_seconds: 1,
      });

      for (const refused of [refusedRest, refusedMcp]) {
        assert.equal(refused?.status, 503);
        assert.equal(refused!.headers["retry-after"], "1");
        assert.equal(refused!.headers.connection, "close");
        assert.match(refused!.headers["content-type"]!, /^application\/json/);
      }
      assert.deepEqual([afterRest, afterMcp], [[], []], "each connection is closed after its refusal");
      assert.deepEqual(JSON.parse(refusedRest!.body), {
        error: "service_unavailable",
        detail: "this instance is shutting down; retry",
      });
      const rpcError = JSON.parse(refusedMcp!.body);
      assert.equal(rpcError.jsonrpc, "2.0");
      assert.equal(rpcError.error.code, -32000);
      assert.match(rpcError.error.message, /^service_unavailable: this instance is shutting down/);
      assert.deepEqual(rpcError.error.data, {
        status: 503,
        error: "service_unavailable",
        retry_after_seconds: 1,
      });
      await closed;
    } finally {
      await closed;
      await ctx.close();
    }
  });
});
