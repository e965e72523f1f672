import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { DataMigration } from "./data-migration.ts";
import { streetTypeKeys } from "./data-migration-0410-street-type-keys.ts";
import { wholeStreetKeys } from "./data-migration-0420-whole-street-keys.ts";
import { leadingStreetTypeKeys } from "./data-migration-0430-leading-street-type-keys.ts";
import { commaTownKeys } from "./data-migration-0440-comma-town-keys.ts";
import { stateAloneKeys } from "./data-migration-0450-state-alone-keys.ts";
import { routeNumberKeys } from "./data-migration-0460-route-number-keys.ts";
import { routeBeforeStateKeys } from "./data-migration-0470-route-before-state-keys.ts";
import { spelledOutTownKeys } from "./data-migration-0480-spelled-out-town-keys.ts";
import { sainteTownKeys } from "./data-migration-0490-sainte-town-keys.ts";
import { zipTownKeys } from "./data-migration-0530-zip-town-keys.ts";
import { ordinalStreetKeys } from "./data-migration-0540-ordinal-street-keys.ts";
import { type Queryable, queryRows, sql } from "./database.ts";

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../migrations");

// Any constant works; it only has to be the same in every process that migrates.
export const MIGRATION_LOCK_ID = 73_556_081;

/** A file of migrations/: SQL statements. */
export interface SqlMigration {
  version: string;
  statements: string;
}

export type Migration = SqlMigration | DataMigration;

/** The migrations written in TypeScript (src/db/data-migration.ts), each at its version. */
export const DATA_MIGRATIONS: readonly DataMigration[] = [
  streetTypeKeys,
  wholeStreetKeys,
  leadingStreetTypeKeys,
  commaTownKeys,
  stateAloneKeys,
  routeNumberKeys,
  routeBeforeStateKeys,
  spelledOutTownKeys,
  sainteTownKeys,
  zipTownKeys,
  ordinalStreetKeys,
];

/** The SQL files of `dir` and the data migrations, in version order (one numbering for both). */
export async function loadMigrations(
  dir = MIGRATIONS_DIR,
  data: readonly DataMigration[] = DATA_MIGRATIONS,
): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file));
  const sqlMigrations = await Promise.all(
    files.map(async (file) => ({
      version: file.replace(/\.sql$/, ""),
      statements: await readFile(path.join(dir, file), "utf8"),
    })),
  );
  const all: Migration[] = [...sqlMigrations, ...data].sort((a, b) => a.version.localeCompare(b.version));
  const taken = all.find(
    (migration, index) => all[index - 1]?.version.slice(0, 4) === migration.version.slice(0, 4),
  );
  if (taken) throw new Error(`two migrations are numbered ${taken.version.slice(0, 4)}`);
  return all;
}

/**
 * Applies pending migrations (SQL files and data migrations) in one transaction under an advisory
 * lock, so several processes starting together apply each migration exactly once and a failed
 * migration leaves nothing.
 * Returns the versions applied by this call.
 */
export async function migrate(db: Queryable, migrations?: Migration[]): Promise<string[]> {
  const pending = migrations ?? (await loadMigrations());
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Set(
      (await queryRows<{ version: string }>(tx, sql`SELECT version FROM schema_migrations`)).map(
        (row) => row.version,
      ),
    );
    const appliedNow: string[] = [];
    for (const migration of pending) {
      if (applied.has(migration.version)) continue;
      if ("run" in migration) await migration.run(tx);
      else
        for (const statement of splitStatements(migration.statements)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`INSERT INTO schema_migrations (version) VALUES (${migration.version})`);
      appliedNow.push(migration.version);
    }
    return appliedNow;
  });
}

/**
 * Splits a migration into statements at semicolons that end a line, outside dollar-quoted
 * bodies (a function's `$$ … $$`); both drivers run one statement per parameterised query.
 * Lines that are comments are left out.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let lines: string[] = [];
  let inBody = false;
  for (const line of script.split("\n")) {
    if (/^\s*--/.test(line)) continue;
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inBody = !inBody;
    const end = inBody ? null : /;[ \t]*(?:--[^\n]*)?$/.exec(line);
    lines.push(end ? line.slice(0, end.index) : line);
    if (end) {
      statements.push(lines.join("\n").trim());
      lines = [];
    }
  }
  statements.push(lines.join("\n").trim());
  return statements.filter(Boolean);
}
