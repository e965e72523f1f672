/**
 * A PostgreSQL load large against the table (docs/neighbour-mail.md, "Loading"): the rows are
 * COPYed into a session temp table with their line numbers while the file is parsed, then one
 * transaction builds a new table holding the current rows and the file's new ones (one sorted
 * `INSERT … SELECT DISTINCT ON`: a present address keeps its row, a file's repeated address its
 * first line), builds its indexes once, ANALYZEs it and swaps it in by renames. A GiST index built
 * once over sorted points is several times cheaper than a GiST insert per row.
 *
 * What a running server sees: the current table, untouched and fully indexed, until the swap's
 * commit; a write (another loader) waits from the start of the build. The swap needs the table's
 * exclusive lock for the drop and renames (milliseconds); it asks with a short lock timeout, so
 * that queries queued behind the request wait at most that long, and retries when a reader holds
 * the table. Statements after the commit find the new table by name. A load that fails anywhere
 * rolls back: the table is as it was and nothing of the build remains. So does a load that adds
 * nothing (the same file again): the table is left untouched.
 *
 * The new table is `LIKE reference_addresses INCLUDING ALL EXCLUDING INDEXES` (columns, defaults,
 * generated column, CHECK constraints by their names), and its indexes and key constraints are
 * rebuilt from the catalog's definitions of the current ones and renamed to their names, so the
 * swapped table is what the migrations made and later migrations apply to it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { type AddressSink, copyRows, postgresCopySink } from "./load-addresses.ts";
import { recountZipsFrom } from "./reference-addresses.ts";

const TABLE = "reference_addresses";
const NEXT = "reference_addresses_next";
const STAGING = "reference_addresses_staging";
const COLUMNS = "normalized_address, street, city, state, zip, latitude, longitude";
/** PostgreSQL's SQLSTATE for a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = "55P03";

export interface SwapSinkOptions {
  /** Places the connection in a schema (the tests' isolation). */
  searchPath?: string;
  batchSize?: number;
  /** Told each step of the load's end ("building the indexes"), for the loader's output. */
  onStep?: (step: string) => void;
  /** How long the swap waits for the table's exclusive lock per attempt (queries queue behind it meanwhile). */
  swapLockTimeoutMs?: number;
  /** Attempts at that lock before the load fails (rolled back: the table stays as it was). */
  swapAttempts?: number;
}

interface TableIndex {
  name: string;
  definition: string;
  constraint_name: string | null;
  constraint_type: string | null;
}

/**
 * Why the table cannot be replaced by a rebuilt copy, or undefined when it can: what refers to it
 * by OID (foreign keys either way, views and rules, triggers, row security, grants) would be lost
 * or would block the drop.
 */
export async function swapBlockers(client: pg.Client): Promise<string | undefined> {
  const { rows } = await client.query<{ blockers: string[] }>(
    `SELECT array_remove(ARRAY[
        CASE WHEN EXISTS (SELECT 1 FROM pg_constraint WHERE contype = 'f' AND (conrelid = t.oid OR confrelid = t.oid))
          THEN 'a foreign key' END,
        CASE WHEN EXISTS (SELECT 1 FROM pg_depend d JOIN pg_rewrite r ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
                          WHERE d.refobjid = t.oid AND r.ev_class <> t.oid)
          THEN 'a view' END,
        CASE WHEN EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = t.oid AND NOT tgisinternal) THEN 'a trigger' END,
        CASE WHEN t.relrowsecurity THEN 'row security' END,
        CASE WHEN t.relacl IS NOT NULL THEN 'grants' END,
        CASE WHEN EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = t.oid AND contype NOT IN ('p', 'u', 'c', 'n'))
          THEN 'an exclusion constraint' END
      ], NULL) AS blockers
     FROM pg_class t WHERE t.oid = '${TABLE}'::regclass`,
  );
  const blockers = rows[0]?.blockers ?? [];
  return blockers.length > 0 ? `${TABLE} has ${blockers.join(", ")}` : undefined;
}

/** `CREATE [UNIQUE] INDEX name ON schema.table USING …` as the same index on `table` named `name`. */
export function indexOn(definition: string, table: string, name: string): string {
  const match = /^(CREATE (?:UNIQUE )?INDEX) \S+ ON (?:ONLY )?\S+ (USING .+)$/s.exec(definition);
  if (!match) throw new Error(`unexpected index definition: ${definition}`);
  return `${match[1]} ${name} ON ${table} ${match[2]}`;
}

/**
 * The swap load's sink, on a connection of its own (COPY needs the raw client). Throws when
 * `swapBlockers` names something (`postgresLoadSink` falls back to the incremental path then).
 */
export async function postgresSwapSink(
  databaseUrl: string,
  options: SwapSinkOptions = {},
): Promise<AddressSink> {
  const sink = await openSwapSink(databaseUrl, options);
  if ("blocked" in sink) throw new Error(`${sink.blocked}: it cannot be rebuilt and swapped`);
  return sink;
}

async function openSwapSink(
  databaseUrl: string,
  options: SwapSinkOptions,
): Promise<AddressSink | { blocked: string }> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  await client.connect();
  try {
    const blocked = await swapBlockers(client);
    if (blocked) {
      await client.end();
      return { blocked };
    }
    await client.query(`CREATE TEMP TABLE ${STAGING}
      (normalized_address text, street text, city text, state text, zip text, latitude float8, longitude float8, line bigint)`);
  } catch (error) {
    await client.end();
    throw error;
  }
  const step = options.onStep ?? (() => {});
  let lines = 0;
  let transaction = false;
  return {
    batchSize: options.batchSize ?? 20_000,
    async write(rows) {
      const first = lines;
      lines += rows.length;
      if (rows.length > 0) await copyRows(client, STAGING, rows, (index) => String(first + index));
      return undefined;
    },
    async finish() {
      if (lines === 0) return 0;
      await client.query("BEGIN");
      transaction = true;
      // Memory for the sort of the merge and the index builds, this transaction only.
      await client.query("SET LOCAL work_mem = '256MB'");
      await client.query("SET LOCAL maintenance_work_mem = '256MB'");
      // Reads go on; writes (another loader) wait, so the copy misses none of them.
      await client.query(`LOCK TABLE ${TABLE} IN SHARE ROW EXCLUSIVE MODE`);
      const { rows: indexes } = await client.query<TableIndex>(
        `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS definition,
                c.conname AS constraint_name, c.contype AS constraint_type
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
         LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
         WHERE x.indrelid = '${TABLE}'::regclass
         ORDER BY x.indisprimary DESC, i.relname`,
      );
      const { rows: counted } = await client.query<{ count: string }>(
        `SELECT count(*) AS count FROM ${TABLE}`,
      );
      const present = Number(counted[0]?.count ?? 0);
      step(`merging ${lines} rows with the ${present} present into a new table`);
      await client.query(`CREATE TABLE ${NEXT} (LIKE ${TABLE} INCLUDING ALL EXCLUDING INDEXES)`);
      const merged = await client.query(
        `INSERT INTO ${NEXT} (${COLUMNS})
         SELECT DISTINCT ON (normalized_address) ${COLUMNS} FROM (
           SELECT ${COLUMNS}, 0 AS source, 0::bigint AS line FROM ${TABLE}
           UNION ALL
           SELECT ${COLUMNS}, 1, line FROM ${STAGING}
         ) AS candidates
         ORDER BY normalized_address, source, line`,
      );
      const added = (merged.rowCount ?? 0) - present;
      if (added === 0) {
        // Every row was present (the same file again): the table stays, untouched.
        await client.query("ROLLBACK");
        transaction = false;
        return 0;
      }
      step(`building ${indexes.length} indexes`);
      const renames: string[] = [];
      for (const [position, index] of indexes.entries()) {
        const building = `${NEXT}_${position}`;
        await client.query(indexOn(index.definition, NEXT, building));
        if (index.constraint_type === "p" || index.constraint_type === "u") {
          // USING INDEX renames the index to the constraint's name; renaming it back renames both.
          const kind = index.constraint_type === "p" ? "PRIMARY KEY" : "UNIQUE";
          await client.query(
            `ALTER TABLE ${NEXT} ADD CONSTRAINT ${building} ${kind} USING INDEX ${building}`,
          );
        }
        renames.push(`ALTER INDEX ${building} RENAME TO ${client.escapeIdentifier(index.name)}`);
      }
      for (const statement of recountZipsFrom(NEXT)) await client.query(statement);
      await client.query(`ANALYZE ${NEXT}`);
      step("swapping the new table in");
      await client.query(`SET LOCAL lock_timeout = '${options.swapLockTimeoutMs ?? 1000}ms'`);
      const attempts = options.swapAttempts ?? 300;
      for (let attempt = 1; ; attempt++) {
        await client.query("SAVEPOINT swap");
        try {
          await client.query(`LOCK TABLE ${TABLE} IN ACCESS EXCLUSIVE MODE`);
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= attempts) throw error;
          // Let the queries queued behind the request run, then ask again.
          await client.query("ROLLBACK TO SAVEPOINT swap");
          await sleep(100);
        }
      }
      await client.query(`DROP TABLE ${TABLE}`);
      await client.query(`ALTER TABLE ${NEXT} RENAME TO ${TABLE}`);
      for (const rename of renames) await client.query(rename);
      await client.query("COMMIT");
      transaction = false;
      return added;
    },
    async close() {
      try {
        if (transaction) await client.query("ROLLBACK");
      } finally {
        transaction = false;
        await client.end();
      }
    },
  };
}

/**
 * The PostgreSQL sink for a file: the swap load when the file is large against the table (see
 * `loadOutweighsTable`) and the table can be swapped, else COPY batches inserted through the
 * indexes (a small file into a large table: its rows cost less than rebuilding the table).
 */
export async function postgresLoadSink(
  databaseUrl: string,
  options: SwapSinkOptions & { large: boolean },
): Promise<AddressSink> {
  const { large, ...swap } = options;
  const incremental = () =>
    postgresCopySink(databaseUrl, {
      ...(swap.searchPath ? { searchPath: swap.searchPath } : {}),
      ...(swap.batchSize ? { batchSize: swap.batchSize } : {}),
    });
  if (!large) return incremental();
  const sink = await openSwapSink(databaseUrl, swap);
  if (!("blocked" in sink)) return sink;
  swap.onStep?.(`${sink.blocked}: loading through its indexes instead of rebuilding it`);
  return incremental();
}
