import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import pino from "pino";
import { systemClock } from "../../src/clock.ts";
import { createBackups } from "../../src/db/backups.ts";
import { openDatabase } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { TEST_DATABASE_URL } from "../helpers/harness.ts";

const silent = pino({ level: "silent" });

/** The embedded database's backups: registered in PGlite's pass only (PostgreSQL has none). */
const onPglite = TEST_DATABASE_URL === undefined ? describe : () => {};

onPglite("scheduled backups and what they keep", () => {
  const cleanup: string[] = [];
  after(() => {
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });
  /** A migrated embedded database in a folder of its own, removed after the suite. */
  const migratedDatabase = async (name: string) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), `porchlight-${name}-`));
    cleanup.push(dataDir);
    const database = await openDatabase({ dataDir });
    await migrate(database.db);
    return { dataDir, database };
  };

  test("keeps the newest BACKUP_KEEP backups and records a failed one for the operator", async () => {
    const { dataDir: keepDir, database } = await migratedDatabase("keep");
    const backups = createBackups({
      database,
      dataDir: keepDir,
      clock: systemClock,
      logger: silent,
      intervalHours: 24,
      keep: 1,
    });
    try {
      const made = [];
      for (let i = 0; i < 2; i++) made.push(await backups.create());
      const listing = await backups.list();
      assert.deepEqual(
        listing.backups.map((backup) => backup.file),
        [made[1]!.file],
      );
      assert.deepEqual(
        readdirSync(path.join(keepDir, "backups")).length,
        2,
        "the newest backup and its .sha256",
      );
      // A backups folder that cannot be written: the failure is logged and shown.
      rmSync(path.join(keepDir, "backups"), { recursive: true });
      writeFileSync(path.join(keepDir, "backups"), "not a folder");
      await assert.rejects(backups.create());
      const failed = await backups.list().catch(() => undefined);
      assert.equal(failed, undefined, "listing a backups path that is a file fails");
      rmSync(path.join(keepDir, "backups"));
      const after = await backups.list();
      assert.equal(after.last_failure?.scheduled, false);
      assert.match(after.last_failure?.reason ?? "", /EEXIST|ENOTDIR/);
      assert.deepEqual(backups.failures(), { scheduled: 0, requested: 1 });
    } finally {
      await backups.stop();
      await database.close();
    }
  });

  test("a scheduled backup that fails is logged, listed and counted, and tried again", async () => {
    const { dataDir: failingDir, database } = await migratedDatabase("failing");
    const lines: { level: number; msg: string; scheduled?: boolean }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    // The backups folder is a file: every backup fails until it is a folder again.
    writeFileSync(path.join(failingDir, "backups"), "not a folder");
    const backups = createBackups({
      database,
      dataDir: failingDir,
      clock: systemClock,
      logger,
      intervalHours: 1,
      keep: 7,
      intervalMs: 60_000,
      firstAfterMs: 200,
    });
    try {
      backups.startSchedule();
      const deadline = Date.now() + 120_000;
      while (backups.failures().scheduled === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(backups.failures(), { scheduled: 1, requested: 0 });
      const logged = lines.find((line) => line.msg === "backup failed");
      assert.equal(logged?.level, 50, "an error line");
      assert.equal(logged?.scheduled, true);
      rmSync(path.join(failingDir, "backups"));
      const listing = await backups.list();
      assert.equal(listing.last_failure?.scheduled, true);
      assert.match(listing.last_failure?.reason ?? "", /EEXIST|ENOTDIR/);
      // Another try is scheduled (within the hour; here, the test's one-minute interval).
      const nextIn = Date.parse(listing.schedule.next_at!) - Date.now();
      assert.ok(nextIn > 0 && nextIn <= 60_000, `next try in ${nextIn} ms`);
    } finally {
      await backups.stop();
      await database.close();
    }
  });

  test("the schedule takes a backup when one is due and says when the next is", async () => {
    const { dataDir: scheduledDir, database } = await migratedDatabase("scheduled");
    const backups = createBackups({
      database,
      dataDir: scheduledDir,
      clock: systemClock,
      logger: silent,
      intervalHours: 1,
      keep: 7,
      intervalMs: 60_000,
      firstAfterMs: 200,
    });
    try {
      backups.startSchedule();
      const deadline = Date.now() + 120_000;
      let listing = await backups.list();
      while ((listing.backups.length === 0 || listing.schedule.next_at === null) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        listing = await backups.list();
      }
      assert.equal(listing.backups.length, 1);
      const nextIn = Date.parse(listing.schedule.next_at!) - Date.now();
      assert.ok(nextIn > 0 && nextIn <= 60_000, `next backup in ${nextIn} ms`);
    } finally {
      await backups.stop();
      await database.close();
    }
  });
});
