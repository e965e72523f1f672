import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { type Database, queryRows, sql } from "../../src/db/database.ts";
import * as schema from "../../src/db/schema.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

/** The drizzle definitions mirror the migrations: a column drizzle knows is one the database has. */
describe(`drizzle's tables match the migrated database (${databaseLabel})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  before(async () => ({ database, drop } = await openTestDatabase()));
  after(async () => drop());

  const tables: PgTable[] = Object.values(schema as Record<string, unknown>).filter((value) =>
    is(value, PgTable),
  );

  it("defines tables at all", () => assert.ok(tables.length >= 20, `only ${tables.length} tables found`));

  it("has every defined column, with the same nullability", async () => {
    const rows = await queryRows<{ table_name: string; column_name: string; is_nullable: string }>(
      database.db,
      sql`SELECT table_name, column_name, is_nullable FROM information_schema.columns
          WHERE table_schema = current_schema()`,
    );
    const inDatabase = new Map(
      rows.map((row) => [`${row.table_name}.${row.column_name}`, row.is_nullable === "YES"]),
    );
    const drift: string[] = [];
    for (const table of tables) {
      const { name, columns } = getTableConfig(table);
      for (const column of columns) {
        const key = `${name}.${column.name}`;
        const nullable = inDatabase.get(key);
        if (nullable === undefined) drift.push(`${key} is missing`);
        else if (nullable !== !column.notNull)
          drift.push(`${key} is ${nullable ? "nullable" : "NOT NULL"} in the database`);
      }
    }
    assert.deepEqual(drift, []);
  });

  it("allows exactly the piece statuses the code knows (mail_pieces_status_check)", async () => {
    const rows = await queryRows<{ definition: string }>(
      database.db,
      sql`SELECT pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attname = 'status'
          WHERE c.conrelid = 'mail_pieces'::regclass AND c.contype = 'c' AND c.conkey = ARRAY[a.attnum]`,
    );
    assert.equal(rows.length, 1, `one CHECK on mail_pieces.status, found ${rows.length}`);
    // CHECK ((status = ANY (ARRAY['queued'::text, …]))): the quoted literals are the statuses.
    const allowed = [...rows[0]!.definition.matchAll(/'([^']*)'/g)].map((match) => match[1]);
    assert.deepEqual([...allowed].sort(), [...schema.PIECE_STATUSES].sort());
  });
});
