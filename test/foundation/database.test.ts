import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import pino from "pino";
import { buildApp } from "../../src/app.ts";
import { systemClock } from "../../src/clock.ts";
import { isConnectionError, openDatabase, queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate, splitStatements } from "../../src/db/migrate.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createMemoryRateLimiter } from "../../src/limits/rate-limiter.ts";
import { createRenderPool } from "../../src/render/renderer.ts";
import { admin, call, createOrg } from "../helpers/api.ts";
import {
  appAdapters,
  createTestContext,
  databaseLabel,
  openTestDatabase,
  testConfig,
} from "../helpers/harness.ts";

describe(`migrations (${databaseLabel})`, () => {
  it("are idempotent: a second run applies nothing and keeps the data", async () => {
    const { database, drop } = await openTestDatabase();
    try {
      await database.db.execute(sql`INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'kept')`);
      assert.deepEqual(await migrate(database.db), []);
      const rows = await queryRows<{ name: string }>(database.db, sql`SELECT name FROM organizations`);
      assert.deepEqual(
        rows.map((row) => row.name),
        ["kept"],
      );
      const versions = await queryRows<{ version: string }>(
        database.db,
        sql`SELECT version FROM schema_migrations`,
      );
      assert.equal(versions.length, (await loadMigrations()).length);
    } finally {
      await drop();
    }
  });

  it("roll back entirely when one statement fails", async () => {
    const { database, drop } = await openTestDatabase();
    try {
      await assert.rejects(
        migrate(database.db, [
          { version: "9998_good", statements: "CREATE TABLE good_one (id int);" },
          { version: "9999_bad", statements: "CREATE TABLE bad_one (id int);\nSELECT * FROM missing_table;" },
        ]),
      );
      const tables = await queryRows<{ n: number }>(
        database.db,
        sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('good_one', 'bad_one')`,
      );
      assert.equal(tables[0]!.n, 0);
    } finally {
      await drop();
    }
  });

  it("run a data migration at its version, in the same transaction as the SQL ones, and record it", async () => {
    const { database, drop } = await openTestDatabase();
    try {
      const seen: string[] = [];
      const applied = await migrate(database.db, [
        { version: "9997_table", statements: "CREATE TABLE data_target (n int);" },
        {
          version: "9998_data",
          run: async (tx) => {
            await tx.execute(sql`INSERT INTO data_target (n) VALUES (1), (2)`);
            seen.push("ran");
          },
        },
      ]);
      assert.deepEqual(applied, ["9997_table", "9998_data"]);
      assert.deepEqual(
        await migrate(database.db, [{ version: "9998_data", run: async () => void seen.push("again") }]),
        [],
      );
      assert.deepEqual(seen, ["ran"]);
      const rows = await queryRows<{ n: number }>(
        database.db,
        sql`SELECT count(*)::int AS n FROM data_target`,
      );
      assert.equal(rows[0]!.n, 2);

      // A data migration that fails leaves nothing, the SQL before it included.
      await assert.rejects(
        migrate(database.db, [
          { version: "9999_more", statements: "CREATE TABLE more_target (n int);" },
          {
            version: "9999_failing",
            run: async (tx) => {
              await tx.execute(sql`INSERT INTO data_target (n) VALUES (3)`);
              throw new Error("cannot compute");
            },
          },
        ]),
        /cannot compute/,
      );
      const after = await queryRows<{ n: number; tables: number }>(
        database.db,
        sql`SELECT (SELECT count(*)::int FROM data_target) AS n,
                   (SELECT count(*)::int FROM information_schema.tables WHERE table_name = 'more_target') AS tables`,
      );
      assert.deepEqual(after[0], { n: 2, tables: 0 });
    } finally {
      await drop();
    }
  });

  it("number SQL files and data migrations in one sequence", async () => {
    const versions = (await loadMigrations()).map((migration) => migration.version);
    assert.deepEqual(versions, [...versions].sort());
    assert.ok(versions.includes("0410_street_type_keys"));
    await assert.rejects(
      loadMigrations(undefined, [{ version: "0001_clash", run: async () => {} }]),
      /two migrations are numbered 0001/,
    );
  });

  it("split statements at line-ending semicolons and drop comment lines", () => {
    assert.deepEqual(splitStatements("-- c\nCREATE TABLE a (x int);\nCREATE INDEX b ON a (x); -- why\n"), [
      "CREATE TABLE a (x int)",
      "CREATE INDEX b ON a (x)",
    ]);
  });

  it("keep a function's dollar-quoted body, with its line-ending semicolons, in one statement", () => {
    const body = "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1;\nEND\n$$";
    assert.deepEqual(splitStatements(`${body};\nSELECT f();\nSELECT $$a;$$;\n`), [
      body,
      "SELECT f()",
      "SELECT $$a;$$",
    ]);
  });
});

describe(`database outage (${databaseLabel})`, () => {
  it("answers 503 auth_unavailable with Retry-After and readyz 503 when the database is gone", async () => {
    const logLines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => logLines.push(line) });
    const ctx = await createTestContext({ logger });
    const org = await createOrg(ctx);
    const otherKey = (await admin(ctx, "POST", `/orgs/${org.orgId}/keys`, {})).body.key;
    assert.equal((await call(ctx, "GET", "/readyz")).status, 200);
    await ctx.database.close();
    try {
      const response = await call(ctx, "GET", "/api/v1/me", { key: otherKey });
      assert.equal(response.status, 503);
      assert.equal(response.body.error, "auth_unavailable");
      assert.ok(Number(response.headers["retry-after"]) > 0);
      // One short warning per refusal: its code and the driver's message, no stack, one reqId.
      const refusals = logLines.filter((line) => line.includes("request refused: unavailable"));
      assert.equal(refusals.length, 1);
      assert.equal(logLines.filter((line) => line.includes("key store unavailable")).length, 0);
      assert.equal(refusals[0]!.match(/"reqId"/g)?.length, 1);
      const refusal = JSON.parse(refusals[0]!);
      assert.equal(refusal.level, 40);
      assert.equal(refusal.code, "auth_unavailable");
      assert.equal(typeof refusal.cause.message, "string");
      assert.doesNotMatch(refusals[0]!, /"stack"/);
      const ready = await call(ctx, "GET", "/readyz");
      assert.equal(ready.status, 503);
      assert.equal((await call(ctx, "GET", "/healthz")).status, 200);
    } finally {
      await ctx.close();
    }
  });
});

describe(`a database that stops answering (${databaseLabel})`, () => {
  it("reads as not ready within 2 s instead of hanging the readiness probe", async () => {
    const opened = await openTestDatabase();
    const limiter = createMemoryRateLimiter(systemClock);
    // A frozen server: the connection stays open, no answer ever comes.
    const frozen = { ...opened.database, ping: () => new Promise<void>(() => undefined) };
    const config = testConfig();
    const logger = pino({ level: "silent" });
    const app = await buildApp({
      config,
      database: frozen,
      clock: systemClock,
      logger,
      limiter,
      geocoder: createLocalGeocoder(),
      renderer: createRenderPool({ threads: 1 }),
      ...appAdapters(config, logger),
    });
    try {
      const startedAt = Date.now();
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      assert.equal(ready.statusCode, 503);
      assert.ok(Date.now() - startedAt < 5_000);
    } finally {
      await app.close();
      await limiter.close();
      await opened.drop();
    }
  });

  it("turns a query timeout into a 503, like any lost connection", () => {
    assert.equal(isConnectionError(new Error("Query read timeout")), true);
  });
});

describe("embedded database settings", () => {
  it("does not zero-fill new WAL segments (a stall of every request under write load)", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-walzero-"));
    const database = await openDatabase({ dataDir });
    try {
      const [setting] = await queryRows<{ wal_init_zero: string }>(database.db, sql`SHOW wal_init_zero`);
      assert.equal(setting?.wal_init_zero, "off");
      // Still off after statements and a transaction (a session setting, not a transaction's).
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
      });
      const [after] = await queryRows<{ wal_init_zero: string }>(database.db, sql`SHOW wal_init_zero`);
      assert.equal(after?.wal_init_zero, "off");
    } finally {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("embedded database persistence", () => {
  it("keeps organizations and keys across a restart of the data dir", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-persist-"));
    const logger = pino({ level: "silent" });
    const start = async () => {
      const database = await openDatabase({ dataDir });
      await migrate(database.db);
      const config = testConfig({ dataDir });
      const limiter = createMemoryRateLimiter(systemClock);
      const renderer = createRenderPool({ threads: 1 });
      const { mailer, imagery } = appAdapters(config, logger);
      const app = await buildApp({
        config,
        database,
        clock: systemClock,
        logger,
        limiter,
        geocoder: createLocalGeocoder(),
        renderer,
        mailer,
        imagery,
      });
      const close = async () => {
        await app.close();
        await renderer.close();
        await database.close();
      };
      return {
        app,
        database,
        config,
        clock: systemClock,
        limiter,
        renderer,
        mailer,
        schema: undefined,
        close,
      };
    };
    try {
      const first = await start();
      const org = await createOrg(first, { name: "Persisted Plumbing" });
      await first.close();

      const second = await start();
      const me = await call(second, "GET", "/api/v1/me", { key: org.key });
      await second.close();
      assert.equal(me.status, 200);
      assert.deepEqual(me.body, { org_id: org.orgId, org_name: "Persisted Plumbing" });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
