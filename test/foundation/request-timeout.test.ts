import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";

/** Sends the bytes of an unfinished request, then nothing: what comes back, and when. */
function trickle(port: number, bytes: string): Promise<{ reply: string; afterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let reply = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      reply += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ reply, afterMs: Date.now() - started }));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error("the server kept the trickling connection open for 10 s"));
    });
  });
}

describe(`request timeout: a slow client cannot hold a connection (${databaseLabel})`, () => {
  let ctx: TestContext;
  let port: number;
  let key: string;
  before(async () => {
    ctx = await createTestContext({ config: { requestTimeoutMs: 300 } });
    await ctx.app.listen({ port: 0, host: "127.0.0.1" });
    port = (ctx.app.server.address() as AddressInfo).port;
    key = (await createOrg(ctx)).key;
  });
  after(async () => ctx.close());

  it("answers 408 and closes a connection whose body stops arriving", async () => {
    const head = [
      "POST /api/v1/events HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${key}`,
      "Content-Type: application/json",
      "Content-Length: 100",
    ].join("\r\n");
    const { reply, afterMs } = await trickle(port, `${head}\r\n\r\n{"event_type":`);
    assert.match(reply, /^HTTP\/1\.1 408 /);
    assert.match(reply, /\r\nConnection: close\r\n/);
    const body = JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4));
    assert.deepEqual(body, {
      error: "request_timeout",
      detail: "the request's headers and body must arrive within 300 ms",
    });
    assert.ok(afterMs >= 250, `closed after ${afterMs} ms, before the timeout`);
  });

  it("answers 408 and closes a connection whose headers never finish", async () => {
    const { reply } = await trickle(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1");
    assert.match(reply, /^HTTP\/1\.1 408 /);
  });

  it("answers bytes that are not HTTP with 400 in the service's error shape", async () => {
    const { reply } = await trickle(port, "HELLO\r\n\r\n");
    assert.match(reply, /^HTTP\/1\.1 400 /);
    assert.equal(JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4)).error, "bad_request");
  });

  it("answers oversized headers with 431 in the service's error shape", async () => {
    const { reply } = await trickle(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}`);
    assert.match(reply, /^HTTP\/1\.1 431 /);
    assert.equal(JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4)).error, "headers_too_large");
    // The headers every answer carries, though no request object exists yet.
    assert.match(reply, /\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    assert.match(reply, /\r\nX-Content-Type-Options: nosniff\r\n/);
    assert.match(reply, /\r\nCache-Control: no-store\r\n/);
  });

  it("still serves a request that arrives in time", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(response.status, 200);
  });
});
