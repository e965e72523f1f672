/** What the restore tests share: a real backup of a migrated embedded database, and the operator's command. */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { systemClock } from "../../src/clock.ts";
import { createBackups } from "../../src/db/backups.ts";
import { copyClusterFiles } from "../../src/db/cluster-snapshot.ts";
import { openDatabase, type Queryable } from "../../src/db/database.ts";
import { migratedTemplateDir } from "../helpers/pglite-template.ts";

const REPO = path.resolve(import.meta.dirname, "../..");

/**
 * A backup of a migrated embedded database in `dataDir` (empty), as POST /admin/v1/backups writes
 * it; `before` writes into the database first.
 */
export async function takeBackup(
  dataDir: string,
  before?: (db: Queryable) => Promise<void>,
): Promise<string> {
  copyClusterFiles(await migratedTemplateDir(), dataDir);
  const database = await openDatabase({ dataDir, embeddedSync: false });
  const backups = createBackups({
    database,
    dataDir,
    clock: systemClock,
    logger: pino({ level: "silent" }),
    intervalHours: 0,
    keep: 7,
  });
  try {
    await before?.(database.db);
    return (await backups.create()).file;
  } finally {
    await backups.stop();
    await database.close();
  }
}

/** `npm run db:restore -- FILE` into `dataDir`, as the operator runs it. */
export function runRestore(file: string, dataDir: string) {
  return runCollecting("npm", ["run", "--silent", "db:restore", "--", file], REPO, { DATA_DIR: dataDir });
}

/** A tool run to its end with a bare environment (PATH, HOME and `env`): its exit status and output. */
export async function runCollecting(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
) {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { status, stdout, stderr };
}
