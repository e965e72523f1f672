/**
 * `npm run db:restore -- FILE`: restores a backup of the embedded database (POST /admin/v1/backups
 * or the scheduled ones, under DATA_DIR/backups/) into an empty DATA_DIR (docs/operations.md,
 * Backups). Every refusal is one line on stderr and exit status 1. Stopped by Ctrl-C (SIGINT) or
 * SIGTERM it exits at once, as a kill would, and says what it left: a DATA_DIR that the server
 * refuses and that running it again recovers.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { createKillSwitch } from "../src/automations/kill-switch.ts";
import { systemClock } from "../src/clock.ts";
import { ConfigError, dataDirIsDefault, loadConfig } from "../src/config.ts";
import {
  DataDirInUseError,
  DataDirUnusableError,
  InterruptedRestoreError,
  RESTORE_MARKER_FILE,
} from "../src/db/data-dir-lock.ts";
import { type Queryable, queryOne, sql } from "../src/db/database.ts";
import { RestoreRefused, restoreBackup } from "../src/db/restore.ts";
import { dataDirNamed, missingDefaultDataDir } from "../src/db/tool-data-dir.ts";
import { processPieceJob } from "../src/jobs/kinds.ts";

/** What a restore stopped now leaves in DATA_DIR, in one line. */
function stoppedLine(signal: NodeJS.Signals, file: string, dataDir: string): string {
  if (!existsSync(path.join(dataDir, RESTORE_MARKER_FILE))) {
    return `db:restore stopped (${signal}): DATA_DIR ${dataDir} holds no partial restore`;
  }
  return `db:restore stopped (${signal}): ${new InterruptedRestoreError(dataDir, file).message}`;
}

/** Ctrl-C or SIGTERM: out at once (the steps are not undone; the marker tells the next run what to clear). */
function exitOnStopSignals(file: string, dataDir: string): void {
  for (const [signal, status] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`${stoppedLine(signal, file, dataDir)}\n`);
      process.exit(status);
    });
  }
}

async function main() {
  process.umask(0o077);
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    throw new RestoreRefused(
      "usage: npm run db:restore -- FILE (a backup's .tar.gz; DATA_DIR names where it goes)",
    );
  }
  const config = loadConfig();
  if (config.databaseUrl) {
    throw new RestoreRefused(
      "db:restore restores the embedded database into DATA_DIR: unset DATABASE_URL (a PostgreSQL database is restored with pg_restore)",
    );
  }
  const defaulted = dataDirIsDefault();
  const missing = missingDefaultDataDir(
    config.dataDir,
    defaulted,
    "set DATA_DIR to the directory the restored server will start on, e.g. DATA_DIR=/srv/porchlight/data-restored npm run db:restore -- FILE",
  );
  if (missing) throw new RestoreRefused(missing);
  const file = path.resolve(args[0]!);
  exitOnStopSignals(file, path.resolve(config.dataDir));
  const { manifest, fileChecksumChecked, counts, clearedInterruptedRestore, prepared } = await restoreBackup({
    file,
    dataDir: config.dataDir,
    prepare: pauseIfCardsWaited,
  });
  const print = (line: string) => process.stdout.write(`${line}\n`);
  // First, where it went (absolute, and whether DATA_DIR was only the default). Nothing is printed
  // before: a refusal stays its one line on stderr.
  print(
    `Restored ${file} (taken ${manifest.created_at}, PGlite ${manifest.pglite_version}, PostgreSQL ${manifest.postgres_version}, schema ${manifest.schema_version ?? "empty"}) into ${dataDirNamed(config.dataDir, defaulted)}.`,
  );
  if (clearedInterruptedRestore) print("Cleared what an interrupted restore had left in DATA_DIR.");
  print(
    fileChecksumChecked
      ? `Checked: the file against ${path.basename(file)}.sha256 and each of its ${manifest.files} files against SHA256SUMS.`
      : `Checked: each of its ${manifest.files} files against SHA256SUMS (no ${path.basename(file)}.sha256 beside it to check the whole file).`,
  );
  print(
    `It holds: ${Object.entries(counts)
      .map(([table, count]) => `${count} ${table}`)
      .join(", ")}.`,
  );
  const waiting = prepared ?? 0;
  if (waiting > 0) {
    print(
      `Automations are paused in the restored database: ${waiting} ${waiting === 1 ? "card was" : "cards were"} on the way to print when the backup was taken, and may have been printed since. Start the server, look at them (Mail, or GET /admin/v1/jobs?status=pending&kind=process_piece), cancel any already printed, then resume: PUT /admin/v1/kill-switch {"paused": false}. Until then events answer 503 automations_disabled (CRMs retry them).`,
    );
  }
  print("Start the server on it (npm start with the same DATA_DIR).");
}

/**
 * A backup's jobs run again at the restored server's first start, among them cards that were on
 * their way to print and printed after the backup: with any printer but Lob's idempotency window,
 * those homes would be mailed twice. When the backup holds any, the restored database starts with
 * automations paused (the kill switch), so a person looks first. Answers how many it holds.
 * It runs in the restore's own open of the database, before the restore lets DATA_DIR go: opened
 * again afterwards, a server started on DATA_DIR meanwhile could run those jobs before the pause,
 * and two PGlite instances would have had the same cluster open.
 */
async function pauseIfCardsWaited(db: Queryable): Promise<number> {
  const row = await queryOne<{ count: number | string }>(
    db,
    sql`SELECT count(*) AS count FROM jobs
        WHERE kind = ${processPieceJob.name} AND status IN ('pending', 'running')`,
  );
  const waiting = Number(row?.count ?? 0);
  if (waiting > 0) await createKillSwitch({ db, clock: systemClock }).setPaused(true);
  return waiting;
}

main().catch((error: unknown) => {
  const oneLine = [RestoreRefused, ConfigError, DataDirInUseError, DataDirUnusableError];
  if (oneLine.some((kind) => error instanceof kind)) process.stderr.write(`${(error as Error).message}\n`);
  else
    process.stderr.write(
      `Restore failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  process.exit(1);
});
