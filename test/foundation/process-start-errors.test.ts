import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { freePort, killStarted, start } from "../helpers/server-process.ts";

describe("the server process refusing to start", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-start-errors-"));
  after(() => {
    killStarted();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("stops with one line naming the setting when DATA_DIR or the port cannot be used", async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "porchlight-unusable-"));
    const occupied = createServer();
    try {
      const file = path.join(scratch, "a-file");
      writeFileSync(file, "");
      const onFile = start({ DATA_DIR: file, PORT: String(await freePort()) });
      assert.equal(await onFile.exited, 1);
      assert.match(
        onFile.output().trim(),
        /^Invalid configuration: DATA_DIR \S+ is not a directory this process can write \(EEXIST\)$/,
      );
      await new Promise<void>((resolve) => occupied.listen(0, "127.0.0.1", resolve));
      const port = (occupied.address() as { port: number }).port;
      const busy = start({ DATA_DIR: path.join(scratch, "data"), PORT: String(port) });
      assert.equal(await busy.exited, 1);
      const lines = busy.output().trim().split("\n");
      assert.equal(
        lines.at(-1),
        `Failed to start: cannot listen on HOST 127.0.0.1 PORT ${port} (EADDRINUSE)`,
      );
      assert.doesNotMatch(
        busy.output(),
        /ak_/,
        "no demo key is printed (and used up) by a start that cannot listen",
      );
    } finally {
      occupied.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("fails at start with one clear line when the database cannot be reached", async () => {
    const closedPort = await freePort();
    const started = start({
      DATABASE_URL: `postgres://porchlight:secret@127.0.0.1:${closedPort}/nothing`,
      PORT: String(await freePort()),
      ADMIN_TOKEN: "process-test-admin-token",
      DATABASE_STARTUP_WAIT_MS: "0",
    });
    assert.equal(await started.exited, 1);
    assert.equal(
      started.output().trim(),
      `Failed to start: the database cannot be reached (connect ECONNREFUSED 127.0.0.1:${closedPort})`,
    );
  });

  it("waits DATABASE_STARTUP_WAIT_MS for an unreachable database, saying so, before giving up", async () => {
    const closedPort = await freePort();
    const started = start({
      DATABASE_URL: `postgres://porchlight:secret@127.0.0.1:${closedPort}/nothing`,
      PORT: String(await freePort()),
      ADMIN_TOKEN: "process-test-admin-token",
      DATABASE_STARTUP_WAIT_MS: "2500",
    });
    assert.equal(await started.exited, 1);
    const lines = started.output().trim().split("\n");
    const waits = lines.filter((line) =>
      line.includes("database not reachable yet; waiting before starting"),
    );
    assert.ok(waits.length >= 1, started.output());
    assert.equal(JSON.parse(waits[0]!).cause.code, "ECONNREFUSED");
    assert.equal(
      lines.at(-1),
      `Failed to start: the database cannot be reached (connect ECONNREFUSED 127.0.0.1:${closedPort})`,
    );
  });

  it("stops at once with one line when PostgreSQL answers that the database or the role does not exist", async () => {
    // The local PostgreSQL the suite uses; waiting could not heal either answer.
    const server = "127.0.0.1:5432";
    const refused = [
      [
        `postgres://postgres@${server}/porchlight_no_such_database`,
        /database "porchlight_no_such_database" does not exist/,
      ],
      [`postgres://porchlight_no_such_role@${server}/postgres`, /porchlight_no_such_role/],
    ] as const;
    for (const [databaseUrl, reason] of refused) {
      const started = start({
        DATABASE_URL: databaseUrl,
        PORT: String(await freePort()),
        ADMIN_TOKEN: "process-test-admin-token",
        // Were these answers waited out, the start would outlive the test's wait for its exit.
        DATABASE_STARTUP_WAIT_MS: "3600000",
      });
      const exited = await Promise.race([
        started.exited,
        new Promise((resolve) => setTimeout(() => resolve("still waiting"), 20_000).unref()),
      ]);
      assert.equal(exited, 1, started.output());
      const output = started.output().trim();
      assert.doesNotMatch(output, /waiting before starting/);
      assert.equal(output.split("\n").length, 1, output);
      assert.match(output, /^Failed to start: the database refuses DATABASE_URL \(.+\)$/);
      assert.match(output, reason);
    }
  });

  it("fails at start with one clear line naming a bad variable", async () => {
    const started = start({ DATA_DIR: dataDir, PORT: "not-a-port" });
    assert.equal(await started.exited, 1);
    assert.equal(started.output().trim(), 'Invalid configuration: PORT must be an integer, got "not-a-port"');
  });

  it("refuses an argument it does not know rather than starting every role", async () => {
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()) };
    const misspelled = start(env, ["--rol", "worker"]);
    assert.equal(await misspelled.exited, 1);
    assert.equal(
      misspelled.output().trim(),
      "Invalid configuration: --rol is not an option; the only one is --role api|worker|all",
    );
    const badRole = start(env, ["--role=workers"]);
    assert.equal(await badRole.exited, 1);
    assert.equal(
      badRole.output().trim(),
      'Invalid configuration: --role must be api, worker or all, got "workers"',
    );
  });
});
