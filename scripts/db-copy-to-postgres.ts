/**
 * `npm run db:copy-to-postgres -- postgres://…`: copies the embedded database in DATA_DIR, with the
 * server stopped, into an empty PostgreSQL (docs/operations.md, Moving to PostgreSQL). Every
 * refusal is one line on stderr and exit status 1; the URL is never printed (it may hold a password).
 */
import { ConfigError, dataDirIsDefault, loadConfig } from "../src/config.ts";
import { CopyRefused, copyToPostgres } from "../src/db/copy-to-postgres.ts";
import { DataDirInUseError, DataDirUnusableError, InterruptedRestoreError } from "../src/db/data-dir-lock.ts";
import { databaseReason, refusedStatementAdvice, refusedStatementCode } from "../src/db/database.ts";
import { dataDirNamed, missingDefaultDataDir } from "../src/db/tool-data-dir.ts";

async function main() {
  const args = process.argv.slice(2);
  const usage = "usage: npm run db:copy-to-postgres -- postgres://user:password@host:5432/database";
  if (args.length !== 1) throw new CopyRefused(usage);
  if (!/^postgres(ql)?:\/\//.test(args[0]!)) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(args[0]!)?.[1];
    throw new CopyRefused(
      `the target must be a postgres:// or postgresql:// URL (${scheme ? `got ${scheme}:` : "got no scheme"}); ${usage}`,
    );
  }
  const config = loadConfig();
  const defaulted = dataDirIsDefault();
  const missing = missingDefaultDataDir(
    config.dataDir,
    defaulted,
    "there is nothing to copy; set DATA_DIR to the stopped server's data directory, e.g. DATA_DIR=/srv/porchlight/data npm run db:copy-to-postgres -- postgres://…",
  );
  if (missing) throw new CopyRefused(missing);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  print(`Copying the embedded database in ${dataDirNamed(config.dataDir, defaulted)} to PostgreSQL…`);
  const summary = await copyToPostgres({
    dataDir: config.dataDir,
    targetUrl: args[0]!,
    progress: (line) => print(`  ${line}`),
  });
  const rows = summary.tables.reduce((total, table) => total + table.rows, 0);
  print(
    `Copied ${summary.tables.length} tables (${rows} rows, each table's count checked) and ${summary.sequences} sequences in ${(summary.ms / 1000).toFixed(1)} s, in one transaction.`,
  );
  print("Next: DATABASE_URL=<that URL> npm start (docs/operations.md, Moving to PostgreSQL).");
}

main().catch((error: unknown) => {
  const oneLine = [
    CopyRefused,
    ConfigError,
    DataDirInUseError,
    DataDirUnusableError,
    InterruptedRestoreError,
  ];
  if (oneLine.some((kind) => error instanceof kind)) process.stderr.write(`${(error as Error).message}\n`);
  else
    process.stderr.write(
      `Copy failed and was rolled back (no row is in the target; run it again once the cause is fixed): ${databaseReason(error)}${refusedStatementAdvice(refusedStatementCode(error))}\n`,
    );
  process.exit(1);
});
