import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { freePort, killStarted, type Started, start, waitReady } from "../helpers/server-process.ts";

/**
 * The access log's lines are gathered before they are written (logger.ts, createStdoutDestination):
 * they must still all arrive, whole, in order, soon after their requests and before the process
 * has exited.
 */
describe("the access log of the default start", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-access-log-"));
  after(() => {
    killStarted();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const logLines = (started: Started) =>
    started
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; reqId?: string; route?: string });

  const accessLinesOf = (started: Started, route: string) =>
    logLines(started).filter((line) => line.msg === "request" && line.route === route);

  async function sendRequests(port: number, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(response.status, 200);
      ids.push(response.headers.get("x-request-id")!);
    }
    return ids;
  }

  it("writes each request's line within a moment, and every line before the process exits", async () => {
    const port = await freePort();
    const started = start({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "info" });
    await waitReady(port, started);

    // Nothing else is logged meanwhile: the lines come out on their own, not only with another line.
    const first = await sendRequests(port, 3);
    const deadline = Date.now() + 5_000;
    while (accessLinesOf(started, "/healthz").length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(
      accessLinesOf(started, "/healthz").map((line) => line.reqId),
      first,
      started.output().slice(-2_000),
    );

    // Then many requests and at once a shutdown: every line is written, whole, before the
    // shutdown's own lines (the order the requests were answered in).
    const burst = await sendRequests(port, 200);
    started.child.kill("SIGTERM");
    assert.equal(await started.exited, 0, started.output().slice(-2_000));
    const lines = logLines(started);
    const requestIds = lines.filter((line) => line.route === "/healthz").map((line) => line.reqId);
    assert.deepEqual(requestIds, [...first, ...burst]);
    const lastRequest = lines.findIndex((line) => line.reqId === burst.at(-1));
    const shuttingDown = lines.findIndex((line) => line.msg.startsWith("shutting down"));
    assert.ok(shuttingDown > lastRequest, "the shutdown is logged after the requests it followed");
  });
});
