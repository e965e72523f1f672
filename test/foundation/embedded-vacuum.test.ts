import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { type Database, openDatabase, queryOne, sql } from "../../src/db/database.ts";
import { startEmbeddedVacuum } from "../../src/db/embedded-vacuum.ts";
import { migrate } from "../../src/db/migrate.ts";

/** The embedded database's stand-in for autovacuum; PGlite whatever DATABASE_URL says, since it is PGlite's. */
describe("embedded vacuum (PGlite has no autovacuum)", () => {
  let database: Database;
  const orgId = "5b0c5d0e-0000-4000-8000-000000000001";

  before(async () => {
    database = await openDatabase({});
    await migrate(database.db);
    await database.db.execute(sql`INSERT INTO organizations (id, name) VALUES (${orgId}, 'Vacuum')`);
  });
  after(async () => database.close());

  /** What live events do to event_samples: 2 000 inserts, trimmed back to the newest 25. */
  async function churnSamples() {
    await database.db.execute(
      sql`INSERT INTO event_samples (org_id, id, event_type, envelope)
          SELECT ${orgId}::uuid, gen_random_uuid(), 'job.completed', jsonb_build_object('pad', repeat('x', 400))
          FROM generate_series(1, 2000)`,
    );
    await database.db.execute(
      sql`DELETE FROM event_samples WHERE id NOT IN
            (SELECT id FROM event_samples ORDER BY received_at DESC, id DESC LIMIT 25)`,
    );
  }
  const tableBytes = async () =>
    Number(
      (await queryOne<{ bytes: string }>(
        database.db,
        sql`SELECT pg_relation_size('event_samples') AS bytes`,
      ))!.bytes,
    );

  it("lets the space of trimmed rows be reused, where without it the table grows with every event", async () => {
    const vacuum = startEmbeddedVacuum({
      database,
      logger: pino({ level: "silent" }),
      intervalMs: 3_600_000,
    });
    try {
      await churnSamples();
      const afterFirstChurn = await tableBytes();
      await churnSamples();
      const unvacuumed = await tableBytes();
      assert.ok(
        unvacuumed > afterFirstChurn * 1.5,
        `without vacuum: ${afterFirstChurn} → ${unvacuumed} bytes`,
      );

      await vacuum.runOnce();
      await churnSamples();
      assert.equal(await tableBytes(), unvacuumed, "the next churn fits in the reclaimed space");
      const live = await queryOne<{ n: number }>(
        database.db,
        sql`SELECT count(*)::int AS n FROM event_samples`,
      );
      assert.equal(live!.n, 25);
    } finally {
      await vacuum.stop();
    }
  });

  it("runs one pass at a time, and a failed pass is logged, not thrown", async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: "warn" },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    let calls = 0;
    const failing = {
      run: async () => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error("disk full");
      },
    };
    const vacuum = startEmbeddedVacuum({ database: failing, logger, intervalMs: 3_600_000 });
    await Promise.all([vacuum.runOnce(), vacuum.runOnce()]);
    assert.equal(calls, 1, "a pass already running is joined, not doubled");
    assert.equal(lines.length, 1);
    assert.match(JSON.parse(lines[0]!).msg, /vacuum failed/);
    await vacuum.stop();
  });
});
