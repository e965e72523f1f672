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

/** A connection whose first request (a dry-run event) is sent but for the end of its body. */
async function holdRequestInFlight(port: number, key: string) {
  const body = JSON.stringify(envelope({ dry_run: true }));
  const socket = connect(port, "127.0.0.1");
  const received = readUntilClosed(socket);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(
    [
      "POST /api/v1/events HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${key}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "",
      body.slice(0, 10),
    ].join("\r\n"),
  );
  return {
    /** Sends the rest of the body with `nextRequest` pipelined behind it; resolves to both answers. */
    finish: async (nextRequest: string) => {
      socket.write(body.slice(10) + nextRequest);
      return parseResponses(await received);
    },
  };
}

const MCP_PING = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" });

describe(`graceful shutdown (${databaseLabel})`, () => {
  it("finishes the requests in flight and refuses the next ones in the endpoint's 503 shape", async () => {
    const ctx = await createTestContext();
    let closed: Promise<void> | undefined;
    try {
      await ctx.app.listen({ port: 0, host: "127.0.0.1" });
      const port = (ctx.app.server.address() as AddressInfo).port;
      const { key } = await createOrg(ctx);
      const rest = await holdRequestInFlight(port, key);
      const mcp = await holdRequestInFlight(port, key);
      await new Promise((resolve) => setTimeout(resolve, 100));
      closed = ctx.app.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [restAnswers, mcpAnswers] = await Promise.all([
        rest.finish(`GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`),
        mcp.finish(
          [
            "POST /api/mcp HTTP/1.1",
            "Host: 127.0.0.1",
            "Content-Type: application/json",
            `Content-Length: ${MCP_PING.length}`,
            "",
            MCP_PING,
          ].join("\r\n"),
        ),
      ]);

      for (const [inFlight, refused, ...others] of [restAnswers, mcpAnswers]) {
        assert.equal(inFlight?.status, 202, "the request in flight is answered normally");
        assert.equal(JSON.parse(inFlight!.body).dry_run, true);
        assert.equal(refused?.status, 503);
        assert.equal(refused!.headers["retry-after"], "1");
        assert.equal(refused!.headers.connection, "close");
        assert.match(refused!.headers["content-type"]!, /^application\/json/);
        assert.deepEqual(others, [], "the connection is closed after the refusal");
      }
      assert.deepEqual(JSON.parse(restAnswers[1]!.body), {
        error: "service_unavailable",
        detail: "this instance is shutting down; retry",
      });
      const rpc = JSON.parse(mcpAnswers[1]!.body);
      assert.equal(rpc.jsonrpc, "2.0");
      assert.equal(rpc.error.code, -32000);
      assert.match(rpc.error.message, /^service_unavailable: this instance is shutting down/);
      assert.deepEqual(rpc.error.data, { status: 503, error: "service_unavailable", retry_after_seconds: 1 });
      await closed;
    } finally {
      await closed;
      await ctx.close();
    }
  });
});
