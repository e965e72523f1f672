import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import pino from "pino";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { pruneFinishedJobs, startJobPruning } from "../../src/jobs/pruning.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const NOW = new Date("2026-11-25T12:00:00Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

describe(`pruning of finished jobs (${databaseLabel})`, () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  before(async () => {
    opened = await openTestDatabase();
  });
  after(async () => opened.drop());
  beforeEach(async () => {
    await opened.database.db.execute(sql`DELETE FROM jobs`);
  });

  async function insertJobs(count: number, status: string, updatedAt: Date, label: string) {
    await opened.database.db.execute(sql`
      INSERT INTO jobs (id, kind, payload, status, attempts, run_at, created_at, updated_at)
      SELECT gen_random_uuid(), 'process_piece', jsonb_build_object('label', ${label}::text, 'n', n),
             ${status}, 1, ${updatedAt.toISOString()}::timestamptz,
             ${updatedAt.toISOString()}::timestamptz, ${updatedAt.toISOString()}::timestamptz
      FROM generate_series(1, ${count}::int) AS n`);
  }

  const remaining = async () =>
    Object.fromEntries(
      (
        await queryRows<{ label: string; count: number }>(
          opened.database.db,
          sql`SELECT payload->>'label' AS label, count(*)::int AS count FROM jobs GROUP BY 1`,
        )
      ).map((row) => [row.label, row.count]),
    );

  it("deletes done jobs after 7 days and failed ones after 30, in batches, and never unfinished ones", async () => {
    await insertJobs(250, "done", daysAgo(8), "old done");
    await insertJobs(3, "done", daysAgo(6), "recent done");
    await insertJobs(120, "failed", daysAgo(31), "old failed");
    await insertJobs(4, "failed", daysAgo(8), "recent failed");
    await insertJobs(5, "pending", daysAgo(40), "old pending");
    await insertJobs(2, "running", daysAgo(40), "old running");

    const deleted = await pruneFinishedJobs(opened.database.db, NOW, { batchSize: 100 });

    assert.equal(deleted, 370);
    assert.deepEqual(await remaining(), {
      "recent done": 3,
      "recent failed": 4,
      "old pending": 5,
      "old running": 2,
    });
    assert.equal(
      await pruneFinishedJobs(opened.database.db, NOW, { batchSize: 100 }),
      0,
      "nothing left to prune",
    );
  });

  it("keeps a job finished exactly at its cutoff and deletes it a millisecond later", async () => {
    await insertJobs(1, "done", daysAgo(7), "at cutoff");
    assert.equal(await pruneFinishedJobs(opened.database.db, NOW), 0);
    assert.equal(await pruneFinishedJobs(opened.database.db, new Date(NOW.getTime() + 1)), 1);
    assert.deepEqual(await remaining(), {});
  });

  it("runs as a timer in worker processes, logging what it deleted, and stops cleanly", async () => {
    await insertJobs(10, "done", daysAgo(9), "old done");
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    const pruning = startJobPruning(
      { db: opened.database.db, clock: fixedClock(NOW.toISOString()), logger },
      { firstPassAfterMs: 0 },
    );
    try {
      for (let wait = 0; wait < 200 && !lines.some((line) => line.includes("pruned")); wait++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      await pruning.stop();
    }
    assert.deepEqual(await remaining(), {});
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg?.includes("pruned"));
    assert.equal(logged?.deleted, 10);
  });

  it("two pruners at once (two worker processes) delete each job once and fail neither", async () => {
    await insertJobs(300, "done", daysAgo(10), "old done");
    const [first, second] = await Promise.all([
      pruneFinishedJobs(opened.database.db, NOW, { batchSize: 50 }),
      pruneFinishedJobs(opened.database.db, NOW, { batchSize: 50 }),
    ]);
    assert.equal(first + second, 300);
    assert.deepEqual(await remaining(), {});
  });
});
