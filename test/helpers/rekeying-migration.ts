import assert from "node:assert/strict";
import { it } from "node:test";
import { zipTownKey } from "../../src/db/data-migration-0530-zip-town-keys.ts";
import { ordinalStreetKey } from "../../src/db/data-migration-0540-ordinal-street-keys.ts";
import { type Queryable, queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { openTestDatabase } from "./harness.ts";
import { type StoredKeys, storedKeys } from "./stored-address-keys.ts";

/**
 * What the tests of a data migration re-keying stored addresses (0410-0490) share: a
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

  /**
   * The migration applied to the seeded database: every table holds `expected` (each list in any
   * order), each text of `keyedToday` keys today as the migration stored it, and a second run
   * changes nothing.
   */
  function itRekeysEveryTable(
    seedOldKeys: (db: Queryable) => Promise<void>,
    expected: StoredKeys,
    keyedToday: Record<string, string>,
  ) {
    it("re-keys each old form in every table, keeps one row where the new key was taken, and leaves other keys", async () => {
      const { database, drop } = await openBeforeRekey();
      const db = database.db;
      try {
        await seedOldKeys(db);
        assert.deepEqual(await migrateThroughRekey(db), [version]);
        const keys = await storedKeys(db);
        const inOrder = Object.fromEntries(
          Object.entries(expected).map(([table, rows]) => [table, [...rows].sort()]),
        );
        assert.deepEqual(keys, inOrder);
        for (const [text, key] of Object.entries(keyedToday))
          assert.equal(normalizeAddress(text), keyAfterLaterMoves(key), text);
        assert.deepEqual(await migrateThroughRekey(db), [], "a second run applies nothing");
        assert.deepEqual(await storedKeys(db), keys);
      } finally {
        await drop();
      }
    });
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
    itRekeysEveryTable,
    itChangesNothingWithoutSuchKeys,
    itAppliesOnceWhenTwoProcessesMigrate,
  };
}

/**
 * A key as today's service writes it, once the later migrations have moved it too: 0530 names the
 * ZIP's town and 0540 writes ordinals in figures (the migrations before them keep both as written).
 */
function keyAfterLaterMoves(key: string): string {
  const town = zipTownKey(key) ?? key;
  return ordinalStreetKey(town) ?? town;
}
