/**
 * One process per embedded data directory. PGlite runs PostgreSQL in single-user mode inside this
 * process and takes no lock of its own: a second process opening the same DATA_DIR (a second
 * `npm start`, or `--role worker` beside `--role api`) would write the same files and corrupt the
 * database. The lock is a pid file: a live holder refuses the start; the file of a process that
 * died (SIGKILL, power loss) is taken over at once, so a restart never waits.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";

export const DATA_DIR_LOCK_FILE = "porchlight.pid";

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

/** True when `pid` runs and, where /proc tells, is a Node process (a reused pid is not a holder). */
function isLiveHolder(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("node");
  } catch {
    return true;
  }
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function tryCreate(file: string): boolean {
  try {
    const fd = openSync(file, "wx");
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Takes the directory's lock or throws DataDirInUseError; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, DATA_DIR_LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(file)) {
      return () => {
        if (readHolder(file) === process.pid) unlinkSync(file);
      };
    }
    const holder = readHolder(file);
    if (holder !== undefined && holder !== process.pid && isLiveHolder(holder)) {
      throw new DataDirInUseError(dataDir, holder);
    }
    // Left by a process that is gone (or unreadable): remove it and try again.
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  throw new Error(`could not take the lock ${file}`);
}
