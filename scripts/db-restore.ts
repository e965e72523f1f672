/**
 * `npm run db:restore -- FILE`: restores a backup of the embedded database (POST /admin/v1/backups
 * or the scheduled ones, under DATA_DIR/backups/) into an empty DATA_DIR (docs/operations.md,
 * Backups). Every refusal is one line on stderr and exit status 1.
 */
import path from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";
import { DataDirInUseError, DataDirUnusableError } from "../src/db/data-dir-lock.ts";
import { RestoreRefused, restoreBackup } from "../src/db/restore.ts";

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
  const { manifest, fileChecksumChecked, counts } = await restoreBackup({ file, dataDir: config.dataDir });
  const print = (line: string) => process.stdout.write(`${line}\n`);
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
