import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const FRAGMENT_MIGRATION = "0092_subscriptions_without_fragment";

describe(`subscriptions: migration dropping stored #fragments (${databaseLabel})`, () => {
  it("keeps one subscription per URL (the plain one, else the oldest), without its fragment", async () => {
    const all = await loadMigrations();
    const { database, drop } = await openTestDatabase({
      migrations: all.filter((migration) => migration.version < FRAGMENT_MIGRATION),
    });
    try {
      const orgId = randomUUID();
      const otherOrg = randomUUID();
      await database.db.execute(
        sql`INSERT INTO organizations (id, name) VALUES (${orgId}, 'Frag'), (${otherOrg}, 'Other')`,
      );
      const rows: [string, string, string, string][] = [
        // A plain URL and two variants: the plain one stays.
        [orgId, "plain", "https://a.example/hook", "2026-11-01T00:00:03Z"],
        [orgId, "a-crm", "https://a.example/hook#crm", "2026-11-01T00:00:01Z"],
        [orgId, "a-empty", "https://a.example/hook#", "2026-11-01T00:00:02Z"],
        // Variants only: the oldest stays, without its fragment.
        [orgId, "b-new", "https://b.example/hook#two", "2026-11-01T00:00:05Z"],
        [orgId, "b-old", "https://b.example/hook#one", "2026-11-01T00:00:04Z"],
        // Another org's variant is its own.
        [otherOrg, "other", "https://a.example/hook#crm", "2026-11-01T00:00:01Z"],
      ];
      const ids = new Map(rows.map(([, name]) => [name, randomUUID()]));
      for (const [org, name, url, createdAt] of rows) {
        await database.db.execute(
          sql`INSERT INTO subscriptions (org_id, id, target_url, signing_secret, created_at)
              VALUES (${org}::uuid, ${ids.get(name)}::uuid, ${url}, 'secret', ${createdAt}::timestamptz)`,
        );
      }
      await migrate(database.db);
      const left = await queryRows<{ id: string; target_url: string }>(
        database.db,
        sql`SELECT id, target_url FROM subscriptions ORDER BY target_url, id`,
      );
      const byId = new Map(left.map((row) => [row.id, row.target_url]));
      assert.equal(left.length, 3);
      assert.equal(byId.get(ids.get("plain")!), "https://a.example/hook");
      assert.equal(byId.get(ids.get("b-old")!), "https://b.example/hook");
      assert.equal(byId.get(ids.get("other")!), "https://a.example/hook");
    } finally {
      await drop();
    }
  });
});
