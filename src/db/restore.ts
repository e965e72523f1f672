/**
 * `npm run db:restore -- FILE`: a backup (`backups.ts`) into an empty DATA_DIR. Refuses, with one
 * line, a DATA_DIR that holds anything (but a `backups/` folder) or that a running server holds;
 * checks the file against its `.sha256` and every copied file against `SHA256SUMS` before a byte
 * of it lands in DATA_DIR, flushes the restored cluster to disk, then opens it once (as the server
 * does, with the syncing filesystem) to count what it holds and run the caller's `prepare` on it.
 *
 * Interrupted at any point (SIGKILL, a power cut, Ctrl-C), a restore leaves DATA_DIR recognisable:
 * its marker (RESTORE_MARKER_FILE) is on disk before anything else of the restore, and removed
 * only once the restored cluster is on disk and opens. The server refuses a DATA_DIR holding the
 * marker (`lockDataDir`), and the next restore into it clears what the interrupted one left (the
 * marker, staging folders and cluster entries, nothing else) before it restores.
 */
import { randomBytes } from "node:crypto";
import { closeSync, createReadStream, existsSync, fsyncSync, openSync, unlinkSync, writeSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { ReadEntry } from "tar";
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
  RESTORE_MARKER_FILE,
} from "./data-dir-lock.ts";
import { openDatabase, type Queryable, queryOne, sql } from "./database.ts";
import { syncClusterTree } from "./syncing-node-fs.ts";

/** A restore that cannot go ahead: one line for the operator, and nothing of this restore left in DATA_DIR. */
export class RestoreRefused extends Error {}

/** What may already be in the DATA_DIR a backup is restored into. */
const ALLOWED_IN_EMPTY_DATA_DIR = new Set(["backups", DATA_DIR_LOCK_FILE]);

/**
 * Where a restore unpacks the backup: `.restore-<8 hex digits>` inside DATA_DIR, so that its files
 * are renamed into place, not copied.
 */
const stagingDirIn = (dataDir: string) => path.join(dataDir, `.restore-${randomBytes(4).toString("hex")}`);
const isStagingDir = (name: string) => /^\.restore-[0-9a-f]{8}$/.test(name);

/**
 * What a restore writes into DATA_DIR, and so may find there after one was interrupted: its
 * staging folder, the cluster's entries, and the pid file PGlite writes while it has the cluster open.
 */
const isRestoreLeftover = (name: string) =>
  isStagingDir(name) || isClusterEntry(name) || name === "postmaster.pid";

export interface RestoreOptions<Prepared> {
  /** The backup's `.tar.gz`. */
  file: string;
  dataDir: string;
  /**
   * Runs on the restored database in the restore's one open, after its rows are counted, while the
   * marker is still there and the lock held: what it writes is on disk before any server can start
   * on DATA_DIR, and its failure fails (and clears) the restore. `db:restore` pauses automations
   * here when the backup held cards on their way to print.
   */
  prepare?: (db: Queryable) => Promise<Prepared>;
}

export interface RestoreSummary<Prepared = undefined> {
  manifest: BackupManifest;
  /** Whether a `<file>.sha256` was there to check the whole file against. */
  fileChecksumChecked: boolean;
  counts: Record<string, number>;
  /** Whether DATA_DIR held what an interrupted restore left, cleared before this one. */
  clearedInterruptedRestore: boolean;
  /** What `prepare` answered; undefined without one. */
  prepared: Prepared | undefined;
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

/**
 * Refuses a DATA_DIR that holds anything but a `backups/` folder, or, after an interrupted
 * restore, anything that restore did not write. True when it holds an interrupted restore's marker.
 */
async function assertRestorableInto(dataDir: string): Promise<boolean> {
  const names = (await readdir(dataDir)).filter((name) => !ALLOWED_IN_EMPTY_DATA_DIR.has(name));
  const interrupted = names.includes(RESTORE_MARKER_FILE);
  const present = interrupted
    ? names.filter((name) => name !== RESTORE_MARKER_FILE && !isRestoreLeftover(name))
    : names;
  if (present.length === 0) return interrupted;
  const shown = present.slice(0, 3).join(", ") + (present.length > 3 ? ", …" : "");
  throw new RestoreRefused(
    interrupted
      ? `DATA_DIR ${dataDir} holds an interrupted restore and also ${shown}, which no restore writes: restore only into an empty DATA_DIR, or move this one away first`
      : `DATA_DIR ${dataDir} is not empty (it holds ${shown}): restore only into an empty DATA_DIR, or move this one away first`,
  );
}

/** The whole file against its `.sha256`; false when there is none beside it. */
async function checkWholeFile(file: string): Promise<boolean> {
  const expectedSum = await readChecksumFile(file);
  if (expectedSum === null) return false;
  const actual = await sha256OfFile(file);
  if (actual !== expectedSum) {
    throw new RestoreRefused(
      `the backup is damaged: its SHA-256 is ${actual}, ${path.basename(file)}.sha256 says ${expectedSum}`,
    );
  }
  return true;
}

/** fsync a file or a directory (a rename or an unlink is durable once its directory is). */
function fsyncPath(target: string): void {
  const fd = openSync(target, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the marker, on disk with its directory entry, before anything else of the restore: from
 * here until `unmarkRestore`, an interruption leaves a DATA_DIR the server refuses. Synchronous, so
 * a signal's handler never runs halfway through it.
 */
function markRestoreUnderway(dataDir: string, file: string): void {
  const marker = openSync(path.join(dataDir, RESTORE_MARKER_FILE), "w", 0o600);
  try {
    const started = { backup: file, started_at: new Date().toISOString(), pid: process.pid };
    writeSync(marker, `${JSON.stringify(started)}\n`);
    fsyncSync(marker);
  } finally {
    closeSync(marker);
  }
  fsyncPath(dataDir);
}

/** The last step of a restore, whole or abandoned: its removal on disk before the lock is let go. */
function unmarkRestore(dataDir: string): void {
  unlinkSync(path.join(dataDir, RESTORE_MARKER_FILE));
  fsyncPath(dataDir);
}

/** Removes every staging folder and cluster entry (assertRestorableInto: nothing else is there). */
async function clearRestoreLeftovers(dataDir: string): Promise<void> {
  for (const name of await readdir(dataDir)) {
    if (isRestoreLeftover(name)) await rm(path.join(dataDir, name), { recursive: true, force: true });
  }
  fsyncPath(dataDir);
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

/** The restored database opened once: its rows counted, then `prepare` run on it. */
async function openRestored<Prepared>(
  dataDir: string,
  prepare: ((db: Queryable) => Promise<Prepared>) | undefined,
): Promise<{ counts: Record<string, number>; prepared: Prepared | undefined }> {
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
    return { counts, prepared: await prepare?.(database.db) };
  } finally {
    await database.close();
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Where an archive's entry goes under `root`; undefined for a name that would leave it (absolute, `..`). */
function entryTarget(root: string, name: string): string | undefined {
  const parts = name.split("/").filter((part) => part !== "" && part !== ".");
  if (name.startsWith("/") || parts.length === 0) return undefined;
  if (parts.some((part) => part === ".." || part.includes("\0"))) return undefined;
  return path.join(root, ...parts);
}

/**
 * One file entry's bytes into a new file: one write at a time, the entry paused meanwhile (which
 * holds the archive's reading back). Settles only once the file is closed; `stop` ends it early.
 */
async function writeFileEntry(entry: ReadEntry, target: string, stop: AbortSignal): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const handle = await open(target, "wx", 0o600).catch((error: NodeJS.ErrnoException) => {
    // The folder was empty: only an archive naming the file twice gets here.
    if (error.code === "EEXIST")
      throw new RestoreRefused(`not a Porchlight backup: it holds ${entry.path} twice`);
    throw error;
  });
  let writing: Promise<unknown> = Promise.resolve();
  let onStop: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      if (stop.aborted) return reject(stop.reason);
      onStop = () => reject(stop.reason);
      stop.addEventListener("abort", onStop, { once: true });
      entry.on("error", reject);
      entry.on("end", () => void writing.then(() => resolve()));
      entry.on("data", (chunk: Buffer) => {
        entry.pause();
        writing = handle.write(chunk).then(() => void entry.resume(), reject);
      });
    });
  } finally {
    if (onStop) stop.removeEventListener("abort", onStop);
    await writing.catch(() => {});
    await handle.close();
  }
}

/** Marks an error raised while writing into DATA_DIR (rather than while reading the backup). */
class UnpackWriteError extends Error {}

/**
 * Unpacks the gzip'd tar `file` into the folder `into`: plain files and folders only, every name
 * inside it (anything else is refused as not a backup of ours).
 *
 * It answers only once every file system call it started has returned, also when it fails. tar's
 * own `extract()` rejects at the first error while its writes go on: a backup of a few MB cut short
 * was refused before a single entry was written, and every entry it had decompressed was written
 * afterwards. Removing the staging folder then raced them, and once in a few dozen runs lost
 * (`ENOTEMPTY: directory not empty, rmdir '…/.restore-…'`), which left the staging folder and the
 * marker behind and replaced the refusal with that error. Here, at the first error, the archive
 * stops being read and each file being written is closed before this rejects.
 */
export async function unpackArchive(file: string, into: string): Promise<void> {
  const { Parser } = await import("tar");
  const stop = new AbortController();
  const writes: Promise<void>[] = [];
  const source = createReadStream(file);
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown) => {
    if (failure) return;
    failure = { error };
    source.destroy();
    stop.abort(error);
  };
  // Settles when the archive was read to its end, or at the first failure.
  const read = new Promise<void>((resolve) => {
    stop.signal.addEventListener("abort", () => resolve(), { once: true });
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry) => {
        if (failure) return void entry.resume();
        const target = entryTarget(into, entry.path);
        const isFile = entry.type === "File" || entry.type === "OldFile" || entry.type === "ContiguousFile";
        if (target === undefined || !(isFile || entry.type === "Directory")) {
          entry.resume();
          return fail(new RestoreRefused(`not a Porchlight backup: it holds ${entry.path} (${entry.type})`));
        }
        if (!isFile) entry.resume();
        const written = isFile
          ? writeFileEntry(entry, target, stop.signal)
          : mkdir(target, { recursive: true, mode: 0o700 }).then(() => {});
        // (A write that `stop` ended rejects with the failure itself: fail() keeps the first.)
        writes.push(
          written.catch((error) =>
            fail(error instanceof RestoreRefused ? error : new UnpackWriteError(messageOf(error))),
          ),
        );
      },
    });
    parser.on("error", fail);
    parser.on("end", () => resolve());
    source.on("error", fail);
    source.pipe(parser as unknown as NodeJS.WritableStream);
  });
  await read;
  // Nothing is added to `writes` past this point: the archive ended, or `failure` is set.
  await Promise.all(writes);
  if (failure) throw failure.error;
}

/** Unpacks the backup into `staging` and checks it, before anything of it is moved into DATA_DIR. */
async function unpackChecked(file: string, staging: string): Promise<BackupManifest> {
  await mkdir(staging, { mode: 0o700 });
  try {
    await unpackArchive(file, staging);
  } catch (error) {
    if (error instanceof RestoreRefused) throw error;
    if (error instanceof UnpackWriteError) {
      throw new RestoreRefused(`the backup cannot be unpacked into DATA_DIR (${error.message})`);
    }
    throw new RestoreRefused(`the backup cannot be read (${messageOf(error)})`);
  }
  const manifest = await readManifest(staging);
  await verifyChecksums(staging, manifest);
  return manifest;
}

/** Renames the unpacked cluster's entries into DATA_DIR and flushes them to disk. */
async function moveClusterInto(dataDir: string, staging: string): Promise<void> {
  const cluster = path.join(staging, BACKUP_CLUSTER_DIR);
  for (const name of await readdir(cluster)) {
    if (isClusterEntry(name)) await rename(path.join(cluster, name), path.join(dataDir, name));
  }
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) throw new RestoreRefused("the backup holds no database");
  makeClusterPrivate(dataDir);
  // tar wrote the files without fsync: on disk, with their directory entries, before the server
  // that opens them acknowledges anything built on them.
  syncClusterTree(dataDir);
}

/** The restore proper, under the marker: unpack, check, move into place, flush, open. */
async function restoreUnderMarker<Prepared>(
  options: RestoreOptions<Prepared>,
): Promise<{ manifest: BackupManifest; counts: Record<string, number>; prepared: Prepared | undefined }> {
  const { file, dataDir } = options;
  const staging = stagingDirIn(dataDir);
  // On a failure the staging folder goes with the rest of what the restore wrote (restoreBackup),
  // and nothing here may replace the failure's own reason.
  const manifest = await unpackChecked(file, staging);
  await moveClusterInto(dataDir, staging);
  const { counts, prepared } = await openRestored(dataDir, options.prepare);
  await rm(staging, { recursive: true, force: true });
  return { manifest, counts, prepared };
}

/**
 * The failure's own reason, and, when what the restore wrote could not all be removed, that too:
 * the marker then stays, so the server keeps refusing DATA_DIR until a restore clears it.
 */
function withUncleared(error: unknown, dataDir: string, cleanupError: unknown): Error {
  const note = `; what this restore wrote could not all be removed from DATA_DIR ${dataDir} (${messageOf(cleanupError)}): run the same npm run db:restore again (it clears it), or empty DATA_DIR`;
  if (error instanceof RestoreRefused) return new RestoreRefused(`${error.message}${note}`);
  return new Error(`${messageOf(error)}${note}`, { cause: error });
}

export async function restoreBackup<Prepared = undefined>(
  options: RestoreOptions<Prepared>,
): Promise<RestoreSummary<Prepared>> {
  const { file, dataDir } = options;
  const fileStat = await stat(file).catch(() => undefined);
  if (!fileStat?.isFile()) throw new RestoreRefused(`no backup file at ${file}`);
  preparePrivateDataDir(dataDir);
  // A running server holds this lock: it refuses here with the holder's pid.
  const release = lockDataDir(dataDir, { allowInterruptedRestore: true });
  try {
    const interrupted = await assertRestorableInto(dataDir);
    const fileChecksumChecked = await checkWholeFile(file);
    markRestoreUnderway(dataDir, file);
    try {
      await clearRestoreLeftovers(dataDir);
      const { manifest, counts, prepared } = await restoreUnderMarker(options);
      unmarkRestore(dataDir);
      return { manifest, fileChecksumChecked, counts, clearedInterruptedRestore: interrupted, prepared };
    } catch (error) {
      // Leave DATA_DIR empty: the marker last, so that a failure or a kill on the way leaves it
      // marked. Nothing of this restore writes any more (unpackArchive answers only once its writes
      // have), so the removal meets no file being added.
      try {
        await clearRestoreLeftovers(dataDir);
        unmarkRestore(dataDir);
      } catch (cleanupError) {
        throw withUncleared(error, dataDir, cleanupError);
      }
      throw error;
    }
  } finally {
    release();
  }
}
