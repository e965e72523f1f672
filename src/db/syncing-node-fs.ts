/**
 * PGlite's Node filesystem with the one operation it lacks: fsync.
 *
 * PGlite keeps its cluster on disk through Emscripten's NODEFS, whose files are real files opened
 * with Node's `fs`. Its start parameters include `-F` (fsync off), and even with fsync on nothing
 * would reach the disk: Emscripten's `fsync()` calls the stream's `fsync` operation, which NODEFS
 * does not have, and reports success (electric-sql/pglite issue 1107). A write PostgreSQL had
 * committed was therefore only in the operating system's page cache: it survived a killed process,
 * not a kernel crash or a power loss.
 *
 * This filesystem gives NODEFS that operation (a real `fdatasync(2)` of the host file, `fsync(2)` of
 * a directory),
 * so PostgreSQL's own durability rules apply unchanged once it runs with fsync on (see
 * `embeddedStartParams`): the write-ahead log is flushed to disk before a commit returns, data
 * files and `pg_control` at each checkpoint, new files' directory entries with them. A failed
 * fsync is reported to PostgreSQL as EIO, which PostgreSQL treats as fatal: the commit is never
 * acknowledged.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  constants as fsConstants,
  fsyncSync,
  openSync,
  readdirSync,
} from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import { makeClusterPrivate } from "./data-dir-lock.ts";

type EmscriptenModule = Parameters<NodeFS["init"]>[1];

/** The parts of Emscripten's NODEFS this file uses. */
interface NodeFsInternals {
  stream_ops: Record<string, unknown> & { fsync?: (stream: NodeFsStream) => number };
  realPath(node: unknown): string;
  tryFSOperation<T>(operation: () => T): T;
}

interface NodeFsStream {
  /** The host file descriptor NODEFS opened for this stream, when it opened one. */
  nfd?: number;
  node: { mode: number };
}

/** Flushes a host file, or a directory's entries, to the disk. */
export type SyncFile = (fd: number) => void;

/** How a regular file's and a directory's writes are flushed. */
export interface FileSyncs {
  file: SyncFile;
  directory: SyncFile;
}

/**
 * A regular file's data and the size needed to read it back is what fdatasync flushes: enough
 * for the WAL and the data files, and it skips the journal commit an mtime change would force on
 * ext4 (which also flushes every other file's pending data, such as the outbox's PDFs). A
 * directory's new entries are flushed by fsync.
 */
export const HOST_SYNCS: FileSyncs = { file: fdatasyncSync, directory: fsyncSync };

const isDirectory = (mode: number) => (mode & fsConstants.S_IFMT) === fsConstants.S_IFDIR;

function addFsync(nodefs: NodeFsInternals, syncs: FileSyncs): void {
  nodefs.stream_ops.fsync = (stream) =>
    nodefs.tryFSOperation(() => {
      if (stream.nfd !== undefined) {
        (isDirectory(stream.node.mode) ? syncs.directory : syncs.file)(stream.nfd);
        return 0;
      }
      // A stream without a host descriptor (a directory on some Emscripten versions).
      syncPath(nodefs.realPath(stream.node), syncs.directory);
      return 0;
    });
}

export class SyncingNodeFS extends NodeFS {
  readonly #syncs: FileSyncs;

  constructor(dataDir: string, syncs: FileSyncs = HOST_SYNCS) {
    super(dataDir);
    this.#syncs = syncs;
  }

  override async init(pg: PGlite, opts: EmscriptenModule) {
    const { emscriptenOpts } = await super.init(pg, opts);
    const installFsync = (module: unknown) =>
      addFsync((module as { NODEFS: NodeFsInternals }).NODEFS, this.#syncs);
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [installFsync, ...(emscriptenOpts.preRun ?? [])] },
    };
  }
}

export interface EmbeddedClusterOptions {
  /** Absent: in memory (tests), where there is nothing to sync. */
  dataDir: string | undefined;
  sync: boolean;
  /** Appended to PGlite's default start parameters. */
  startParams: string[];
  pgliteWasmModule?: WebAssembly.Module;
  initdbWasmModule?: WebAssembly.Module;
}

/**
 * Opens PGlite on `dataDir` (creating the cluster there if there is none) with every commit
 * flushed to disk before it returns when `sync` is on, and the cluster's files private.
 */
export async function openEmbeddedCluster(
  PGliteClass: typeof PGlite,
  options: EmbeddedClusterOptions,
): Promise<PGlite> {
  const { dataDir } = options;
  const sync = dataDir !== undefined && options.sync;
  const created = dataDir !== undefined && !existsSync(path.join(dataDir, "PG_VERSION"));
  const client = new PGliteClass({
    ...(dataDir ? { fs: new SyncingNodeFS(dataDir) } : {}),
    startParams: [...embeddedStartParams(PGliteClass.defaultStartParams, sync), ...options.startParams],
    ...(options.pgliteWasmModule ? { pgliteWasmModule: options.pgliteWasmModule } : {}),
    ...(options.initdbWasmModule ? { initdbWasmModule: options.initdbWasmModule } : {}),
  });
  await client.waitReady;
  if (dataDir) makeClusterPrivate(dataDir);
  if (dataDir && sync && created) syncClusterTree(dataDir);
  return client;
}

/**
 * PGlite's start parameters for a cluster on disk. With sync on, `-F` (fsync off) is dropped and
 * the WAL is flushed with `fsync()`: Emscripten's `fdatasync()`, PostgreSQL's default method on
 * Linux, returns without calling anything.
 */
export function embeddedStartParams(defaults: readonly string[], sync: boolean): string[] {
  if (!sync) return [...defaults];
  return [...defaults.filter((parameter) => parameter !== "-F"), "-c", "wal_sync_method=fsync"];
}

/**
 * Flushes every file and directory of a cluster to the disk, once, after PGlite created it:
 * initdb writes the new cluster without fsync (PostgreSQL's own initdb syncs it at its end).
 */
export function syncClusterTree(dataDir: string, syncFile: SyncFile = fsyncSync): void {
  const entries = readdirSync(dataDir, { withFileTypes: true, recursive: true });
  // Files first, then each directory, deepest first, so every entry is on disk before its parent.
  const files = entries.filter((entry) => entry.isFile());
  const directories = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort((a, b) => b.length - a.length);
  for (const file of files) syncPath(path.join(file.parentPath, file.name), syncFile);
  for (const directory of [...directories, dataDir]) syncPath(directory, syncFile);
}

function syncPath(target: string, syncFile: SyncFile): void {
  const fd = openSync(target, fsConstants.O_RDONLY);
  try {
    syncFile(fd);
  } finally {
    closeSync(fd);
  }
}
