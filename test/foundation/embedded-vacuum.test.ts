import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { type Database, openDatabase, queryOne, sql } from "../../src/db/database.ts";
import { needsAnalyze, startEmbeddedVacuum } from "../../src/db/embedded-vacuum.ts";
import { migrate } from "../../src/db/migrate.ts";

/** The embedded database's stand-in for autovacuum; PGlite whatever DATABASE_URL says, since it is PGlite's. */
describe("embedded vacuum (PGlite has no autovacuum)", () => {
  let database: Database;
  const orgId = "5b0c5d0e-0000-4000-8000-000000000001";

  before(async () => {
    database = await openDatabase({});
    await migrate(database.db);
    await database.db.execute(sql`INSERT INTO organizations (id, name) VALUES (${orgId}, 'Vacuum')`);
    // A table shaped like a tenant table that is written and trimmed all day (the webhook log,
    // the jobs table), churned here directly.
    await database.db.execute(sql`CREATE TABLE churn (org_id uuid NOT NULL, id uuid NOT NULL,
      payload jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (org_id, id))`);
  });
  after(async () => database.close());

  /** 2 000 inserts, trimmed back to the newest 25. */
  async function churnRows() {
    await database.db.execute(
      sql`INSERT INTO churn (org_id, id, payload)
          SELECT ${orgId}::uuid, gen_random_uuid(), jsonb_build_object('pad', repeat('x', 400))
          FROM generate_series(1, 2000)`,
    );
    await database.db.execute(
      sql`DELETE FROM churn WHERE id NOT IN (SELECT id FROM churn ORDER BY at DESC, id DESC LIMIT 25)`,
    );
  }
  const tableBytes = async () =>
    Number(
      (await queryOne<{ bytes: string }>(database.db, sql`SELECT pg_relation_size('churn') AS bytes`))!.bytes,
    );

  it("lets the space of trimmed rows be reused, where without it the table grows with every event", async () => {
    const vacuum = startEmbeddedVacuum({
      database,
      logger: pino({ level: "silent" }),
      intervalMs: 3_600_000,
    });
    try {
      await churnRows();
      const afterFirstChurn = await tableBytes();
      await churnRows();
      const unvacuumed = await tableBytes();
      assert.ok(
        unvacuumed > afterFirstChurn * 1.5,
        `without vacuum: ${afterFirstChurn} → ${unvacuumed} bytes`,
      );

      await vacuum.runOnce();
      await churnRows();
      // Not equal: VACUUM also truncates empty pages at the table's end (which pages the 25
      // survivors sit on is random), so the table may end smaller, never larger.
      const reused = await tableBytes();
      assert.ok(
        reused <= unvacuumed,
        `the next churn fits in the reclaimed space: ${reused} > ${unvacuumed}`,
      );
      const live = await queryOne<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM churn`);
      assert.equal(live!.n, 25);
    } finally {
      await vacuum.stop();
    }
  });

  it("vacuums table by table, and analyzes again only the tables that grew or shrank past the threshold", async () => {
    const statements: string[] = [];
    const recording: Pick<Database, "run"> = {
      run: (statement) => {
        statements.push(statement.text);
        return database.run(statement);
      },
    };
    const vacuum = startEmbeddedVacuum({
      database: recording,
      logger: pino({ level: "silent" }),
      intervalMs: 3_600_000,
    });
    const commands = (verb: string) => statements.filter((text) => text.startsWith(`${verb} `));
    try {
      await vacuum.runOnce();
      assert.ok(commands("VACUUM").includes('VACUUM "churn"'));
      assert.ok(commands("VACUUM").includes('VACUUM "mail_pieces"'));
      assert.equal(commands("ANALYZE").length, commands("VACUUM").length, "first pass: every table analyzed");
      assert.ok(
        !statements.some((text) => /^VACUUM \(|^VACUUM$/.test(text)),
        "never one database-wide statement",
      );

      statements.length = 0;
      await vacuum.runOnce();
      assert.ok(commands("VACUUM").length > 0);
      assert.deepEqual(commands("ANALYZE"), [], "nothing changed: nothing analyzed");

      statements.length = 0;
      await churnRows(); // 2 000 rows in, back to 25: far past 50 + 10 % of the estimate
      await database.db.execute(
        sql`INSERT INTO churn (org_id, id, payload)
            SELECT ${orgId}::uuid, gen_random_uuid(), '{}'::jsonb FROM generate_series(1, 500)`,
      );
      await vacuum.runOnce();
      assert.deepEqual(commands("ANALYZE"), ['ANALYZE "churn"']);
    } finally {
      await vacuum.stop();
    }
  });

  it("uses autovacuum's analyze threshold: 50 rows plus 10 % of the table", () => {
    assert.equal(needsAnalyze(undefined, 0), true);
    assert.equal(needsAnalyze(1000, 1150), false);
    assert.equal(needsAnalyze(1000, 1151), true);
    assert.equal(needsAnalyze(1000, 849), true);
    assert.equal(needsAnalyze(0, 50), false);
    assert.equal(needsAnalyze(0, 51), true);
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
