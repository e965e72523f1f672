/**
 * The embedded database on a thread of its own. PGlite runs PostgreSQL compiled to WebAssembly,
 * and every statement runs synchronously on the thread that calls it: on the event loop that
 * serves requests, a statement's whole execution (planning, index lookups, WAL writes) held every
 * other request, and a worker's jobs in the same process added theirs (issue 25: event-loop delay
 * p99 113 ms while cards were rendered). Here PGlite lives in `pglite-thread-worker.ts`, and this
 * side is a small proxy with the two methods drizzle's PGlite driver calls (`query`, and
 * `transaction` with `query` and `exec` inside), plus `exec` and `listen`.
 *
 * What crosses the thread boundary is structured-cloned: results keep their Dates, bigints,
 * parsed JSON and `Uint8Array`s (PGlite's bytea), `fields` and `affectedRows`; an error keeps its
 * class (pg-protocol's `DatabaseError`) and its fields (`code`, `detail`, `constraint`, …). A
 * caller's parsers (functions, which cannot cross) are applied here to the text the thread sends
 * back for their types. A transaction is held open by the thread until this side sends its end:
 * PGlite's own locks keep every other statement out of it, as in one thread. A thread that dies
 * rejects every pending and later call with SQLSTATE 57P02 (crash_shutdown), which
 * `isConnectionError` maps to 503; `close()` ends the thread.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { messages, type QueryOptions, type Results } from "@electric-sql/pglite";

export interface ThreadStart {
  dataDir: string | undefined;
  /** A cluster on disk is flushed to it before each commit returns (`syncing-node-fs.ts`). */
  sync: boolean;
  /** Appended to PGlite's default start parameters. */
  startParams: string[];
  /** Statements run once on PGlite's session before the first request. */
  sessionSettings: string[];
  pgliteWasmModule?: WebAssembly.Module;
  initdbWasmModule?: WebAssembly.Module;
}

/** The cloneable part of PGlite's query options; `rawTypes` come back as text. */
export interface ThreadQueryOptions {
  rowMode?: "array" | "object";
  paramTypes?: number[];
  rawTypes?: number[];
}

export type ThreadRequest =
  | { id: number; op: "query"; tx?: number; text: string; params: unknown[]; options?: ThreadQueryOptions }
  | { id: number; op: "exec"; tx?: number; text: string }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "listen" | "unlisten"; channel: string }
  | { id: number; op: "snapshot"; targetDir: string }
  | { id: number; op: "close" };

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  /** The error's own string, number and boolean fields (code, detail, constraint, position, …). */
  fields: Record<string, string | number | boolean>;
  isDatabaseError?: boolean;
  params?: unknown[];
}

export type ThreadReply =
  | { id: number; ok: true; value?: unknown }
  | { id: number; ok: false; error: SerializedError }
  | { notify: string; payload: string };

/** What drizzle's PGlite driver calls on its client, inside and outside transactions. */
export interface PgliteProxyTransaction {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

export interface PgliteThread {
  /** A statement outside any transaction, prepared once per text (`pglite-prepared.ts`). */
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  /** Statements in PostgreSQL's simple protocol (several allowed, no parameters). */
  exec(text: string): Promise<Results[]>;
  transaction<T>(callback: (tx: PgliteProxyTransaction) => Promise<T>): Promise<T>;
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Copies the cluster's files into `targetDir` at one point in time (`cluster-snapshot.ts`). */
  snapshot(targetDir: string): Promise<void>;
  readonly closed: boolean;
  /** Ends the thread after PGlite closed its files. */
  close(): Promise<void>;
  /** The thread itself (tests end it abruptly to see pending calls fail). */
  readonly worker: Worker;
}

/** The thread's file beside this one, with this file's extension (`.ts` under tsx, `.js` built). */
function threadFile(): string {
  const self = fileURLToPath(import.meta.url);
  return path.join(path.dirname(self), `pglite-thread-worker${path.extname(self)}`);
}

const compiled = new Map<string, Promise<WebAssembly.Module>>();

/**
 * PGlite's WebAssembly module (`pglite.wasm`, or `initdb.wasm` that creates a new cluster),
 * compiled once per process and shared by every thread: V8 compiles it on background threads, so
 * the event loop does not wait, and tests that open many databases compile it once, as PGlite's
 * own per-thread cache did when it ran on this thread.
 */
export function compiledPgliteWasm(file: "pglite.wasm" | "initdb.wasm"): Promise<WebAssembly.Module> {
  let module = compiled.get(file);
  if (!module) {
    const packageDir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    module = readFile(path.join(packageDir, file)).then((bytes) => WebAssembly.compile(bytes));
    compiled.set(file, module);
  }
  return module;
}

/**
 * The code that starts the thread. The built `.js` file is imported as it is; a `.ts` one (tests,
 * `npm run dev`) through tsx's API, since on Node 20 the `--import tsx` a worker inherits does not
 * reach the worker's own imports.
 */
function threadEntry(file: string): string {
  const url = JSON.stringify(pathToFileURL(file).href);
  return file.endsWith(".ts")
    ? `import("tsx/esm/api").then(({ tsImport }) => tsImport(${url}, ${url}));`
    : `import(${url});`;
}

function rebuildError(serialized: SerializedError): Error {
  const error = serialized.isDatabaseError
    ? new messages.DatabaseError(serialized.message, 0, "error")
    : new Error(serialized.message);
  Object.assign(error, serialized.fields, { name: serialized.name });
  if (serialized.params) Object.assign(error, { params: serialized.params });
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}

/** The thread stopped without being asked to: every call fails as a lost database connection. */
class DatabaseThreadStopped extends Error {
  readonly code = "57P02";
  constructor(reason: string) {
    super(`the embedded database thread stopped: ${reason}`);
  }
}

function threadOptions(options: QueryOptions | undefined): ThreadQueryOptions | undefined {
  if (!options) return undefined;
  if (options.serializers || options.blob || options.onNotice) {
    throw new Error("serializers, blob and onNotice are not supported through the database thread");
  }
  const rawTypes = options.parsers ? Object.keys(options.parsers).map(Number) : undefined;
  return {
    ...(options.rowMode ? { rowMode: options.rowMode } : {}),
    ...(options.paramTypes ? { paramTypes: options.paramTypes } : {}),
    ...(rawTypes ? { rawTypes } : {}),
  };
}

/** Applies the caller's parsers to the columns the thread left as text. */
function applyParsers<T>(result: Results<T>, options: QueryOptions | undefined): Results<T> {
  const parsers = options?.parsers;
  if (!parsers) return result;
  const columns: { key: string | number; type: number; parse: (text: string, type: number) => unknown }[] =
    [];
  result.fields.forEach((field, index) => {
    const parse = parsers[field.dataTypeID];
    if (parse)
      columns.push({ key: options.rowMode === "array" ? index : field.name, type: field.dataTypeID, parse });
  });
  if (columns.length === 0) return result;
  for (const row of result.rows as Record<string | number, unknown>[]) {
    for (const { key, type, parse } of columns) {
      const text = row[key];
      if (typeof text === "string") row[key] = parse(text, type);
    }
  }
  return result;
}

export async function openPgliteThread(start: ThreadStart): Promise<PgliteThread> {
  const worker = new Worker(threadEntry(threadFile()), { eval: true, workerData: start });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let nextId = 0;
  let stopped: Error | undefined;
  let closing = false;
  // The thread keeps the process alive only while a call waits on it, as PGlite in one thread did.
  worker.unref();

  const settle = (reply: ThreadReply) => {
    if ("notify" in reply) {
      for (const onNotify of listeners.get(reply.notify) ?? []) onNotify(reply.payload);
      return;
    }
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(rebuildError(reply.error));
  };
  const stop = (error: Error) => {
    stopped ??= error;
    const waiting = [...pending.values()];
    pending.clear();
    for (const each of waiting) each.reject(stopped);
  };

  const ready = new Promise<void>((resolve, reject) => pending.set(0, { resolve: () => resolve(), reject }));
  worker.ref();
  worker.on("message", settle);
  worker.on("error", (error) => stop(new DatabaseThreadStopped(error.message)));
  worker.on("exit", (code) =>
    stop(closing ? new Error("PGlite is closed") : new DatabaseThreadStopped(`exit code ${code}`)),
  );
  try {
    await ready;
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  function call<T>(request: WithoutId<ThreadRequest>): Promise<T> {
    if (stopped) return Promise.reject(stopped);
    // A message to a thread being ended would never be answered.
    if (closing && request.op !== "close") return Promise.reject(new Error("PGlite is closed"));
    const id = ++nextId;
    return new Promise<T>((resolve, reject) => {
      try {
        worker.postMessage({ ...request, id });
      } catch (error) {
        // A parameter that cannot be cloned (a function, a class instance with private state).
        return reject(error);
      }
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  }

  async function query<T>(
    text: string,
    params: unknown[] = [],
    options?: QueryOptions,
    tx?: number,
  ): Promise<Results<T>> {
    const result = await call<Results<T>>({
      op: "query",
      text,
      params,
      options: threadOptions(options),
      ...(tx === undefined ? {} : { tx }),
    });
    return applyParsers(result, options);
  }

  const exec = (text: string, tx?: number) =>
    call<Results[]>({ op: "exec", text, ...(tx === undefined ? {} : { tx }) });

  async function transaction<T>(callback: (tx: PgliteProxyTransaction) => Promise<T>): Promise<T> {
    const id = await call<number>({ op: "begin" });
    let closed = false;
    const whileOpen = async <R>(run: () => Promise<R>): Promise<R> => {
      if (closed) throw new Error("Transaction is closed");
      return run();
    };
    const end = (commit: boolean) => {
      closed = true;
      return call<void>({ op: "end", tx: id, commit });
    };
    const tx: PgliteProxyTransaction = {
      query: (text, params, options) => whileOpen(() => query(text, params, options, id)),
      exec: (text) => whileOpen(() => exec(text, id)),
      rollback: () => whileOpen(() => end(false)),
      get closed() {
        return closed;
      },
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (error) {
      if (!closed) await end(false).catch(() => {});
      throw error;
    }
    if (!closed) await end(true);
    return result;
  }

  return {
    query: (text, params, options) => query(text, params, options),
    exec: (text) => exec(text),
    transaction,
    async listen(channel, onNotify) {
      let callbacks = listeners.get(channel);
      if (!callbacks) {
        callbacks = new Set();
        listeners.set(channel, callbacks);
        try {
          await call({ op: "listen", channel });
        } catch (error) {
          listeners.delete(channel);
          throw error;
        }
      }
      callbacks.add(onNotify);
      return async () => {
        const current = listeners.get(channel);
        if (!current?.delete(onNotify) || current.size > 0) return;
        listeners.delete(channel);
        if (!stopped) await call({ op: "unlisten", channel });
      };
    },
    snapshot: (targetDir) => call<void>({ op: "snapshot", targetDir }),
    get closed() {
      return stopped !== undefined || closing;
    },
    async close() {
      if (closing) return;
      closing = true;
      try {
        if (!stopped) await call({ op: "close" });
      } finally {
        await worker.terminate();
      }
    },
    worker,
  };
}
