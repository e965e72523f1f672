/**
 * A migrated PGlite cluster made once and copied for every test database. A fresh in-memory PGlite
 * runs initdb and then every migration: 3-10 s a database on a 2-core VM, hundreds of times a run.
 * Copying a migrated cluster's files (~40 MB) and opening them takes a fraction of that. The
 * template is made by migrating from nothing, so every run still applies each migration once; its
 * name is a hash of the migrations' own text and PGlite's version, so an edited migration makes a
 * new one. The copies live on disk beside it, written without fsync, and are removed on drop (and,
 * if a test process was killed, by the next process that finds them).
 * A test of one migration asks for a database migrated to just before it: that list of migrations
 * gets a template of its own, made once a run like the full one.
 * TEST_PGLITE_TEMPLATE=off opens each database in memory from initdb, as before.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { copyClusterFiles } from "../../src/db/cluster-snapshot.ts";
import { type Database, openDatabase } from "../../src/db/database.ts";
import { loadMigrations, type Migration, migrate } from "../../src/db/migrate.ts";

export const PGLITE_TEMPLATE_ON = process.env.TEST_PGLITE_TEMPLATE !== "off";

const ROOT = path.join(os.tmpdir(), "porchlight-test-pglite");
const COPY_PREFIX = "db-";
/** A template no process has copied for this long (another checkout's, a migration edited since) is removed. */
const STALE_TEMPLATE_MS = 60 * 60_000;

const pgliteThread = () => process.env.PGLITE_THREAD !== "off";
const ownCopies = new Set<string>();
/** Each template's directory by the hash of its migrations, made once a process asks for it. */
const templates = new Map<string, Promise<string>>();
/** Every migration, read once a process: each database opened without a list copies their template. */
let allMigrations: Promise<Migration[]> | undefined;
function migrationsOrAll(migrations?: Migration[]): Promise<Migration[]> {
  if (migrations) return Promise.resolve(migrations);
  allMigrations ??= loadMigrations();
  return allMigrations;
}

/**
 * The directory of a template migrated through `migrations` (every migration when absent), made on
 * first use: a PGlite cluster to copy, never to open.
 */
export async function migratedTemplateDir(migrations?: Migration[]): Promise<string> {
  const chosen = await migrationsOrAll(migrations);
  const name = `template-${templateHash(chosen)}`;
  let template = templates.get(name);
  if (!template) {
    template = ensureTemplate(name, chosen);
    templates.set(name, template);
  }
  const templateDir = await template;
  // Marks it as in use, so a process making another template does not remove it as stale.
  const now = new Date();
  utimesSync(templateDir, now, now);
  return templateDir;
}

/**
 * Opens a database copied from the template migrated through `migrations` (every migration when
 * absent); its `drop` closes it and removes its files.
 */
export async function openDatabaseFromTemplate(
  migrations?: Migration[],
): Promise<{ database: Database; drop(): Promise<void> }> {
  const chosen = await migrationsOrAll(migrations);
  const templateDir = await migratedTemplateDir(chosen);
  const dataDir = path.join(ROOT, `${COPY_PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
  ownCopies.add(dataDir);
  copyClusterFiles(templateDir, dataDir);
  const database = await openDatabase({ dataDir, pgliteThread: pgliteThread(), embeddedSync: false });
  // Nothing to apply unless the template is behind; cheap either way.
  await migrate(database.db, chosen);
  return {
    database,
    drop: async () => {
      await database.close().catch(() => undefined);
      removeCopy(dataDir);
    },
  };
}

function removeCopy(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
  ownCopies.delete(dataDir);
}

process.on("exit", () => {
  for (const dataDir of ownCopies) rmSync(dataDir, { recursive: true, force: true });
});

async function ensureTemplate(name: string, migrations: Migration[]): Promise<string> {
  mkdirSync(ROOT, { recursive: true });
  removeCopiesOfDeadProcesses();
  const templateDir = path.join(ROOT, name);
  if (existsSync(path.join(templateDir, "PG_VERSION"))) return templateDir;
  removeStaleTemplates(name);
  // Built aside and renamed into place, so a process never opens half a template; when two
  // processes build at once, the first rename wins and the other's copy is dropped.
  const building = path.join(ROOT, `building-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(building, { mode: 0o700 });
  const database = await openDatabase({
    dataDir: building,
    pgliteThread: pgliteThread(),
    embeddedSync: false,
  });
  try {
    await migrate(database.db, migrations);
  } finally {
    await database.close();
  }
  try {
    renameSync(building, templateDir);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return templateDir;
}

function templateHash(migrations: Migration[]): string {
  const hash = createHash("sha256");
  hash.update(pgliteVersion());
  for (const migration of migrations) {
    hash.update(migration.version);
    hash.update("statements" in migration ? migration.statements : String(Object.values(migration)));
  }
  return hash.digest("hex").slice(0, 16);
}

/** PGlite's version, from its package.json (its exports do not include that file). */
function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (dir !== path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8"));
      if (manifest.name === "@electric-sql/pglite") return manifest.version;
    }
    dir = path.dirname(dir);
  }
  throw new Error("PGlite's package.json was not found");
}

function removeCopiesOfDeadProcesses(): void {
  for (const entry of readdirSync(ROOT)) {
    const pid = Number(/^(?:db|building)-(\d+)-/.exec(entry)?.[1]);
    if (pid && !isAlive(pid)) rmSync(path.join(ROOT, entry), { recursive: true, force: true });
  }
}

function removeStaleTemplates(current: string): void {
  for (const entry of readdirSync(ROOT)) {
    if (!entry.startsWith("template-") || entry === current) continue;
    const dir = path.join(ROOT, entry);
    if (Date.now() - statSync(dir).mtimeMs > STALE_TEMPLATE_MS) rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
