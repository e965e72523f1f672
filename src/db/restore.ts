/**
 * `npm run db:restore -- FILE`: a backup (`backups.ts`) into an empty DATA_DIR. Refuses, with one
 * line, a DATA_DIR that holds anything (but a `backups/` folder) or that a running server holds;
 * checks the file against its `.sha256` and every copied file against `SHA256SUMS` before a byte
 * of it lands in DATA_DIR, flushes the restored cluster to disk, then opens it once (as the server
 * does, with the syncing filesystem) to count what it holds.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import {
  BACKUP_CHECKSUMS,
  BACKUP_CLUSTER_DIR,
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BACKUP_MANIFEST,
  type BackupManifest,
  readChecksumFile,
  sha256OfFile,
} from "./backups.ts";
import { isClusterEntry } from "./cluster-snapshot.ts";
import {
  DATA_DIR_LOCK_FILE,
  lockDataDir,
  makeClusterPrivate,
  preparePrivateDataDir,
} from "./data-dir-lock.ts";
import { openDatabase, queryOne, sql } from "./database.ts";
import { syncClusterTree } from "./syncing-node-fs.ts";

/** A restore that cannot go ahead: one line for the operator, nothing written to DATA_DIR. */
export class RestoreRefused extends Error {}

/** What may already be in the DATA_DIR a backup is restored into. */
const ALLOWED_IN_EMPTY_DATA_DIR = new Set(["backups", DATA_DIR_LOCK_FILE]);

export interface RestoreSummary {
  manifest: BackupManifest;
  /** Whether a `<file>.sha256` was there to check the whole file against. */
  fileChecksumChecked: boolean;
  counts: Record<string, number>;
}

/** Rows counted in the restored database, for the summary line. */
const COUNTED_TABLES = [
  "organizations",
  "api_keys",
  "automations",
  "campaigns",
  "mail_pieces",
  "leads",
  "jobs",
] as const;

async function assertEmpty(dataDir: string): Promise<void> {
  const present = (await readdir(dataDir)).filter((name) => !ALLOWED_IN_EMPTY_DATA_DIR.has(name));
  if (present.length > 0) {
    const shown = present.slice(0, 3).join(", ") + (present.length > 3 ? ", …" : "");
    throw new RestoreRefused(
      `DATA_DIR ${dataDir} is not empty (it holds ${shown}): restore only into an empty DATA_DIR, or move this one away first`,
    );
  }
}

async function readManifest(directory: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(directory, BACKUP_MANIFEST), "utf8")) as BackupManifest;
  } catch {
    throw new RestoreRefused(`not a Porchlight backup: ${BACKUP_MANIFEST} is missing or unreadable`);
  }
  if (manifest.format !== BACKUP_FORMAT) throw new RestoreRefused("not a Porchlight backup");
  if (manifest.format_version !== BACKUP_FORMAT_VERSION) {
    throw new RestoreRefused(
      `this backup's format version is ${manifest.format_version}; this version of Porchlight restores ${BACKUP_FORMAT_VERSION}`,
    );
  }
  return manifest;
}

/** Every file of the cluster against SHA256SUMS, and nothing in the cluster that it does not list. */
async function verifyChecksums(directory: string, manifest: BackupManifest): Promise<void> {
  let listing: string;
  try {
    listing = await readFile(path.join(directory, BACKUP_CHECKSUMS), "utf8");
  } catch {
    throw new RestoreRefused(`the backup has no ${BACKUP_CHECKSUMS}`);
  }
  const expected = new Map<string, string>();
  for (const line of listing.split("\n").filter(Boolean)) {
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!match) throw new RestoreRefused(`${BACKUP_CHECKSUMS} has a malformed line`);
    expected.set(match[2]!, match[1]!);
  }
  const present = await listFiles(directory, BACKUP_CLUSTER_DIR);
  if (present.length !== expected.size || present.length !== manifest.files) {
    throw new RestoreRefused(
      `the backup is incomplete: ${present.length} files, ${expected.size} in ${BACKUP_CHECKSUMS}, ${manifest.files} in ${BACKUP_MANIFEST}`,
    );
  }
  for (const file of present) {
    const sum = expected.get(file);
    if (!sum || sum !== (await sha256OfFile(path.join(directory, file)))) {
      throw new RestoreRefused(`the backup is damaged: ${file} does not match ${BACKUP_CHECKSUMS}`);
    }
  }
}

async function listFiles(root: string, relative: string): Promise<string[]> {
  const files: string[] = [];
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(path.join(root, relative), { withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    const entryPath = `${relative}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(root, entryPath)));
    else if (entry.isFile()) files.push(entryPath);
  }
  return files;
}

async function countRows(dataDir: string): Promise<Record<string, number>> {
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    // EMBEDDED_SYNC's default, as `npm start` opens it.
    database = await openDatabase({ dataDir, embeddedSync: true });
  } catch (error) {
    throw new RestoreRefused(
      `the restored database does not open with this version of PGlite (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  try {
    const counts: Record<string, number> = {};
    for (const table of COUNTED_TABLES) {
      const row = await queryOne<{ count: number }>(
        database.db,
        sql`SELECT count(*)::int AS count FROM ${sql.identifier(table)}`,
      );
      counts[table] = row?.count ?? 0;
    }
    return counts;
  } finally {
    await database.close();
  }
}

export async function restoreBackup(options: { file: string; dataDir: string }): Promise<RestoreSummary> {
  const { file, dataDir } = options;
  const fileStat = await stat(file).catch(() => undefined);
  if (!fileStat?.isFile()) throw new RestoreRefused(`no backup file at ${file}`);
  preparePrivateDataDir(dataDir);
  // A running server holds this lock: it refuses here with the holder's pid.
  const release = lockDataDir(dataDir);
  const staging = path.join(dataDir, `.restore-${randomBytes(4).toString("hex")}`);
  const restored: string[] = [];
  try {
    await assertEmpty(dataDir);
    const expectedSum = await readChecksumFile(file);
    if (expectedSum !== null) {
      const actual = await sha256OfFile(file);
      if (actual !== expectedSum) {
        throw new RestoreRefused(
          `the backup is damaged: its SHA-256 is ${actual}, ${path.basename(file)}.sha256 says ${expectedSum}`,
        );
      }
    }
    const { extract } = await import("tar");
    const { mkdir } = await import("node:fs/promises");
    await mkdir(staging, { mode: 0o700 });
    try {
      await extract({ file, cwd: staging, strict: true });
    } catch (error) {
      throw new RestoreRefused(
        `the backup cannot be read (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const manifest = await readManifest(staging);
    await verifyChecksums(staging, manifest);
    const cluster = path.join(staging, BACKUP_CLUSTER_DIR);
    for (const name of await readdir(cluster)) {
      if (!isClusterEntry(name)) continue;
      await rename(path.join(cluster, name), path.join(dataDir, name));
      restored.push(name);
    }
    if (!existsSync(path.join(dataDir, "PG_VERSION")))
      throw new RestoreRefused("the backup holds no database");
    makeClusterPrivate(dataDir);
    // tar wrote the files without fsync: on disk, with their directory entries, before the server
    // that opens them acknowledges anything built on them.
    syncClusterTree(dataDir);
    const counts = await countRows(dataDir);
    return { manifest, fileChecksumChecked: expectedSum !== null, counts };
  } catch (error) {
    // Leave DATA_DIR as empty as it was found.
    for (const name of restored) await rm(path.join(dataDir, name), { recursive: true, force: true });
    throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
    release();
  }
}
