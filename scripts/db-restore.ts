/**
 * `npm run db:restore -- FILE`: restores a backup of the embedded database (POST /admin/v1/backups
 * or the scheduled ones, under DATA_DIR/backups/) into an empty DATA_DIR (docs/operations.md,
 * Backups). Every refusal is one line on stderr and exit status 1. Stopped by Ctrl-C (SIGINT) or
 * SIGTERM it exits at once, as a kill would, and says what it left: a DATA_DIR that the server
 * refuses and that running it again recovers.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";
import {
  DataDirInUseError,
  DataDirUnusableError,
  InterruptedRestoreError,
  RESTORE_MARKER_FILE,
} from "../src/db/data-dir-lock.ts";
import { RestoreRefused, restoreBackup } from "../src/db/restore.ts";

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
  const file = path.resolve(args[0]!);
  exitOnStopSignals(file, path.resolve(config.dataDir));
  const { manifest, fileChecksumChecked, counts, clearedInterruptedRestore } = await restoreBackup({
    file,
    dataDir: config.dataDir,
  });
  const print = (line: string) => process.stdout.write(`${line}\n`);
  if (clearedInterruptedRestore) print("Cleared what an interrupted restore had left in DATA_DIR.");
  print(
    `Restored ${file} (taken ${manifest.created_at}, PGlite ${manifest.pglite_version}, PostgreSQL ${manifest.postgres_version}, schema ${manifest.schema_version ?? "empty"}) into DATA_DIR ${path.resolve(config.dataDir)}.`,
  );
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
  print("Start the server on it (npm start with the same DATA_DIR).");
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
