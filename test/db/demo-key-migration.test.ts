import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const DEMO_KEY_MIGRATION = "0390_demo_api_key";

describe(`api_keys: migration marking the first start's demo key (${databaseLabel})`, () => {
  it("marks the demo organization's key named 'demo', and no other key", async () => {
    const all = await loadMigrations();
    const { database, drop } = await openTestDatabase({
      migrations: all.filter((migration) => migration.version < DEMO_KEY_MIGRATION),
    });
    try {
      const demoOrg = randomUUID();
      const contractor = randomUUID();
      await database.db.execute(
        sql`INSERT INTO organizations (id, name) VALUES (${demoOrg}, 'Demo Contractor'), (${contractor}, 'Rita''s Roofing')`,
      );
      const keys: [string, string, string][] = [
        [demoOrg, "first-start", "demo"],
        [demoOrg, "theirs", "CRM"],
        [contractor, "named-demo", "demo"],
      ];
      const ids = new Map(keys.map(([, label]) => [label, randomUUID()]));
      for (const [org, label, name] of keys) {
        await database.db.execute(
          sql`INSERT INTO api_keys (org_id, id, name, key_hash)
              VALUES (${org}::uuid, ${ids.get(label)}::uuid, ${name}, ${`hash-${label}`})`,
        );
      }
      await migrate(database.db);
      const rows = await queryRows<{ id: string; demo: boolean }>(
        database.db,
        sql`SELECT id, demo FROM api_keys`,
      );
      const demoOf = new Map(rows.map((row) => [row.id, row.demo]));
      assert.equal(demoOf.get(ids.get("first-start")!), true);
      assert.equal(demoOf.get(ids.get("theirs")!), false);
      assert.equal(demoOf.get(ids.get("named-demo")!), false, "another organization's key named demo");
    } finally {
      await drop();
    }
  });
});
