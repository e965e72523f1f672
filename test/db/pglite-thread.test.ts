import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { messages } from "@electric-sql/pglite";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { type Database, isConnectionError, openDatabase, queryRows, sql } from "../../src/db/database.ts";
import { openPgliteThread, type PgliteThread } from "../../src/db/pglite-thread.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const rootCause = (error: unknown): Record<string, unknown> => {
  let current = error as { cause?: unknown };
  while (current.cause !== undefined) current = current.cause as { cause?: unknown };
  return current as Record<string, unknown>;
};

/** Transactions and errors as callers see them, on the suite's database (PGlite: through the thread). */
describe(`transactions and errors through the database handle (${databaseLabel})`, () => {
  let database: Database;
  let drop: () => Promise<void>;

  before(async () => {
    // On PGlite through the thread; on PostgreSQL the same assertions hold for node-postgres.
    if (databaseLabel === "pglite") {
      database = await openDatabase({ pgliteThread: true });
      drop = () => database.close();
    } else ({ database, drop } = await openTestDatabase({ migrations: [] }));
    await database.db.execute(sql`CREATE TABLE thread_items (id int PRIMARY KEY, label text NOT NULL)`);
  });
  after(async () => drop());

  it("commits a transaction's statements together and rolls them all back on an error", async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO thread_items VALUES (1, 'one')`);
      await tx.execute(sql`INSERT INTO thread_items VALUES (2, 'two')`);
    });
    await assert.rejects(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO thread_items VALUES (3, 'three')`);
        throw new Error("changed my mind");
      }),
      /changed my mind/,
    );
    // A nested transaction (a savepoint) rolls back alone.
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO thread_items VALUES (4, 'four')`);
      await assert.rejects(
        tx.transaction(async (inner) => {
          await inner.execute(sql`INSERT INTO thread_items VALUES (5, 'five')`);
          throw new Error("inner only");
        }),
      );
    });
    const rows = await queryRows<{ id: number }>(database.db, sql`SELECT id FROM thread_items ORDER BY id`);
    assert.deepEqual(
      rows.map((row) => row.id),
      [1, 2, 4],
    );
  });

  it("keeps concurrent transactions apart: one's rollback never undoes another's commit", async () => {
    await database.db.execute(sql`DELETE FROM thread_items`);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`INSERT INTO thread_items VALUES (${index}, ${`item ${index}`})`);
          // Let the other transactions' statements arrive meanwhile.
          await new Promise((resolve) => setImmediate(resolve));
          const [{ n }] = (await queryRows<{ n: number }>(
            tx,
            sql`SELECT count(*)::int AS n FROM thread_items`,
          )) as [{ n: number }];
          if (index % 2 === 1) throw new Error(`rollback ${index}`);
          return n;
        }),
      ),
    );
    const rows = await queryRows<{ id: number }>(database.db, sql`SELECT id FROM thread_items ORDER BY id`);
    assert.deepEqual(
      rows.map((row) => row.id),
      [0, 2, 4, 6],
    );
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ["fulfilled", "rejected", "fulfilled", "rejected", "fulfilled", "rejected", "fulfilled", "rejected"],
    );
  });

  it("keeps the SQLSTATE and the fields of a failed statement, inside and outside transactions", async () => {
    await database.db.execute(sql`INSERT INTO thread_items VALUES (100, 'taken') ON CONFLICT DO NOTHING`);
    const duplicate = await database.db
      .execute(sql`INSERT INTO thread_items VALUES (100, 'again')`)
      .catch((e) => e);
    const cause = rootCause(duplicate);
    assert.equal(cause.code, "23505");
    assert.equal(cause.constraint, "thread_items_pkey");
    assert.equal(cause.detail, "Key (id)=(100) already exists.");
    assert.equal(cause.table, "thread_items");
    assert.match(String(cause.message), /duplicate key value violates unique constraint/);
    assert.equal(isConnectionError(duplicate), false);

    const inTransaction = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO thread_items VALUES (101, ${null})`);
      })
      .catch((e) => e);
    assert.equal(rootCause(inTransaction).code, "23502");
    assert.equal(rootCause(inTransaction).column, "label");
    const missing = await database.db.execute(sql`SELECT * FROM no_such_table`).catch((e) => e);
    assert.equal(rootCause(missing).code, "42P01");
  });
});

/** The thread itself; PGlite whatever DATABASE_URL says, since the thread is PGlite's. */
describe("PGlite on its own thread", () => {
  let threaded: Database;
  let inline: Database;
  before(async () => {
    [threaded, inline] = await Promise.all([
      openDatabase({ pgliteThread: true }),
      openDatabase({ pgliteThread: false }),
    ]);
  });
  after(async () => Promise.all([threaded.close(), inline.close()]));

  it("returns what PGlite on the calling thread returns: types, fields, affected rows, errors", async () => {
    const statements = [
      sql`CREATE TABLE shapes (id bigint PRIMARY KEY, at timestamptz, day date, blob bytea, doc jsonb,
          tags text[], amount numeric, big int8, flag boolean, ratio float8, id2 uuid)`,
      sql`INSERT INTO shapes VALUES (9007199254740993, '2026-11-26 10:00:00+00', '2026-11-26', ${Buffer.from([0, 1, 255])},
          ${JSON.stringify({ a: [1, "x"], b: null })}, ARRAY[${"p"}, ${"q"}], 12.50, ${123n}, true, 0.25,
          '5b0c5d0e-0000-4000-8000-000000000001')`,
      sql`INSERT INTO shapes (id, blob, at) VALUES (2, ${new Uint8Array([7, 8])}, ${new Date("2026-01-02T03:04:05Z")})`,
      sql`UPDATE shapes SET flag = false`,
      sql`SELECT * FROM shapes ORDER BY id`,
    ];
    for (const statement of statements) {
      assert.deepEqual(await threaded.db.execute(statement), await inline.db.execute(statement));
    }
    const named = {
      name: "shapes_count",
      text: "SELECT count(*)::int AS n, $1::text AS echo",
      values: ["hi"],
    };
    assert.deepEqual(await threaded.run(named), await inline.run(named));
    // Drizzle's typed selects pass parsers (functions): applied on the calling side.
    const typed = sql`SELECT at, day, blob FROM shapes WHERE id = 2`;
    const [threadedRow] = await queryRows<{ at: unknown; blob: unknown }>(threaded.db, typed);
    const [inlineRow] = await queryRows<{ at: unknown; blob: unknown }>(inline.db, typed);
    assert.deepEqual(threadedRow, inlineRow);
    assert.ok(threadedRow?.blob instanceof Uint8Array);

    const failure = (db: Database) => db.db.execute(sql`INSERT INTO shapes (id) VALUES (2)`).catch((e) => e);
    const [threadedError, inlineError] = [
      rootCause(await failure(threaded)),
      rootCause(await failure(inline)),
    ];
    assert.ok(threadedError instanceof messages.DatabaseError);
    for (const field of [
      "code",
      "detail",
      "constraint",
      "table",
      "schema",
      "severity",
      "message",
      "routine",
    ]) {
      assert.equal(threadedError[field], inlineError[field], field);
    }
  });

  it("calls listen callbacks on NOTIFY and stops after unsubscribing", async () => {
    const database = threaded;
    const payloads: string[] = [];
    let notified!: () => void;
    let arrived = new Promise<void>((resolve) => (notified = resolve));
    const stop = await database.listen("thread_channel", () => {
      payloads.push("notified");
      notified();
    });
    await database.db.execute(sql`NOTIFY thread_channel`);
    await arrived;
    arrived = new Promise<void>((resolve) => (notified = resolve));
    await database.db.transaction(async (tx) => tx.execute(sql`NOTIFY thread_channel, 'in a transaction'`));
    await arrived;
    await stop();
    await database.db.execute(sql`NOTIFY thread_channel`);
    // A statement after the NOTIFY has been answered, so a notification would have arrived before it.
    await database.ping();
    assert.deepEqual(payloads, ["notified", "notified"]);
  });

  describe("the thread's lifetime", () => {
    let thread: PgliteThread;
    const start = { dataDir: undefined, sync: true, startParams: [], sessionSettings: [] };

    it("close() ends the thread, later calls fail as a closed database, and the data directory reopens", async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-thread-"));
      try {
        thread = await openPgliteThread({ ...start, dataDir });
        const exited = new Promise<number>((resolve) => thread.worker.once("exit", resolve));
        await thread.exec("CREATE TABLE kept (id int); INSERT INTO kept VALUES (42)");
        await thread.close();
        await exited;
        assert.equal(thread.closed, true);
        const late = await thread.query("SELECT 1").catch((e) => e);
        assert.equal(isConnectionError(late), true);
        // The existing directory opens without initdb.
        const reopened = await openDatabase({ dataDir, pgliteThread: true });
        assert.deepEqual(await queryRows(reopened.db, sql`SELECT id FROM kept`), [{ id: 42 }]);
        await reopened.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it("a thread that dies rejects the calls waiting on it and every later one", async () => {
      thread = await openPgliteThread(start);
      let began!: () => void;
      const inside = new Promise<void>((resolve) => (began = resolve));
      let died!: () => void;
      const afterDeath = new Promise<void>((resolve) => (died = resolve));
      const transaction = thread.transaction(async (tx) => {
        await tx.query("SELECT 1");
        began();
        await afterDeath;
        await tx.query("SELECT 2");
      });
      await inside;
      // Both wait behind the open transaction when the thread dies.
      const waiting = [thread.query("SELECT 3"), thread.exec("SELECT 4")];
      await thread.worker.terminate();
      died();
      for (const call of [...waiting, transaction]) {
        const error = await call.then(
          () => assert.fail("resolved after the thread died"),
          (e: unknown) => e as { code?: string },
        );
        assert.equal(error.code, "57P02");
        assert.equal(isConnectionError(error), true);
      }
      const later = await thread.query("SELECT 5").catch((e) => e);
      assert.equal(isConnectionError(later), true);
      await thread.close();
    });
  });
});

describe("PGLITE_THREAD", () => {
  it("is off unless set to on, and refuses other values", () => {
    assert.equal(loadConfig({}).pgliteThread, true);
    assert.equal(loadConfig({ PGLITE_THREAD: "on" }).pgliteThread, true);
    assert.equal(loadConfig({ PGLITE_THREAD: "off" }).pgliteThread, false);
    assert.throws(() => loadConfig({ PGLITE_THREAD: "yes" }), ConfigError);
  });
});
