/**
 * `npm run db:copy-to-postgres -- postgres://…`: the embedded database, stopped, into an empty
 * PostgreSQL (docs/operations.md, Moving to PostgreSQL). The target is migrated by the same
 * migrations, then every table is copied with COPY in foreign-key order, the sequences are set,
 * and each table's row count is compared, all in one transaction: a failure leaves the target as
 * empty as it was, and the command can simply be run again.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { toolApplicationName, withApplicationName } from "./application-name.ts";
import { COPIED_MARKER, markCopied } from "./copied-marker.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { databaseReason, isDatabaseMisconfigured, openDatabase, type Queryable } from "./database.ts";
import { migrate } from "./migrate.ts";

/** A copy that cannot go ahead: one line for the operator, nothing written to the target. */
export class CopyRefused extends Error {}

export interface CopiedTable {
  table: string;
  rows: number;
}

export interface CopySummary {
  tables: CopiedTable[];
  sequences: number;
  ms: number;
}

/** Read from the embedded database this many pages (8 KB) of a table at a time: ~64 MB of COPY text. */
const PAGES_PER_CHUNK = 8_192;

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface SourceTable {
  name: string;
  columns: string[];
  pages: number;
}

async function sourceTables(source: PGlite): Promise<SourceTable[]> {
  const tables = await source.query<{ name: string; pages: number }>(
    `SELECT c.relname AS name, (pg_relation_size(c.oid) / 8192)::int AS pages
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'schema_migrations'
      ORDER BY c.relname`,
  );
  const columns = await source.query<{ table: string; column: string }>(
    `SELECT c.relname AS table, a.attname AS column
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      ORDER BY c.relname, a.attnum`,
  );
  return tables.rows.map((table) => ({
    ...table,
    columns: columns.rows.filter((column) => column.table === table.name).map((column) => column.column),
  }));
}

/** Tables ordered so that every table comes after the tables its foreign keys reference. */
async function inDependencyOrder(source: PGlite, tables: SourceTable[]): Promise<SourceTable[]> {
  const references = await source.query<{ child: string; parent: string }>(
    `SELECT DISTINCT child.relname AS child, parent.relname AS parent
       FROM pg_constraint k
       JOIN pg_class child ON child.oid = k.conrelid
       JOIN pg_class parent ON parent.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = child.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public' AND child.oid <> parent.oid`,
  );
  const ordered: SourceTable[] = [];
  const placed = new Set<string>();
  let remaining = [...tables];
  while (remaining.length > 0) {
    const ready = remaining.filter((table) =>
      references.rows.every((reference) => reference.child !== table.name || placed.has(reference.parent)),
    );
    if (ready.length === 0)
      throw new Error(`foreign keys form a cycle among ${remaining.map((t) => t.name).join(", ")}`);
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
    remaining = remaining.filter((table) => !placed.has(table.name));
  }
  return ordered;
}

/** The first table of the target's schema that holds a row (schema_migrations aside). */
async function firstTableWithRows(target: pg.Client): Promise<string | undefined> {
  const tables = await target.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname <> 'schema_migrations'
      ORDER BY c.relname`,
  );
  for (const { name } of tables.rows) {
    const found = await target.query(`SELECT 1 FROM ${quoteIdentifier(name)} LIMIT 1`);
    if (found.rowCount) return name;
  }
  return undefined;
}

async function appliedMigrations(query: (text: string) => Promise<{ rows: { version: string }[] }>) {
  return (await query("SELECT version FROM schema_migrations ORDER BY version")).rows.map(
    (row) => row.version,
  );
}

async function copyTable(source: PGlite, target: pg.Client, table: SourceTable): Promise<void> {
  const { from: copyFrom } = await import("pg-copy-streams");
  const columns = table.columns.map(quoteIdentifier).join(", ");
  const name = quoteIdentifier(table.name);
  // Whole pages at a time (a TID range scan): a large table never sits in memory at once.
  for (let first = 0; first <= table.pages; first += PAGES_PER_CHUNK) {
    const last = first + PAGES_PER_CHUNK;
    const chunk = await source.query(
      `COPY (SELECT ${columns} FROM ${name} WHERE ctid >= '(${first},0)'::tid AND ctid < '(${last},0)'::tid) TO '/dev/blob'`,
    );
    const bytes = chunk.blob ? Buffer.from(await chunk.blob.arrayBuffer()) : Buffer.alloc(0);
    if (bytes.length === 0) continue;
    await pipeline(Readable.from([bytes]), target.query(copyFrom(`COPY ${name} (${columns}) FROM STDIN`)));
  }
}

/** Every sequence where the embedded database left it, so new rows continue after the copied ones. */
async function copySequences(source: PGlite, target: pg.Client): Promise<number> {
  const sequences = await source.query<{ name: string; last_value: string | null }>(
    `SELECT sequencename AS name, last_value::text FROM pg_sequences WHERE schemaname = 'public'`,
  );
  for (const { name, last_value } of sequences.rows) {
    if (last_value === null) continue;
    await target.query("SELECT setval($1::regclass, $2::bigint, true)", [quoteIdentifier(name), last_value]);
  }
  return sequences.rows.length;
}

async function countRows(run: (text: string) => Promise<{ rows: { count: number }[] }>, table: string) {
  return (await run(`SELECT count(*)::int AS count FROM ${quoteIdentifier(table)}`)).rows[0]!.count;
}

export async function copyToPostgres(options: {
  dataDir: string;
  targetUrl: string;
  progress?: (line: string) => void;
}): Promise<CopySummary> {
  const { dataDir, targetUrl } = options;
  const progress = options.progress ?? (() => {});
  const started = performance.now();
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    throw new CopyRefused(`DATA_DIR ${dataDir} holds no embedded database to copy`);
  }
  // A running server holds this lock: the copy refuses with its pid (the data would move under it).
  const release = lockDataDir(dataDir);
  const [{ PGlite }, { drizzle: drizzlePglite }, { default: pgModule }, { openEmbeddedCluster }] =
    await Promise.all([
      import("@electric-sql/pglite"),
      import("drizzle-orm/pglite"),
      import("pg"),
      import("./syncing-node-fs.ts"),
    ]);
  let opened: PGlite | undefined;
  // Its connections say what they are in the target's pg_stat_activity (unless the URL names them).
  const namedUrl = withApplicationName(targetUrl, toolApplicationName("copy-to-postgres"));
  const target = new pgModule.Client({ connectionString: namedUrl });
  try {
    // Opened as the server opens it (the syncing filesystem, fsync on): the migrations below may
    // write to it, and a later start on this DATA_DIR must find those writes whole.
    const source = await openEmbeddedCluster(PGlite, { dataDir, sync: true, startParams: [] });
    opened = source;
    try {
      await target.connect();
    } catch (error) {
      // A missing database or role is no network trouble: said as the server's start says it.
      const problem = isDatabaseMisconfigured(error) ? "refuses the URL" : "cannot be reached";
      throw new CopyRefused(`the target database ${problem} (${databaseReason(error)})`);
    }
    const holding = await firstTableWithRows(target);
    if (holding) {
      throw new CopyRefused(
        `the target database already holds data (table ${holding} has rows): copy only into an empty database` +
          " (a server started on it wrote its settings there: drop it, create it again and copy before starting the server on it)",
      );
    }
    // Both at this code's schema: the embedded one as its next start would leave it.
    await migrate(drizzlePglite(source) as unknown as Queryable);
    const migrations = await openDatabase({ databaseUrl: namedUrl, poolSize: 1 });
    try {
      await migrate(migrations.db);
    } finally {
      await migrations.close();
    }
    const sourceVersions = await appliedMigrations((text) => source.query<{ version: string }>(text));
    const targetVersions = await appliedMigrations((text) => target.query<{ version: string }>(text));
    if (sourceVersions.join() !== targetVersions.join()) {
      throw new CopyRefused(
        "the target's migrations differ from the embedded database's: is it another application's?",
      );
    }

    const tables = await inDependencyOrder(source, await sourceTables(source));
    const copied: CopiedTable[] = [];
    await target.query("BEGIN");
    try {
      // Triggers of ours (piece history, lead alerts) recorded their rows in the embedded
      // database already; the copy must not add them again. Foreign keys stay checked.
      for (const table of tables)
        await target.query(`ALTER TABLE ${quoteIdentifier(table.name)} DISABLE TRIGGER USER`);
      for (const table of tables) {
        await copyTable(source, target, table);
        const expected = await countRows((text) => source.query<{ count: number }>(text), table.name);
        const rows = await countRows((text) => target.query<{ count: number }>(text), table.name);
        if (rows !== expected) {
          throw new Error(`${table.name}: ${rows} rows copied, the embedded database holds ${expected}`);
        }
        copied.push({ table: table.name, rows });
        progress(`${table.name}: ${rows} ${rows === 1 ? "row" : "rows"}`);
      }
      for (const table of tables)
        await target.query(`ALTER TABLE ${quoteIdentifier(table.name)} ENABLE TRIGGER USER`);
      const sequences = await copySequences(source, target);
      await target.query("COMMIT");
      markCopiedOrSay(dataDir, targetUrl, progress);
      return { tables: copied, sequences, ms: Math.round(performance.now() - started) };
    } catch (error) {
      await target.query("ROLLBACK").catch(() => {});
      throw error;
    }
  } finally {
    await target.end().catch(() => {});
    await opened?.close().catch(() => {});
    release();
  }
}

/**
 * The copy is committed: a marker that cannot be written (a full disk) must not read as a failed,
 * rolled-back copy. It is said instead, with what it means.
 */
function markCopiedOrSay(dataDir: string, targetUrl: string, progress: (line: string) => void): void {
  try {
    markCopied(dataDir, targetUrl, new Date());
  } catch (error) {
    progress(
      `the copy is committed, but ${COPIED_MARKER} could not be written in DATA_DIR (${error instanceof Error ? error.message : String(error)}): a start without DATABASE_URL would serve the old embedded copy`,
    );
  }
}
