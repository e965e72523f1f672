/**
 * Backups of the embedded database while it serves (docs/operations.md, Backups). A backup is a
 * gzip'd tar under DATA_DIR/backups/ holding
 *
 * - `porchlight-backup.json`: what it is (format, when, PGlite's and PostgreSQL's versions, the
 *   schema's latest migration), read first by `db:restore`;
 * - `SHA256SUMS`: every file's checksum (`sha256sum -c` reads it);
 * - `cluster/`: the PostgreSQL cluster's files, copied at one point in time (`cluster-snapshot.ts`).
 *
 * and a `<file>.sha256` beside it with the whole file's checksum. Each is written to a temporary
 * name, fsync'd and renamed, so a crash leaves either the whole backup or none; one backup runs at
 * a time per process (the embedded database belongs to one process), so two requested at once
 * each get their own whole file.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, readFileSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { AppError } from "../errors.ts";
import { type Database, queryOne, sql } from "./database.ts";

export const BACKUP_MANIFEST = "porchlight-backup.json";
export const BACKUP_CHECKSUMS = "SHA256SUMS";
export const BACKUP_CLUSTER_DIR = "cluster";
export const BACKUP_FORMAT = "porchlight-backup";
export const BACKUP_FORMAT_VERSION = 1;

const BACKUP_NAME = /^porchlight-(\d{8}T\d{6}\.\d{3}Z)-[0-9a-f]{6}\.tar\.gz$/;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  created_at: string;
  pglite_version: string;
  postgres_version: string;
  /** The cluster's PG_VERSION: a restore needs a PGlite of this PostgreSQL major version. */
  postgres_major: string;
  /** The newest migration applied to the database when it was copied. */
  schema_version: string | null;
  files: number;
}

export interface BackupFile {
  /** The backup's path as the server sees it. */
  file: string;
  bytes: number;
  sha256: string | null;
  created_at: string;
}

export interface BackupFailure {
  at: string;
  reason: string;
  scheduled: boolean;
}

export interface BackupListing {
  backups: BackupFile[];
  last_failure: BackupFailure | null;
  schedule: { interval_hours: number; keep: number; next_at: string | null };
}

export interface Backups {
  /** True for the embedded database kept in files: the only one this takes backups of. */
  readonly available: boolean;
  /** Takes a backup now (after any in progress); 409 where there is nothing this can copy. */
  create(options?: { scheduled?: boolean }): Promise<BackupFile>;
  list(): Promise<BackupListing>;
  /** Starts the BACKUP_INTERVAL_HOURS schedule (nothing when it is 0 or there is nothing to back up). */
  startSchedule(): void;
  /** When the newest backup in DATA_DIR/backups/ was taken (null: none); read by the metrics. */
  lastSuccessAt(): Promise<Date | null>;
  /** Backups that failed since the process started, the schedule's and the operator's. */
  failures(): { scheduled: number; requested: number };
  stop(): Promise<void>;
}

export interface BackupsOptions {
  database: Database;
  dataDir: string;
  clock: Clock;
  logger: Logger;
  intervalHours: number;
  keep: number;
  /** Tests: the schedule's interval in ms instead of intervalHours. */
  intervalMs?: number;
  /** The first scheduled backup when none is due earlier (default a minute after start). */
  firstAfterMs?: number;
}

export const backupsDir = (dataDir: string) => path.join(dataDir, "backups");

export function pgliteVersion(): string {
  // Its package.json is not among the package's exports: found from its entry (dist/index.js).
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const packageJson = path.join(path.dirname(entry), "..", "package.json");
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
}

const stamp = (date: Date) => date.toISOString().replace(/[-:]/g, "");

function createdAtOf(name: string): string | undefined {
  const match = BACKUP_NAME.exec(name);
  if (!match) return undefined;
  const basic = match[1]!;
  return `${basic.slice(0, 4)}-${basic.slice(4, 6)}-${basic.slice(6, 11)}:${basic.slice(11, 13)}:${basic.slice(13)}`;
}

/** fsync a file or a directory (a rename is durable once its directory is). */
async function fsyncPath(target: string): Promise<void> {
  const handle = await open(target, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `content` to `target` atomically: a temporary file, fsync, rename. */
async function writeFileAtomically(target: string, content: string): Promise<void> {
  const temporary = `${target}.tmp-${randomBytes(4).toString("hex")}`;
  await writeFile(temporary, content, { mode: 0o600, flag: "wx" });
  await fsyncPath(temporary);
  await rename(temporary, target);
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

async function listFiles(root: string, relative = ""): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
    const entryPath = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await listFiles(root, entryPath)));
    else if (entry.isFile()) files.push(entryPath);
  }
  return files.sort();
}

/** `sha256sum` lines for every file under `root` (paths relative to it). */
async function checksumLines(root: string, files: string[]): Promise<string> {
  const lines: string[] = [];
  for (const file of files) lines.push(`${await sha256OfFile(path.join(root, file))}  ${file}`);
  return `${lines.join("\n")}\n`;
}

/** The whole-file checksum beside a backup, in `sha256sum` format. */
export const checksumFileOf = (backupFile: string) => `${backupFile}.sha256`;

export async function readChecksumFile(backupFile: string): Promise<string | null> {
  try {
    const content = await readFile(checksumFileOf(backupFile), "utf8");
    return /^([0-9a-f]{64})\s/.exec(content)?.[1] ?? null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

const notOnPostgres = () =>
  new AppError(
    409,
    "backups_not_available",
    'this instance runs on PostgreSQL (DATABASE_URL): back it up with PostgreSQL\'s own tools, e.g. pg_dump --format=custom --file=porchlight.dump "$DATABASE_URL" (docs/operations.md, Backups)',
  );

const backupsUnreadable = (directory: string, code: string | undefined) =>
  new AppError(
    503,
    "backups_unreadable",
    `the backups folder ${path.resolve(directory)} cannot be read (${code ?? "unknown error"}): it must be a folder the service's user can read and write`,
  );

const inMemory = () =>
  new AppError(
    409,
    "backups_not_available",
    "the embedded database runs in memory: it has no files to back up",
  );

export function createBackups(options: BackupsOptions): Backups {
  const { database, dataDir, clock, logger, keep } = options;
  const directory = backupsDir(dataDir);
  const intervalMs = options.intervalMs ?? options.intervalHours * 3_600_000;
  let queue: Promise<unknown> = Promise.resolve();
  let lastFailure: BackupFailure | null = null;
  const failures = { scheduled: 0, requested: 0 };
  let timer: NodeJS.Timeout | undefined;
  let nextAt: Date | null = null;
  let stopped = false;

  async function manifestOf(cluster: string, files: number): Promise<BackupManifest> {
    const server = await queryOne<{ server_version: string }>(database.db, sql`SHOW server_version`);
    const schema = await queryOne<{ version: string | null }>(
      database.db,
      sql`SELECT max(version) AS version FROM schema_migrations`,
    );
    return {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      created_at: clock.now().toISOString(),
      pglite_version: pgliteVersion(),
      postgres_version: server?.server_version ?? "unknown",
      postgres_major: (await readFile(path.join(cluster, "PG_VERSION"), "utf8")).trim(),
      schema_version: schema?.version ?? null,
      files,
    };
  }

  /** Leftovers of a backup that a crash interrupted (only this process writes here). */
  async function removeLeftovers(): Promise<void> {
    for (const name of await readdir(directory)) {
      if (name.startsWith(".tmp-") || name.includes(".tmp-")) {
        await rm(path.join(directory, name), { recursive: true, force: true });
      }
    }
  }

  async function pack(staging: string, target: string): Promise<{ bytes: number; sha256: string }> {
    const { create } = await import("tar");
    const hash = createHash("sha256");
    let bytes = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    const entries = [BACKUP_MANIFEST, BACKUP_CHECKSUMS, BACKUP_CLUSTER_DIR];
    await pipeline(
      create({ gzip: true, cwd: staging, portable: true }, entries),
      measure,
      createWriteStream(target, { flags: "wx", mode: 0o600 }),
    );
    await fsyncPath(target);
    return { bytes, sha256: hash.digest("hex") };
  }

  /** The backup, and how long the snapshot held PGlite's locks (requests waited that long). */
  async function takeBackup(): Promise<{ backup: BackupFile; snapshotMs: number }> {
    const snapshot = database.snapshot;
    if (database.kind === "postgres") throw notOnPostgres();
    if (!snapshot) throw inMemory();
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await removeLeftovers();
    const now = clock.now();
    const name = `porchlight-${stamp(now)}-${randomBytes(3).toString("hex")}.tar.gz`;
    const staging = path.join(directory, `.tmp-${name}.d`);
    const packed = path.join(directory, `.tmp-${name}`);
    const final = path.join(directory, name);
    try {
      const cluster = path.join(staging, BACKUP_CLUSTER_DIR);
      const snapshotStarted = performance.now();
      await snapshot.call(database, cluster);
      const snapshotMs = Math.round(performance.now() - snapshotStarted);
      const files = (await listFiles(staging)).filter((file) => file.startsWith(`${BACKUP_CLUSTER_DIR}/`));
      const manifest = await manifestOf(cluster, files.length);
      await writeFile(path.join(staging, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
        mode: 0o600,
      });
      await writeFile(path.join(staging, BACKUP_CHECKSUMS), await checksumLines(staging, files), {
        mode: 0o600,
      });
      const { bytes, sha256 } = await pack(staging, packed);
      await rename(packed, final);
      await writeFileAtomically(checksumFileOf(final), `${sha256}  ${name}\n`);
      await fsyncPath(directory);
      return {
        backup: { file: path.resolve(final), bytes, sha256, created_at: now.toISOString() },
        snapshotMs,
      };
    } finally {
      await rm(staging, { recursive: true, force: true });
      await rm(packed, { force: true });
    }
  }

  /** Keeps the newest `keep` backups. */
  async function prune(): Promise<void> {
    const backups = (await readdir(directory)).filter((name) => BACKUP_NAME.test(name)).sort();
    for (const name of backups.slice(0, Math.max(0, backups.length - keep))) {
      await rm(path.join(directory, name), { force: true });
      await rm(checksumFileOf(path.join(directory, name)), { force: true });
      logger.info({ file: name }, "old backup deleted (BACKUP_KEEP)");
    }
  }

  async function create(createOptions: { scheduled?: boolean } = {}): Promise<BackupFile> {
    const run = async () => {
      const started = performance.now();
      try {
        const { backup, snapshotMs } = await takeBackup();
        await prune();
        logger.info(
          {
            file: backup.file,
            bytes: backup.bytes,
            ms: Math.round(performance.now() - started),
            snapshotMs,
            scheduled: createOptions.scheduled === true,
          },
          "backup written",
        );
        return backup;
      } catch (error) {
        if (error instanceof AppError) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        lastFailure = { at: clock.now().toISOString(), reason, scheduled: createOptions.scheduled === true };
        failures[createOptions.scheduled ? "scheduled" : "requested"] += 1;
        logger.error({ err: error, scheduled: createOptions.scheduled === true }, "backup failed");
        throw error;
      }
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  }

  async function list(): Promise<BackupListing> {
    if (database.kind === "postgres") throw notOnPostgres();
    let names: string[] = [];
    try {
      names = (await readdir(directory)).filter((name) => BACKUP_NAME.test(name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") throw backupsUnreadable(directory, code);
    }
    const backups: BackupFile[] = [];
    for (const name of names.sort().reverse()) {
      const file = path.join(directory, name);
      const size = await stat(file).catch(() => undefined);
      if (!size) continue;
      backups.push({
        file: path.resolve(file),
        bytes: size.size,
        sha256: await readChecksumFile(file),
        created_at: createdAtOf(name)!,
      });
    }
    return {
      backups,
      last_failure: lastFailure,
      schedule: {
        interval_hours: options.intervalHours,
        keep,
        next_at: nextAt ? nextAt.toISOString() : null,
      },
    };
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    nextAt = new Date(clock.now().getTime() + delayMs);
    // setTimeout holds at most ~24.8 days; a longer wait is taken in steps.
    const step = Math.min(delayMs, 86_400_000);
    timer = setTimeout(() => void tick(), step);
    timer.unref();
  }

  async function tick(): Promise<void> {
    if (stopped || !nextAt) return;
    const remaining = nextAt.getTime() - clock.now().getTime();
    if (remaining > 0) return schedule(remaining);
    // Null while it runs: `next_at` names the backup after this one once it is known.
    nextAt = null;
    try {
      await create({ scheduled: true });
      schedule(intervalMs);
    } catch {
      // Logged and kept as last_failure by create(); tried again within the hour.
      schedule(Math.min(intervalMs, 3_600_000));
    }
  }

  async function lastSuccessAt(): Promise<Date | null> {
    let names: string[];
    try {
      names = (await readdir(directory)).filter((name) => BACKUP_NAME.test(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    const newest = names.sort().at(-1);
    return newest ? new Date(createdAtOf(newest)!) : null;
  }

  const available = database.kind === "pglite" && database.snapshot !== undefined;

  return {
    available,
    create,
    list,
    lastSuccessAt,
    failures: () => ({ ...failures }),
    startSchedule() {
      if (intervalMs <= 0 || !available) return;
      void (async () => {
        const newest = (await list().catch(() => undefined))?.backups[0];
        const dueIn = newest ? Date.parse(newest.created_at) + intervalMs - clock.now().getTime() : 0;
        schedule(Math.max(dueIn, options.firstAfterMs ?? 60_000));
      })();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      nextAt = null;
      await queue;
    },
  };
}
