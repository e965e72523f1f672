/**
 * A point-in-time copy of the embedded database's files, taken while it serves. PGlite keeps its
 * PostgreSQL cluster in DATA_DIR beside files that are not the database's (the outbox, the
 * operator token, the backups themselves), so only the cluster's own entries are copied.
 *
 * Consistency: the copy runs inside PGlite's transaction and query locks, right after a
 * CHECKPOINT, so no statement runs between the checkpoint and the last file copied and every
 * transaction committed before the snapshot began is in the copied data files (the WAL copied
 * with them replays nothing or only what the checkpoint already wrote). Requests wait for the
 * copy: a file copy, about a second per GB from the page cache, reflinked where the filesystem can.
 */
import { constants, copyFileSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { type PGlite, protocol } from "@electric-sql/pglite";

/** The cluster's top-level entries (PostgreSQL's layout); everything else in DATA_DIR is ours. */
export function isClusterEntry(name: string): boolean {
  if (name === "postmaster.pid") return false;
  return /^(PG_VERSION|base|global|pg_[a-z_]+|[a-z_.]+\.conf|postmaster\.opts)$/.test(name);
}

/** The locks `PGlite.query` takes (declared by PGlite's base class; see pglite-prepared.ts). */
interface PgliteLocks {
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
}

function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    // A reflink (copy-on-write) where the filesystem offers one, else a plain copy.
    else if (entry.isFile()) copyFileSync(source, target, constants.COPYFILE_FICLONE);
  }
}

/** Copies the cluster's files of `dataDir` into `targetDir` (created), synchronously. */
export function copyClusterFiles(dataDir: string, targetDir: string): void {
  mkdirSync(targetDir, { recursive: true, mode: 0o700 });
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (!isClusterEntry(entry.name)) continue;
    const source = path.join(dataDir, entry.name);
    const target = path.join(targetDir, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isFile()) copyFileSync(source, target, constants.COPYFILE_FICLONE);
  }
}

/** CHECKPOINT, then the copy, with no other statement of PGlite's one session in between. */
export async function snapshotPgliteCluster(
  client: PGlite,
  dataDir: string,
  targetDir: string,
): Promise<void> {
  const locks = client as unknown as PgliteLocks;
  await locks._runExclusiveTransaction(() =>
    locks._runExclusiveQuery(async () => {
      await client.execProtocol(protocol.serialize.query("CHECKPOINT"), { syncToFs: false });
      copyClusterFiles(dataDir, targetDir);
    }),
  );
}
