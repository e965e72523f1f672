import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { createPreparedQuery } from "../../src/db/pglite-prepared.ts";
import { signal } from "../helpers/signal.ts";

/** The embedded driver's prepared-statement path, against a real in-memory PGlite. */
async function withPglite(work: (client: PGlite) => Promise<void>) {
  const client = new PGlite();
  await client.waitReady;
  try {
    await work(client);
  } finally {
    await client.close();
  }
}

const preparedNames = async (client: PGlite) =>
  (await client.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name")).rows.map(
    (row) => row.name,
  );

describe("PGlite prepared statements", () => {
  it("answers exactly as PGlite's own query does, for every parameter and column type we use", async () => {
    await withPglite(async (client) => {
      const query = createPreparedQuery(client);
      await client.exec(
        "CREATE TABLE t (id uuid PRIMARY KEY, tags text[], doc jsonb, at timestamptz, n int, note text)",
      );
      const insert = "INSERT INTO t VALUES ($1, $2, $3::jsonb, $4, $5, $6) RETURNING id";
      const id = "7b1f6f2e-8c1d-4f55-9a57-0c5e2b8f1a10";
      const at = new Date("2026-11-22T12:00:00.123Z");
      const inserted = await query<{ id: string }>(insert, [id, ["a", "b,c"], '{"k":[1,2]}', at, 7, null]);
      assert.deepEqual(inserted.rows, [{ id }]);
      assert.equal(inserted.affectedRows, 1);

      const select = "SELECT * FROM t WHERE id = $1 AND n = ANY($2::int[])";
      const ours = await query(select, [id, [7, 8]]);
      const theirs = await client.query(select, [id, [7, 8]]);
      assert.deepEqual(ours.rows, theirs.rows);
      assert.deepEqual(ours.rows, [{ id, tags: ["a", "b,c"], doc: { k: [1, 2] }, at, n: 7, note: null }]);

      const asArrays = await query("SELECT n, note FROM t", [], { rowMode: "array" });
      assert.deepEqual(asArrays.rows, [[7, null]]);
      const rawTimestamp = await query<{ at: string }>("SELECT at FROM t", [], {
        parsers: { 1184: (value: string) => value },
      });
      assert.equal(typeof rawTimestamp.rows[0]!.at, "string");
    });
  });

  it("parses a statement once and reuses it, closing the least recently used beyond its capacity", async () => {
    await withPglite(async (client) => {
      const query = createPreparedQuery(client, 2);
      for (let round = 0; round < 3; round++) await query("SELECT $1::int AS one", [1]);
      assert.deepEqual(await preparedNames(client), ["porchlight_1"]);

      await query("SELECT $1::int AS two", [2]);
      await query("SELECT $1::int AS one", [1]); // now the most recent
      await query("SELECT $1::int AS three", [3]); // evicts "two"
      assert.deepEqual(await preparedNames(client), ["porchlight_1", "porchlight_3"]);
      assert.deepEqual((await query("SELECT $1::int AS two", [2])).rows, [{ two: 2 }]);
    });
  });

  it("prepares again when a table it reads changes shape", async () => {
    await withPglite(async (client) => {
      const query = createPreparedQuery(client);
      await client.exec("CREATE TABLE shape (a int); INSERT INTO shape VALUES (1)");
      assert.deepEqual((await query("SELECT * FROM shape")).rows, [{ a: 1 }]);
      await client.exec("ALTER TABLE shape ADD COLUMN b text DEFAULT 'x'");
      assert.deepEqual((await query("SELECT * FROM shape")).rows, [{ a: 1, b: "x" }]);
    });
  });

  it("rejects with PostgreSQL's error and keeps working afterwards", async () => {
    await withPglite(async (client) => {
      const query = createPreparedQuery(client);
      await client.exec("CREATE TABLE u (k text PRIMARY KEY)");
      await query("INSERT INTO u VALUES ($1)", ["once"]);
      await assert.rejects(query("INSERT INTO u VALUES ($1)", ["once"]), { code: "23505" });
      await assert.rejects(query("SELECT nope FROM u"), { code: "42703" });
      assert.deepEqual((await query("SELECT count(*)::int AS n FROM u")).rows, [{ n: 1 }]);
    });
  });

  it("never runs inside a transaction another caller has open", async () => {
    await withPglite(async (client) => {
      const query = createPreparedQuery(client);
      await client.exec("CREATE TABLE v (k int)");
      const held = signal();
      const insertedInTransaction = signal();
      const transaction = client.transaction(async (tx) => {
        await tx.query("INSERT INTO v VALUES (1)");
        insertedInTransaction.fire();
        await held.done;
        await tx.rollback();
      });
      await insertedInTransaction.done;
      let answered = false;
      const count = query<{ n: number }>("SELECT count(*)::int AS n FROM v").then((result) => {
        answered = true;
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(answered, false, "the statement waited for the open transaction");
      held.fire();
      await transaction;
      assert.deepEqual((await count).rows, [{ n: 0 }], "it saw the rolled-back insert undone, not inside it");
    });
  });

  it("refuses once the database is closed, with the message callers treat as unavailable", async () => {
    const client = new PGlite();
    await client.waitReady;
    const query = createPreparedQuery(client);
    await client.close();
    await assert.rejects(query("SELECT 1"), /PGlite is closed/);
  });
});
