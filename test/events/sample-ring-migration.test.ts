import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import pino from "pino";
import { queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { createTriggerStore } from "../../src/trigger/trigger-store.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const RING_MIGRATION = "0060_event_sample_slots";

describe(`event samples: migration to the ring of 25 slots (${databaseLabel})`, () => {
  it("keeps each type's newest 25, numbered oldest first, and the next event overwrites the oldest", async () => {
    const all = await loadMigrations();
    const before = all.filter((migration) => migration.version < RING_MIGRATION);
    const { database, drop } = await openTestDatabase({ migrations: before });
    try {
      const orgId = randomUUID();
      await database.db.execute(sql`INSERT INTO organizations (id, name) VALUES (${orgId}, 'Ring')`);
      // The old shape: 30 samples of one type (5 over the limit, as a trim racing a burst left
      // them), 3 of another.
      await database.db.execute(
        sql`INSERT INTO event_samples (org_id, id, event_type, envelope, received_at)
            SELECT ${orgId}::uuid, gen_random_uuid(), 'job.completed', jsonb_build_object('n', n),
                   timestamptz '2026-11-01T00:00:00Z' + n * interval '1 minute'
            FROM generate_series(1, 30) AS n
            UNION ALL
            SELECT ${orgId}::uuid, gen_random_uuid(), 'deal.won', jsonb_build_object('n', n),
                   timestamptz '2026-11-01T00:00:00Z' + n * interval '1 minute'
            FROM generate_series(1, 3) AS n`,
      );
      assert.deepEqual(
        await migrate(database.db),
        all.filter((migration) => migration.version >= RING_MIGRATION).map((migration) => migration.version),
      );

      const ring = await queryRows<{ slot: number; n: number }>(
        database.db,
        sql`SELECT slot, (envelope->>'n')::int AS n FROM event_samples
            WHERE org_id = ${orgId} AND event_type = 'job.completed' ORDER BY slot`,
      );
      assert.deepEqual(
        ring.map((row) => row.n),
        Array.from({ length: 25 }, (_, index) => index + 6),
        "the newest 25, oldest in slot 0",
      );
      const cursors = await queryRows<{ event_type: string; next_slot: number }>(
        database.db,
        sql`SELECT event_type, next_slot FROM event_sample_cursors WHERE org_id = ${orgId} ORDER BY event_type`,
      );
      assert.deepEqual(cursors, [
        { event_type: "deal.won", next_slot: 3 },
        { event_type: "job.completed", next_slot: 0 },
      ]);

      const store = createTriggerStore({ database, logger: pino({ level: "silent" }) });
      const newest = {
        orgId,
        id: randomUUID(),
        eventType: "job.completed",
        envelope: { n: 31 },
        receivedAt: new Date("2026-11-02T00:00:00Z"),
      };
      await store.write({ sample: newest, enqueues: [] });
      await store.flushSamples();
      const after = await queryRows<{ slot: number; n: number }>(
        database.db,
        sql`SELECT slot, (envelope->>'n')::int AS n FROM event_samples
            WHERE org_id = ${orgId} AND event_type = 'job.completed' ORDER BY slot`,
      );
      assert.equal(after.length, 25);
      assert.deepEqual(after[0], { slot: 0, n: 31 }, "the oldest (n = 6) made room");
      assert.equal(Math.min(...after.map((row) => row.n)), 7);
    } finally {
      await drop();
    }
  });
});
