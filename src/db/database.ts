import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { type SQL, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type pg from "pg";
import { causeChain, type ErrorLike } from "../errors.ts";

/** A database handle or an open transaction: both run the same queries. */
export type Queryable = PgDatabase<PgQueryResultHKT, Record<string, never>>;

/**
 * A hot-path statement sent without the query builder. On PostgreSQL the name makes it a prepared
 * statement: each connection parses and plans it once, then only binds values.
 */
export interface NamedStatement {
  name: string;
  text: string;
  values: unknown[];
}

export interface Database {
  readonly db: Queryable;
  readonly kind: "pglite" | "postgres";
  /** Runs a named statement outside any transaction and returns its rows. */
  run<T>(statement: NamedStatement): Promise<T[]>;
  /**
   * Calls `onNotify` for every NOTIFY on `channel` (an SQL identifier), and once more after each
   * reconnection, since notifications sent while disconnected are lost. Best effort: callers
   * must not depend on it for correctness. Resolves to a function that stops listening.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * The embedded database kept in files only: copies its cluster's files into `targetDir` at one
   * point in time, while it serves (`cluster-snapshot.ts`). Absent on PostgreSQL and in memory.
   */
  snapshot?(targetDir: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A PostgreSQL connection string; when absent, the embedded PGlite is used. */
  databaseUrl?: string;
  /** Where PGlite persists; absent means in memory (tests). */
  dataDir?: string;
  /** PostgreSQL only: run every query in this schema (tests isolate themselves this way). */
  searchPath?: string;
  poolSize?: number;
  onPoolError?: (error: Error) => void;
  /**
   * PostgreSQL only: a query unanswered this long fails (a frozen or partitioned server would
   * otherwise hold its request forever); absent, no limit (migrations may build large indexes).
   */
  queryTimeoutMs?: number;
  /**
   * PGlite only: run PGlite on a worker thread of its own, so that the event loop never executes
   * PostgreSQL (the server's default, PGLITE_THREAD); false runs it on the calling thread (one-shot
   * tools such as `addresses:load`, where nothing else waits on the loop).
   */
  pgliteThread?: boolean;
  /**
   * PGlite on disk only: each commit is on disk before it returns (EMBEDDED_SYNC, default on);
   * false leaves it in the operating system's page cache, as PGlite does by itself
   * (`syncing-node-fs.ts`).
   */
  embeddedSync?: boolean;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  return openPglite(options.dataDir, options.pgliteThread ?? false, options.embeddedSync ?? true);
}

/**
 * PGlite's buffer cache lives in its WebAssembly memory, which never shrinks: at PostgreSQL's
 * default 128 MB the idle default start held ~300 MB, at 16 MB ~185 MB. The data files stay in the
 * operating system's page cache either way, so a page missing from this cache costs a read system
 * call, not a disk read (docs/benchmarks.md measures the events load with both).
 */
const PGLITE_SHARED_BUFFERS = "16MB";

/** On PGlite's one session for its lifetime, before the first request. */
const PGLITE_SESSION_SETTINGS = [
  // Zero-filling each new 16 MB WAL segment stalled PGlite (and, on the event loop, every
  // request) ~45 ms every few seconds of sustained writes. Without it a new segment is sparse
  // until written; each commit's sync (fdatasync on the host) flushes its blocks and their
  // allocation, which is metadata needed to read them back.
  "SET wal_init_zero = off",
];

// Each driver is loaded by the open function that uses it: a process loads one of the two.
async function openPglite(dataDir: string | undefined, inThread: boolean, sync: boolean): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  if (inThread) return openPgliteThreaded(dataDir, sync);
  const [{ PGlite }, { drizzle: drizzlePglite }, { createPreparedQuery }, { openEmbeddedCluster }] =
    await Promise.all([
      import("@electric-sql/pglite"),
      import("drizzle-orm/pglite"),
      import("./pglite-prepared.ts"),
      import("./syncing-node-fs.ts"),
    ]);
  const client = await openEmbeddedCluster(PGlite, {
    dataDir,
    sync,
    startParams: ["-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
  });
  const { snapshotPgliteCluster } = await import("./cluster-snapshot.ts");
  for (const statement of PGLITE_SESSION_SETTINGS) await client.exec(statement);
  const query = createPreparedQuery(client);
  // Drizzle's PGlite session calls only query (outside transactions) and transaction.
  const preparedClient = { query, transaction: client.transaction.bind(client) } as unknown as PGlite;
  return pgliteDatabase(drizzlePglite(preparedClient) as unknown as Queryable, {
    query,
    listen: (channel, onNotify) => client.listen(channel, onNotify),
    ...(dataDir
      ? { snapshot: (targetDir: string) => snapshotPgliteCluster(client, dataDir, targetDir) }
      : {}),
    get closed() {
      return client.closed;
    },
    close: () => client.close(),
  });
}

/** What the Database needs of PGlite, on this thread or behind the thread's proxy. */
interface PgliteHandle {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  snapshot?(targetDir: string): Promise<void>;
  readonly closed: boolean;
  close(): Promise<void>;
}

function pgliteDatabase(db: Queryable, handle: PgliteHandle): Database {
  return {
    db,
    kind: "pglite",
    run: async <T>({ text, values }: NamedStatement) => (await handle.query<T>(text, values)).rows,
    listen: async (channel, onNotify) => {
      const unsubscribe = await handle.listen(assertIdentifier(channel), () => onNotify());
      return async () => {
        if (!handle.closed) await unsubscribe();
      };
    },
    ping: async () => {
      await handle.query("SELECT 1");
    },
    ...(handle.snapshot ? { snapshot: handle.snapshot.bind(handle) } : {}),
    close: async () => {
      if (!handle.closed) await handle.close();
    },
  };
}

/** PGlite on a thread of its own (`pglite-thread.ts`): the event loop never runs PostgreSQL. */
async function openPgliteThreaded(dataDir: string | undefined, sync: boolean): Promise<Database> {
  const [{ drizzle: drizzlePglite }, { compiledPgliteWasm, openPgliteThread }] = await Promise.all([
    import("drizzle-orm/pglite"),
    import("./pglite-thread.ts"),
  ]);
  // initdb runs only where no cluster exists yet (always in memory).
  const needsInitdb = !dataDir || !existsSync(path.join(dataDir, "PG_VERSION"));
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
    compiledPgliteWasm("pglite.wasm"),
    needsInitdb ? compiledPgliteWasm("initdb.wasm") : undefined,
  ]);
  const thread = await openPgliteThread({
    dataDir,
    sync,
    startParams: ["-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    sessionSettings: PGLITE_SESSION_SETTINGS,
    pgliteWasmModule,
    ...(initdbWasmModule ? { initdbWasmModule } : {}),
  });
  return pgliteDatabase(drizzlePglite(thread as unknown as PGlite) as unknown as Queryable, {
    query: thread.query,
    listen: thread.listen,
    ...(dataDir ? { snapshot: thread.snapshot } : {}),
    get closed() {
      return thread.closed;
    },
    close: thread.close,
  });
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const [{ default: pg }, { drizzle: drizzleNodePg }] = await Promise.all([
    import("pg"),
    import("drizzle-orm/node-postgres"),
  ]);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A server that is down refuses at once (→ 503); this bounds only a hung connect or a long
    // wait for a free client under a burst, which should queue rather than fail.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs } : {}),
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  // An idle client losing its connection must not crash the process.
  pool.on("error", (error) => options.onPoolError?.(error));
  // Nor may a checked-out one (held by a transaction between two statements): pg-pool listens
  // only on idle clients, and an 'error' event without a listener would kill the process.
  pool.on("connect", (client) => client.on("error", (error) => options.onPoolError?.(error)));
  const db = drizzleNodePg(pool) as unknown as Queryable;
  return {
    db,
    kind: "postgres",
    run: async <T>(statement: NamedStatement) => (await pool.query(statement)).rows as T[],
    listen: async (channel, onNotify) =>
      listenOnPostgres(pg.Client, url, assertIdentifier(channel), onNotify, options),
    ping: async () => {
      await pool.query("SELECT 1");
    },
    close: async () => {
      await pool.end();
    },
  };
}

function assertIdentifier(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  return channel;
}

const LISTEN_RECONNECT_MS = 1_000;

/**
 * LISTEN on a connection of its own (a pooled one would be handed to other queries), reconnecting
 * every second while the server is away.
 */
async function listenOnPostgres(
  Client: typeof pg.Client,
  url: string,
  channel: string,
  onNotify: () => void,
  options: OpenDatabaseOptions,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const scheduleReconnect = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, LISTEN_RECONNECT_MS);
  };
  const connect = async () => {
    const next = new Client({ connectionString: url });
    next.on("error", (error) => options.onPoolError?.(error));
    next.on("end", () => {
      if (client === next) client = undefined;
      scheduleReconnect();
    });
    next.on("notification", () => onNotify());
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
      if (stopped) return void (await next.end());
      client = next;
      onNotify();
    } catch {
      await next.end().catch(() => {});
      scheduleReconnect();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

/** Runs a raw query and returns its rows (both drivers expose `rows`). */
export async function queryRows<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export async function queryOne<T>(db: Queryable, query: SQL): Promise<T | undefined> {
  const rows = await queryRows<T>(db, query);
  return rows[0];
}

export { sql };

const CONNECTION_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000", // connection_exception, and its class
  "08001",
  "08003",
  "08004",
  "08006",
  "08007",
  "3D000", // invalid_catalog_name: the database was dropped or renamed
  "28000", // invalid_authorization_specification: the role is refused
  "28P01", // invalid_password: rotated credentials
  "53000", // insufficient_resources, and its class
  "53100", // disk_full
  "53200", // out_of_memory
  "53300", // too_many_connections
  "25006", // read_only_sql_transaction: a failover left us on a read-only server
]);

/**
 * True when an error means "the database cannot serve us now" (unreachable, gone, refusing our
 * credentials, out of resources, read-only), not "the query was wrong": callers answer 503 with
 * Retry-After, never a 500 or a 202 that lost its work.
 */
export function isConnectionError(error: unknown): boolean {
  return someCause(error, (candidate) => {
    if (typeof candidate.code === "string" && CONNECTION_ERROR_CODES.has(candidate.code)) return true;
    return (
      typeof candidate.message === "string" &&
      /timeout exceeded when trying to connect|Connection terminated|PGlite is closed|Cannot use a pool after calling end|Query read timeout|is not currently accepting connections|connection error and is not queryable/i.test(
        candidate.message,
      )
    );
  });
}

/**
 * Unavailability that will not heal by waiting: the database is gone, refuses our credentials, or
 * its TLS does not match what DATABASE_URL asks (no TLS at all, or a certificate not trusted).
 */
const MISCONFIGURATION_CODES = new Set([
  "3D000",
  "28000",
  "28P01",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

export function isDatabaseMisconfigured(error: unknown): boolean {
  return someCause(
    error,
    (candidate) =>
      (typeof candidate.code === "string" && MISCONFIGURATION_CODES.has(candidate.code)) ||
      (typeof candidate.message === "string" && /does not support SSL connections/.test(candidate.message)),
  );
}

/** The driver's own words for a failure (drizzle wraps them as "Failed query: <sql>"); never the URL. */
export function databaseReason(error: unknown): string {
  const chain = causeChain(error);
  const innermost = chain[chain.length - 1];
  return typeof innermost?.message === "string" ? innermost.message : String(error);
}

/** The SQLSTATE of a statement the database refused (the error's or a cause's), else undefined. */
export function refusedStatementCode(error: unknown): string | undefined {
  const refused = causeChain(error).find(
    // Five characters with a digit: "42P07", not a system error such as EPIPE.
    (candidate) => typeof candidate.code === "string" && /^(?=.*\d)[0-9A-Z]{5}$/.test(candidate.code),
  );
  return refused?.code as string | undefined;
}

/** What to do about a refused statement at start or copy, where there is advice; else "". */
export function refusedStatementAdvice(code: string | undefined): string {
  return code === "42P07"
    ? ": the database already holds a table of that name (another application's?); give Porchlight an empty database of its own"
    : "";
}

/** Whether the error or one of its causes (drizzle wraps the driver's) matches. */
function someCause(error: unknown, matches: (candidate: ErrorLike) => boolean): boolean {
  return causeChain(error).some(matches);
}

/**
 * Takes a lock named by `key` until the caller's transaction ends (a PostgreSQL advisory lock, on
 * PGlite too): check-then-write sequences of one key run one at a time across every process.
 */
export async function lockUntilCommit(tx: Queryable, key: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}
