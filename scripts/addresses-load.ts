/**
 * `npm run addresses:load -- FILE…` loads OpenAddresses files (CSV or GeoJSON lines, plain or .gz) into the
 * reference addresses of the database the configuration names (DATABASE_URL, else the embedded
 * one under DATA_DIR, which must not be in use by a running server).
 * `npm run addresses:load -- --synthetic 3000` loads the generated demo neighbourhood instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../src/config.ts";
import { toolApplicationName, withApplicationName } from "../src/db/application-name.ts";
import { lockDataDir, preparePrivateDataDir } from "../src/db/data-dir-lock.ts";
import { openDatabase, sql } from "../src/db/database.ts";
import { migrate } from "../src/db/migrate.ts";
import { addressSinkFor } from "../src/neighbours/address-sink.ts";
import { loadAddressFile, nothingUsable, progressLine } from "../src/neighbours/load-addresses.ts";
import { syntheticCsvLines } from "../src/neighbours/synthetic-neighbourhood.ts";

const print = (line: string) => process.stdout.write(`${line}\n`);

function filesFromArguments(args: string[]): { files: string[]; cleanup: () => void } {
  const synthetic = args.indexOf("--synthetic");
  if (synthetic === -1) return { files: args, cleanup: () => {} };
  const homes = Number(args[synthetic + 1] ?? "3000");
  if (!Number.isInteger(homes) || homes < 1) throw new Error("--synthetic takes a number of homes");
  const dir = mkdtempSync(path.join(tmpdir(), "porchlight-addresses-"));
  const file = path.join(dir, `synthetic-${homes}.csv`);
  writeFileSync(file, [...syntheticCsvLines(homes)].join(""));
  return { files: [file], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function main() {
  const { files, cleanup } = filesFromArguments(process.argv.slice(2));
  if (files.length === 0) {
    print(
      "usage: npm run addresses:load -- FILE… (OpenAddresses CSV or GeoJSON lines, plain or gzipped) | --synthetic HOMES",
    );
    process.exitCode = 2;
    return;
  }
  process.umask(0o077);
  const config = loadConfig();
  if (!config.databaseUrl) preparePrivateDataDir(config.dataDir);
  const release = config.databaseUrl ? null : lockDataDir(config.dataDir);
  // Its connections (the pool and the bulk load's own) say what they are in pg_stat_activity.
  const databaseUrl =
    config.databaseUrl && withApplicationName(config.databaseUrl, toolApplicationName("addresses-load"));
  const database = await openDatabase({
    databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
  });
  try {
    await migrate(database.db);
    for (const file of files) {
      const sink = await addressSinkFor(database, file, {
        databaseUrl,
        onStep: (step) => print(`${file}: ${step}`),
      });
      let lastPrint = 0;
      try {
        const report = await loadAddressFile(file, {
          sink,
          onProgress: (progress) => {
            if (progress.seconds - lastPrint < 1) return;
            lastPrint = progress.seconds;
            print(progressLine(progress));
          },
        });
        print(progressLine(report));
        const unusable = nothingUsable(report);
        if (unusable) {
          print(`${file}: nothing loaded: ${unusable}.`);
          process.exitCode = 1;
        }
      } finally {
        await sink.close();
      }
    }
    // Fresh statistics for the planner: PGlite has no autovacuum, and a bulk load outruns PostgreSQL's.
    await database.db.execute(sql`ANALYZE reference_addresses`);
  } finally {
    await database.close();
    release?.();
    cleanup();
  }
}

main().catch((error: unknown) => {
  print(`addresses:load failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
