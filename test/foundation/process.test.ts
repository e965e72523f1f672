import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { freePort, killStarted, start, waitReady } from "../helpers/server-process.ts";

describe("the server process", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-process-"));
  after(() => {
    killStarted();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("first run prints an admin token, a demo key and a working curl; later runs print no key", async () => {
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "info" };
    const first = start(env);
    await waitReady(port, first);
    const key = /ak_[0-9A-Za-z]{49}/.exec(first.output())?.[0];
    assert.ok(key, first.output());
    assert.match(first.output(), /Operator token/);
    for (const address of [
      `The app:           http://127.0.0.1:${port}/app/`,
      `API reference:     http://127.0.0.1:${port}/docs`,
      `Operator console:  http://127.0.0.1:${port}/app/operator`,
    ]) {
      assert.ok(first.output().includes(address), `the first start says ${address}`);
    }
    assert.ok(
      first.output().includes(`curl -s -H 'Authorization: Bearer ${key}' http://127.0.0.1:${port}/api/v1/me`),
    );
    const me = await fetch(`http://127.0.0.1:${port}/api/v1/me`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { org_name: string }).org_name, "Demo Contractor");
    const logLines = first
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"));
    assert.ok(logLines.length > 0);
    assert.ok(
      logLines.every((line) => !line.includes(key)),
      "the key never appears in a log line",
    );

    assert.equal(statSync(dataDir).mode & 0o777, 0o700, "DATA_DIR is private to the service's user");
    assert.equal(statSync(path.join(dataDir, "admin-token")).mode & 0o077, 0);
    const shared = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter(
      (entry) => (statSync(path.join(entry.parentPath, entry.name)).mode & 0o077) !== 0,
    );
    assert.deepEqual(
      shared.map((entry) => path.join(entry.parentPath, entry.name)),
      [],
      "the embedded cluster's files too (PGlite unpacks them 0666)",
    );

    first.child.kill("SIGTERM");
    assert.equal(await first.exited, 0);

    const second = start(env);
    await waitReady(port, second);
    assert.doesNotMatch(second.output(), /ak_[0-9A-Za-z]{49}/);
    assert.doesNotMatch(second.output(), /Operator token/);
    assert.doesNotMatch(second.output(), /Operator console/);
    const again = await fetch(`http://127.0.0.1:${port}/api/v1/me`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(again.status, 200);
    second.child.kill("SIGINT");
    assert.equal(await second.exited, 0);
  });

  it("refuses a second process on the same embedded DATA_DIR, and takes over from a killed one", async () => {
    const lockedDir = mkdtempSync(path.join(tmpdir(), "porchlight-lock-"));
    try {
      const port = await freePort();
      const holder = start({
        DATA_DIR: lockedDir,
        PORT: String(port),
        ADMIN_TOKEN: "process-test-admin-token",
      });
      await waitReady(port, holder);
      const lockFile = path.join(lockedDir, "porchlight.pid");
      assert.equal(readFileSync(lockFile, "utf8").split("\n")[0], String(holder.child.pid));

      const intruder = start({ DATA_DIR: lockedDir, PORT: String(await freePort()) });
      assert.equal(await intruder.exited, 1);
      assert.match(
        intruder.output().trim(),
        new RegExp(
          `^DATA_DIR \\S+ is in use by process ${holder.child.pid}: the embedded database allows one process`,
        ),
      );
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200, "the holder runs on");

      holder.child.kill("SIGKILL");
      await holder.exited;
      // After a reboot the recorded pid may belong to another live Node process (here: this
      // test's own), which started at another time: not a holder.
      writeFileSync(lockFile, `${process.pid}\n1\n`);
      const successor = start({
        DATA_DIR: lockedDir,
        PORT: String(port),
        ADMIN_TOKEN: "process-test-admin-token",
      });
      await waitReady(port, successor);
      successor.child.kill("SIGTERM");
      assert.equal(await successor.exited, 0);
      assert.equal(
        existsSync(path.join(lockedDir, "porchlight.pid")),
        false,
        "a clean stop releases the lock",
      );
    } finally {
      rmSync(lockedDir, { recursive: true, force: true });
    }
  });

  it("a first start that cannot listen neither prints nor stores an operator token", async () => {
    const freshDir = mkdtempSync(path.join(tmpdir(), "porchlight-busy-"));
    const taken = createServer();
    try {
      const port = await freePort();
      await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", resolve));
      const refused = start({ DATA_DIR: freshDir, PORT: String(port) });
      assert.equal(await refused.exited, 1);
      assert.match(refused.output(), /cannot listen on HOST 127\.0\.0\.1 PORT \d+/);
      assert.doesNotMatch(refused.output(), /Operator token|adm_/);
      assert.equal(existsSync(path.join(freshDir, "admin-token")), false);
      await new Promise((resolve) => taken.close(resolve));

      const next = start({ DATA_DIR: freshDir, PORT: String(port) });
      await waitReady(port, next);
      const shown = /Operator token \(stored in \S+; shown once\): (adm_\S+)/.exec(next.output())?.[1];
      assert.equal(shown, readFileSync(path.join(freshDir, "admin-token"), "utf8").trim());
      next.child.kill("SIGTERM");
      assert.equal(await next.exited, 0);
    } finally {
      taken.close();
      rmSync(freshDir, { recursive: true, force: true });
    }
  });

  it("SIGTERM with SHUTDOWN_DRAIN_MS: /readyz says draining while requests are still answered, then it exits", async () => {
    const drainDir = mkdtempSync(path.join(tmpdir(), "porchlight-drain-"));
    try {
      const port = await freePort();
      const serving = start({
        DATA_DIR: drainDir,
        PORT: String(port),
        ADMIN_TOKEN: "process-test-admin-token",
        // Long enough that a loaded machine answers both requests inside it.
        SHUTDOWN_DRAIN_MS: "4000",
        LOG_LEVEL: "info",
      });
      await waitReady(port, serving);
      const signalledAt = Date.now();
      serving.child.kill("SIGTERM");
      let readyz: Response | undefined;
      for (let attempt = 0; attempt < 50; attempt++) {
        readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (readyz.status === 503) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(readyz?.status, 503);
      assert.deepEqual(await readyz?.json(), { status: "draining", database: "pglite" });
      const healthz = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(healthz.status, 200, "requests are still answered while draining");
      assert.ok(Date.now() - signalledAt < 4000, "both answered within the drain");
      assert.equal(await serving.exited, 0);
      assert.ok(Date.now() - signalledAt >= 3900, "the process waited out the drain");
      assert.match(serving.output(), /"shutdownDrainMs":4000[^\n]*"msg":"draining: \/readyz answers 503/);
    } finally {
      rmSync(drainDir, { recursive: true, force: true });
    }
  });

  it("exits after SHUTDOWN_TIMEOUT_MS when a request in flight does not finish", async () => {
    const stuckDir = mkdtempSync(path.join(tmpdir(), "porchlight-stuck-"));
    try {
      const port = await freePort();
      const started = start({
        DATA_DIR: stuckDir,
        PORT: String(port),
        ADMIN_TOKEN: "process-test-admin-token",
        SHUTDOWN_TIMEOUT_MS: "1000",
      });
      await waitReady(port, started);
      // A body that never finishes keeps its request in flight (the request timeout is 30 s).
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => {});
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      // Node answers "100 Continue" once it has parsed the headers: the request is then in flight.
      const continued = new Promise<void>((resolve) => {
        socket.on("data", (chunk: Buffer) => {
          if (chunk.toString().startsWith("HTTP/1.1 100 Continue")) resolve();
        });
      });
      socket.write(
        "POST /api/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n",
      );
      await continued;
      socket.write("{");
      const signalledAt = Date.now();
      started.child.kill("SIGTERM");
      assert.equal(await started.exited, 1);
      const waited = Date.now() - signalledAt;
      assert.ok(waited >= 900 && waited < 10_000, `exited after ${waited} ms`);
      assert.match(started.output(), /"shutdownTimeoutMs":1000[^\n]*"msg":"shutdown took too long; exiting"/);
      socket.destroy();
    } finally {
      rmSync(stuckDir, { recursive: true, force: true });
    }
  });
});
