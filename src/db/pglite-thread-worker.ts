/**
 * The embedded database's own thread: PGlite (PostgreSQL compiled to WebAssembly, which runs every
 * statement synchronously) lives here, so the event loop that serves requests never executes
 * PostgreSQL. `pglite-thread.ts` is the other side; this file answers its requests one message at
 * a time, and PGlite's own locks order them exactly as they would be ordered in one thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import { messages, PGlite, type QueryOptions, type Results, type Transaction } from "@electric-sql/pglite";
import { snapshotPgliteCluster } from "./cluster-snapshot.ts";
import { createPreparedQuery } from "./pglite-prepared.ts";
import type {
  SerializedError,
  ThreadQueryOptions,
  ThreadReply,
  ThreadRequest,
  ThreadStart,
} from "./pglite-thread.ts";
import { openEmbeddedCluster } from "./syncing-node-fs.ts";

function notInThread(): never {
  throw new Error("pglite-thread-worker runs as a worker thread only");
}
const port = parentPort ?? notInThread();
const start = workerData as ThreadStart;

const post = (reply: ThreadReply) => port.postMessage(reply);

/** Fields of pg-protocol's DatabaseError (and PGlite's additions) that travel back as they are. */
function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      fields[key] = value;
    }
  }
  const params = (error as { params?: unknown }).params;
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    fields,
    isDatabaseError: error instanceof messages.DatabaseError,
    ...(Array.isArray(params) ? { params } : {}),
  };
}

// Parsers that keep a type's text: the other side applies the caller's own parser to it.
const keepText = (text: string) => text;
const keepTextParsers = new Map<string, Record<number, (text: string) => string>>();

function queryOptions(options: ThreadQueryOptions | undefined): QueryOptions | undefined {
  if (!options) return undefined;
  const { rowMode, paramTypes, rawTypes } = options;
  let parsers: Record<number, (text: string) => string> | undefined;
  if (rawTypes && rawTypes.length > 0) {
    const key = rawTypes.join(",");
    parsers = keepTextParsers.get(key);
    if (!parsers) {
      parsers = Object.fromEntries(rawTypes.map((type) => [type, keepText]));
      keepTextParsers.set(key, parsers);
    }
  }
  return {
    ...(rowMode ? { rowMode } : {}),
    ...(paramTypes ? { paramTypes } : {}),
    ...(parsers ? { parsers } : {}),
  };
}

/** A transaction held open between the other side's statements: PGlite's callback waits on `end`. */
interface OpenTransaction {
  tx: Transaction;
  end(commit: boolean): void;
}

/** Rejects PGlite's transaction callback so that PGlite rolls back; not an error to report. */
class RollbackRequested extends Error {}

async function main() {
  const client = await openEmbeddedCluster(PGlite, start);
  for (const statement of start.sessionSettings) await client.exec(statement);
  const query = createPreparedQuery(client);
  const transactions = new Map<number, OpenTransaction>();
  const unlisten = new Map<string, () => Promise<void>>();
  let nextTransaction = 0;

  function transactionOf(id: number | undefined): Transaction {
    const open = id === undefined ? undefined : transactions.get(id);
    if (!open) throw new Error("Transaction is closed");
    return open.tx;
  }

  /** The request waiting for each transaction's end, answered once PGlite committed or rolled back. */
  const ending = new Map<number, number>();

  /** Resolves once PGlite has begun the transaction; PGlite ends it when the other side sends `end`. */
  function begin(): Promise<number> {
    return new Promise((began, failedToBegin) => {
      const id = ++nextTransaction;
      let inside = false;
      const settle = (error: unknown) => {
        transactions.delete(id);
        const waiter = ending.get(id);
        ending.delete(id);
        if (!inside) return failedToBegin(error);
        if (waiter === undefined) return;
        if (error === undefined || error instanceof RollbackRequested) post({ id: waiter, ok: true });
        else post({ id: waiter, ok: false, error: serializeError(error) });
      };
      client
        .transaction(
          (tx) =>
            new Promise<void>((commit, rollback) => {
              inside = true;
              transactions.set(id, {
                tx,
                end: (commitIt) => (commitIt ? commit() : rollback(new RollbackRequested())),
              });
              began(id);
            }),
        )
        .then(
          () => settle(undefined),
          (error: unknown) => settle(error),
        );
    });
  }

  async function handle(request: ThreadRequest): Promise<unknown> {
    switch (request.op) {
      case "query": {
        const options = queryOptions(request.options);
        const result: Results =
          request.tx === undefined
            ? await query(request.text, request.params, options)
            : await transactionOf(request.tx).query(request.text, request.params, options);
        return result;
      }
      case "exec":
        return request.tx === undefined
          ? await client.exec(request.text)
          : await transactionOf(request.tx).exec(request.text);
      case "begin":
        return await begin();
      case "listen": {
        if (!unlisten.has(request.channel)) {
          const channel = request.channel;
          unlisten.set(
            channel,
            await client.listen(channel, (payload) => post({ notify: channel, payload })),
          );
        }
        return undefined;
      }
      case "unlisten": {
        const stop = unlisten.get(request.channel);
        unlisten.delete(request.channel);
        if (stop && !client.closed) await stop();
        return undefined;
      }
      case "snapshot":
        if (!start.dataDir) throw new Error("an in-memory database has no files to copy");
        await snapshotPgliteCluster(client, start.dataDir, request.targetDir);
        return undefined;
      case "close":
        if (!client.closed) await client.close();
        return undefined;
    }
  }

  port.on("message", (request: ThreadRequest) => {
    if (request.op === "end") {
      const open = transactions.get(request.tx);
      if (!open)
        return post({ id: request.id, ok: false, error: serializeError(new Error("Transaction is closed")) });
      ending.set(request.tx, request.id);
      open.end(request.commit);
      return;
    }
    handle(request).then(
      (value) => post({ id: request.id, ok: true, value }),
      (error: unknown) => post({ id: request.id, ok: false, error: serializeError(error) }),
    );
  });
  post({ id: 0, ok: true });
}

main().catch((error: unknown) => post({ id: 0, ok: false, error: serializeError(error) }));
