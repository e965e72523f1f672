/**
 * One process per embedded data directory. PGlite runs PostgreSQL in single-user mode inside this
 * process and takes no lock of its own: a second process opening the same DATA_DIR (a second
 * `npm start`, or `--role worker` beside `--role api`) would write the same files and corrupt the
 * database. The lock is a pid file (pid and start time): a live holder refuses the start; the file
 * of a process that died (SIGKILL, power loss) is taken over at once, so a restart never waits.
 */
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { systemErrorReason } from "../errors.ts";

export const DATA_DIR_LOCK_FILE = "porchlight.pid";

/**
 * Present while `db:restore` writes a cluster into DATA_DIR (restore.ts): from before its first
 * byte lands there until the restored files are on disk and open. Left behind, it means the
 * cluster beside it is partial (the restore was killed), and nothing but a restore may open it.
 */
export const RESTORE_MARKER_FILE = "porchlight.restoring";

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${holderPid}: the embedded database allows one process at a time. ` +
        "Stop that process, or run several processes against PostgreSQL (DATABASE_URL). " +
        `If no such process uses it, delete ${path.join(dataDir, DATA_DIR_LOCK_FILE)}.`,
    );
  }
}

/** DATA_DIR holds what an interrupted restore left: one line naming the cause and the fix. */
export class InterruptedRestoreError extends Error {
  constructor(
    readonly dataDir: string,
    backupFile: string | undefined,
  ) {
    const file = backupFile ?? "FILE";
    super(
      `DATA_DIR ${dataDir} holds an interrupted restore${backupFile ? ` of ${backupFile}` : ""}, not a whole database: ` +
        `run npm run db:restore -- ${file} again (it clears what the interrupted one left), or empty DATA_DIR to start a new database`,
    );
  }
}

/** DATA_DIR is a file, or this user may not create or write it: one line naming it, no stack. */
export class DataDirUnusableError extends Error {
  constructor(dataDir: string, cause: unknown) {
    super(
      `Invalid configuration: DATA_DIR ${dataDir} is not a directory this process can write (${systemErrorReason(cause)})`,
      { cause },
    );
  }
}

/**
 * Creates DATA_DIR private to this user (0700), and makes an existing one private: it holds the
 * embedded database's files and write-ahead log, the outbox and the operator token, all personal
 * data or secrets, and PGlite copies its template files world-writable. Returns false when an
 * existing directory cannot be made private because another user owns it (a mounted volume
 * shared through its group): the caller warns, the service still runs.
 */
export function preparePrivateDataDir(dataDir: string): boolean {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new DataDirUnusableError(dataDir, error);
  }
  try {
    chmodSync(dataDir, 0o700);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPERM") return false;
    throw new DataDirUnusableError(dataDir, error);
  }
}

/**
 * Takes group and other access off every file and folder of the embedded cluster in `dir`. PGlite
 * unpacks its initial cluster with mode 0666 whatever the umask (about 1000 files: catalogs,
 * PG_VERSION, the config), so only the 0700 DATA_DIR kept them private, and not where DATA_DIR is
 * another user's shared volume. Files PostgreSQL creates later are 0600 already, so once
 * PG_VERSION is private the walk is skipped.
 */
export function makeClusterPrivate(dir: string): void {
  if ((statSync(path.join(dir, "PG_VERSION")).mode & 0o077) === 0) return;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const target = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) chmodSync(target, 0o700);
    else if (entry.isFile()) chmodSync(target, 0o600);
  }
}

/** When the process started, in clock ticks since boot (/proc/<pid>/stat field 22), where /proc tells. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

interface Holder {
  pid: number;
  /** Absent in files written before the start time was recorded. */
  startTime: string | undefined;
}

/**
 * True when the holder still runs: its pid is alive and, where /proc tells, it is the same process
 * (same start time) — after a reboot or a container restart the pid may belong to anything else.
 */
function isLiveHolder(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const startTime = startTimeOf(holder.pid);
  if (startTime === undefined) return true;
  if (holder.startTime !== undefined) return holder.startTime === startTime;
  try {
    return readFileSync(`/proc/${holder.pid}/cmdline`, "utf8").includes("node");
  } catch {
    return true;
  }
}

function holderOf(text: string): Holder | undefined {
  const [pidLine, startTime] = text.split("\n");
  const pid = Number(pidLine?.trim());
  return Number.isInteger(pid) && pid > 0 ? { pid, startTime: startTime?.trim() || undefined } : undefined;
}

function readHolder(file: string): Holder | undefined {
  try {
    return holderOf(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Creates the lock file whole: written under a name of this process's own, then linked to the lock's
 * name, which fails if it exists. Another process never reads a lock file still empty (and takes it
 * for a dead holder's).
 */
function tryCreate(file: string): boolean {
  const written = `${file}.${process.pid}.${randomUUID()}`;
  // The random line makes every lock file's text its own, so a stale one is told from a new one.
  writeFileSync(written, `${process.pid}\n${startTimeOf(process.pid) ?? ""}\n${randomUUID()}\n`, {
    flag: "wx",
  });
  try {
    linkSync(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(written);
  }
}

function tryCreateOrExplain(dataDir: string, file: string): boolean {
  try {
    return tryCreate(file);
  } catch (error) {
    throw new DataDirUnusableError(dataDir, error);
  }
}

/**
 * Removes the dead holder's lock file judged stale, and no other: several starting processes may
 * judge the same stale file, and one may already have replaced it with its own. The file is moved
 * aside, and put back if its text is not the one judged (each lock file's text is its own).
 */
function removeStale(file: string, judged: string): void {
  const aside = `${file}.stale.${process.pid}.${randomUUID()}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (readFileSync(aside, "utf8") !== judged) {
    try {
      linkSync(aside, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  unlinkSync(aside);
}

/** The lock file's text and holder (undefined when it is gone). */
function judgeLockFile(file: string): { text: string; holder: Holder | undefined } | undefined {
  try {
    const text = readFileSync(file, "utf8");
    return { text, holder: holderOf(text) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The backup file the marker names (undefined when it is empty or unreadable: killed as it was written). */
function backupNamedByMarker(marker: string): string | undefined {
  try {
    const { backup } = JSON.parse(readFileSync(marker, "utf8")) as { backup?: unknown };
    return typeof backup === "string" ? backup : undefined;
  } catch {
    return undefined;
  }
}

function refuseInterruptedRestore(dataDir: string): void {
  const marker = path.join(dataDir, RESTORE_MARKER_FILE);
  if (existsSync(marker)) throw new InterruptedRestoreError(dataDir, backupNamedByMarker(marker));
}

/**
 * Takes the directory's lock or throws DataDirInUseError; returns the release function. A DATA_DIR
 * that an interrupted restore left is refused (InterruptedRestoreError), so that no process opens
 * the partial cluster or initializes a new one over it; only the restore that clears it passes
 * `allowInterruptedRestore`.
 */
export function lockDataDir(
  dataDir: string,
  options: { allowInterruptedRestore?: boolean } = {},
): () => void {
  const release = takeLock(dataDir);
  if (options.allowInterruptedRestore) return release;
  try {
    refuseInterruptedRestore(dataDir);
  } catch (error) {
    release();
    throw error;
  }
  return release;
}

function takeLock(dataDir: string): () => void {
  const file = path.join(dataDir, DATA_DIR_LOCK_FILE);
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreateOrExplain(dataDir, file)) {
      return () => {
        if (readHolder(file)?.pid === process.pid) unlinkSync(file);
      };
    }
    const judged = judgeLockFile(file);
    if (judged === undefined) continue;
    const { holder } = judged;
    if (holder !== undefined && holder.pid !== process.pid && isLiveHolder(holder)) {
      throw new DataDirInUseError(dataDir, holder.pid);
    }
    // Left by a process that is gone (or unreadable): remove it, that file only, and try again.
    removeStale(file, judged.text);
  }
  throw new Error(`could not take the lock ${file}`);
}
