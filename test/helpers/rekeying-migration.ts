import assert from "node:assert/strict";
import { it } from "node:test";
import { type Queryable, queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { openTestDatabase } from "./harness.ts";
import { storedKeys } from "./stored-address-keys.ts";

/**
 * What the tests of a data migration re-keying stored addresses (0410-0470) share: a
 * database migrated to just before it, migrating up to it and no further (a later one must not
 * hide what this one does), and the cases every such migration must pass. Each test keeps its own
 * old keys and what they become.
 */
export function rekeyingMigration(version: string) {
  async function openBeforeRekey() {
    const all = await loadMigrations();
    return openTestDatabase({ migrations: all.filter((migration) => migration.version < version) });
  }

  async function migrateThroughRekey(db: Queryable) {
    const all = await loadMigrations();
    return migrate(
      db,
      all.filter((migration) => migration.version <= version),
    );
  }

  function itChangesNothingWithoutSuchKeys() {
    it("changes nothing on a database without such keys", async () => {
      const { database, drop } = await openBeforeRekey();
      try {
        await database.db.execute(
          sql`INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
              VALUES ('5 ELM ST, SPRINGFIELD IL 62704', '5 Elm St', 'Springfield', 'IL', '62704', 39.7, -89.6)`,
        );
        assert.deepEqual(await migrateThroughRekey(database.db), [version]);
        const reference = await queryRows<{ key: string }>(
          database.db,
          sql`SELECT normalized_address AS key FROM reference_addresses`,
        );
        assert.deepEqual(
          reference.map((row) => row.key),
          ["5 ELM ST, SPRINGFIELD IL 62704"],
        );
      } finally {
        await drop();
      }
    });
  }

  /** Two processes migrating the seeded database together: one run, and the merged rows `expected` counts. */
  function itAppliesOnceWhenTwoProcessesMigrate(
    seedOldKeys: (db: Queryable) => Promise<void>,
    expected: { customers: number; doNotMail: number },
  ) {
    it("is applied once when two processes migrate together", async () => {
      const { database, drop } = await openBeforeRekey();
      const db = database.db;
      try {
        await seedOldKeys(db);
        const runs = await Promise.all([migrateThroughRekey(db), migrateThroughRekey(db)]);
        assert.deepEqual(runs.flat(), [version]);
        const recorded = await queryRows<{ n: number }>(
          db,
          sql`SELECT count(*)::int AS n FROM schema_migrations WHERE version = ${version}`,
        );
        assert.equal(recorded[0]?.n, 1);
        const { customers, doNotMail } = await storedKeys(db);
        assert.deepEqual({ customers: customers.length, doNotMail: doNotMail.length }, expected);
      } finally {
        await drop();
      }
    });
  }

  return {
    openBeforeRekey,
    migrateThroughRekey,
    itChangesNothingWithoutSuchKeys,
    itAppliesOnceWhenTwoProcessesMigrate,
  };
}
