import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import { freePort, killStarted, start } from "../helpers/server-process.ts";

describe("the server process refusing to start", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-start-errors-"));

  /**
   * A start on `databaseUrl` that stops by itself, with one line: its output. Were its refusal
   * waited out (an hour's wait is given), the start would outlive the test's wait for its exit.
   */
  async function refusedAtOnce(databaseUrl: string): Promise<string> {
    const started = start({
      DATABASE_URL: databaseUrl,
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      ADMIN_TOKEN: "process-test-admin-token",
      DATABASE_STARTUP_WAIT_MS: "3600000",
    });
    const exited = await Promise.race([
      started.exited,
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 30_000).unref()),
    ]);
    assert.equal(exited, 1, started.output());
    const output = started.output().trim();
    assert.equal(output.split("\n").length, 1, output);
    return output;
  }
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
      DATA_DIR: dataDir,
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
      DATA_DIR: dataDir,
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
      const output = await refusedAtOnce(databaseUrl);
      assert.doesNotMatch(output, /waiting before starting/);
      assert.match(output, /^Failed to start: the database refuses DATABASE_URL \(.+\)$/);
      assert.match(output, reason);
    }
  });

  it("stops with one line in PostgreSQL's words when the database holds another application's table, or has no TLS", async () => {
    const server = "127.0.0.1:5432";
    const name = `porchlight_clash_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: `postgres://postgres@${server}/postgres` });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
      const other = new pg.Client({ connectionString: `postgres://postgres@${server}/${name}` });
      await other.connect();
      await other.query("CREATE TABLE customers (id int)");
      await other.end();
      const cases = [
        [
          `postgres://postgres@${server}/${name}`,
          /^Failed to start: the database refused a statement \(relation "customers" already exists; SQLSTATE 42P07\): the database already holds a table of that name/,
        ],
        [
          `postgres://postgres@${server}/${name}?sslmode=verify-full`,
          /^Failed to start: the database refuses DATABASE_URL \(The server does not support SSL connections\)$/,
        ],
      ] as const;
      for (const [databaseUrl, line] of cases) assert.match(await refusedAtOnce(databaseUrl), line);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it("says which operator token an instance takes: on a shared database without ADMIN_TOKEN, its own file's; with it, not the file's", async () => {
    const ownDir = mkdtempSync(path.join(tmpdir(), "porchlight-token-"));
    try {
      const databaseUrl = `postgres://porchlight@127.0.0.1:${await freePort()}/nothing`;
      const withoutToken = start({
        DATABASE_URL: databaseUrl,
        DATA_DIR: ownDir,
        PORT: String(await freePort()),
        DATABASE_STARTUP_WAIT_MS: "0",
      });
      assert.equal(await withoutToken.exited, 1);
      const file = path.join(ownDir, "admin-token");
      assert.match(
        withoutToken.output(),
        new RegExp(
          `^ADMIN_TOKEN is not set: this instance's operator token is the one in ${file}; with several instances on one database, give them all the same ADMIN_TOKEN\\.$`,
          "m",
        ),
      );
      assert.equal(existsSync(file), false, "a start that failed kept no new token");
      // An earlier start that worked left its token in the file.
      writeFileSync(file, "adm_from_an_earlier_start\n", { mode: 0o600 });
      const withToken = start({
        DATABASE_URL: databaseUrl,
        DATA_DIR: ownDir,
        ADMIN_TOKEN: "process-test-admin-token",
        PORT: String(await freePort()),
        DATABASE_STARTUP_WAIT_MS: "0",
      });
      assert.equal(await withToken.exited, 1);
      assert.match(
        withToken.output(),
        new RegExp(`^ADMIN_TOKEN is set: the operator token in ${file} is not accepted\\.$`, "m"),
      );
    } finally {
      rmSync(ownDir, { recursive: true, force: true });
    }
  });

  it("fails at start with one clear line naming a bad variable", async () => {
    const started = start({ DATA_DIR: dataDir, PORT: "not-a-port" });
    assert.equal(await started.exited, 1);
    assert.equal(started.output().trim(), 'Invalid configuration: PORT must be an integer, got "not-a-port"');
  });

  it("refuses a secret variable set but empty (a secret store that did not deliver) rather than generating one", async () => {
    const started = start({ DATA_DIR: dataDir, PORT: String(await freePort()), ADMIN_TOKEN: "" });
    assert.equal(await started.exited, 1);
    assert.equal(
      started.output().trim(),
      "Invalid configuration: ADMIN_TOKEN is set but empty: give the secret, or unset the variable to use a generated one",
    );
  });

  it("refuses an argument it does not know rather than starting every role", async () => {
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()) };
    const misspelled = start(env, ["--rol", "worker"]);
    assert.equal(await misspelled.exited, 1);
    assert.equal(
      misspelled.output().trim(),
      "Invalid configuration: --rol is not an option; the only one is --role api|worker|all",
    );
    // `npm start --role=worker` without `--`: npm keeps the option and says so only in the environment.
    const npmsOwn = start({ ...env, npm_config_role: "worker" }, []);
    assert.equal(await npmsOwn.exited, 1);
    assert.equal(
      npmsOwn.output().trim(),
      "Invalid configuration: --role was taken by npm as its own option, so the service got none: write npm start -- --role worker",
    );
    const badRole = start(env, ["--role=workers"]);
    assert.equal(await badRole.exited, 1);
    assert.equal(
      badRole.output().trim(),
      'Invalid configuration: --role must be api, worker or all, got "workers"',
    );
  });
});
