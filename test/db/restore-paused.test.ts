/**
 * A backup's jobs run again at the restored server's first start, among them cards that were on
 * their way to print and were printed after the backup: a restore of such a backup starts with
 * automations paused, and says why and how to resume. One without such cards starts as it was.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createKillSwitch } from "../../src/automations/kill-switch.ts";
import { systemClock } from "../../src/clock.ts";
import { DATA_DIR_LOCK_FILE, RESTORE_MARKER_FILE } from "../../src/db/data-dir-lock.ts";
import { openDatabase, queryOne, sql } from "../../src/db/database.ts";
import { restoreBackup } from "../../src/db/restore.ts";
import { processPieceJob } from "../../src/jobs/kinds.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { runRestore, takeBackup } from "./restore-helpers.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "porchlight-restore-paused-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
const newDir = (label: string) => {
  const dir = path.join(scratch, `${label}-${++counter}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
};

/** A backup holding `cardsOnTheirWay` cards' jobs still to run. */
const backupWith = (cardsOnTheirWay: number) =>
  takeBackup(newDir("source"), async (db) => {
    const orgId = randomUUID();
    for (let card = 0; card < cardsOnTheirWay; card++) {
      await enqueueJob(
        db,
        processPieceJob,
        { org_id: orgId, piece_id: randomUUID() },
        { orgId, now: new Date() },
      );
    }
  });

async function pausedIn(dataDir: string): Promise<boolean> {
  const database = await openDatabase({ dataDir, embeddedSync: false });
  try {
    return await createKillSwitch({ db: database.db, clock: systemClock }).isPaused();
  } finally {
    await database.close();
  }
}

describe("a restore of a backup that held cards on their way to print", () => {
  test("starts with automations paused and says how many cards to look at before resuming", async () => {
    const dataDir = newDir("restored");
    const restored = await runRestore(await backupWith(2), dataDir);
    assert.equal(restored.status, 0, restored.stderr);
    assert.match(
      restored.stdout,
      /^Automations are paused in the restored database: 2 cards were on the way to print when the backup was taken, and may have been printed since\. .*PUT \/admin\/v1\/kill-switch \{"paused": false\}/m,
    );
    assert.equal(await pausedIn(dataDir), true);
  });

  test("a backup without such cards restores with automations running", async () => {
    const dataDir = newDir("restored");
    const restored = await runRestore(await backupWith(0), dataDir);
    assert.equal(restored.status, 0, restored.stderr);
    assert.doesNotMatch(restored.stdout, /Automations are paused/);
    assert.equal(await pausedIn(dataDir), false);
  });

  test("prepare (where the pause is written) runs in the restore's one open, DATA_DIR still locked and marked", async () => {
    const dataDir = newDir("restored");
    const summary = await restoreBackup({
      file: await backupWith(1),
      dataDir,
      prepare: async (db) => ({
        locked: existsSync(path.join(dataDir, DATA_DIR_LOCK_FILE)),
        marked: existsSync(path.join(dataDir, RESTORE_MARKER_FILE)),
        jobs: (await queryOne<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM jobs`))?.n,
      }),
    });
    assert.deepEqual(summary.prepared, { locked: true, marked: true, jobs: 1 });
    assert.equal(summary.counts.jobs, 1);
    assert.equal(existsSync(path.join(dataDir, RESTORE_MARKER_FILE)), false, "the marker goes after it");
  });
});
