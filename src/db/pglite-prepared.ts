/**
 * Prepared statements for PGlite. `PGlite.query` sends six protocol messages, each a separate
 * call into the WebAssembly PostgreSQL on this thread, and parses and plans the statement anew
 * every time (about 300 µs for a small join). Here a statement text is parsed and described once
 * and kept as a named prepared statement of PGlite's one session; each later call sends
 * bind + describe + execute + sync in a single call: about a quarter of the cost. Other drivers
 * (node-postgres with a name, postgres.js) do the same over a socket.
 *
 * Every call holds PGlite's transaction and query locks, as `query` does, so it never runs inside
 * a transaction another caller has open. Statements inside a transaction still go through the
 * transaction object (`tx.query`), not through here.
 */
import { type PGlite, parse, protocol, type QueryOptions, type Results } from "@electric-sql/pglite";

/** Statements kept prepared at once; the least recently used one is closed beyond this. */
const DEFAULT_CAPACITY = 500;

/** SQLSTATEs after which a statement is prepared again once: its plan or itself went away. */
const PREPARE_AGAIN = new Set([
  "0A000", // cached plan must not change result type (a table it reads changed shape)
  "26000", // prepared statement does not exist
]);

interface PreparedStatement {
  name: string;
  parameterTypes: number[];
}

/** The locks `PGlite.query` takes; declared by PGlite's base class, not in its public docs. */
interface PgliteLocks {
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
}

export type PreparedQuery = <T>(
  text: string,
  params?: unknown[],
  options?: QueryOptions,
) => Promise<Results<T>>;

export function createPreparedQuery(client: PGlite, capacity = DEFAULT_CAPACITY): PreparedQuery {
  const locks = client as unknown as PgliteLocks;
  // A Map iterates in insertion order: re-inserting on use makes its first key the least recent.
  const statements = new Map<string, PreparedStatement>();
  let nextId = 0;

  async function prepare(text: string, options?: QueryOptions): Promise<PreparedStatement> {
    const known = statements.get(text);
    if (known) {
      statements.delete(text);
      statements.set(text, known);
      return known;
    }
    if (statements.size >= capacity) await closeLeastRecent();
    const name = `porchlight_${++nextId}`;
    const { messages } = await client.execProtocol(
      concat([
        protocol.serialize.parse({ name, text, types: options?.paramTypes ?? [] }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const description = messages.find((message) => message.name === "parameterDescription") as
      | { dataTypeIDs: number[] }
      | undefined;
    const statement = { name, parameterTypes: description?.dataTypeIDs ?? [] };
    statements.set(text, statement);
    return statement;
  }

  async function closeStatement(name: string) {
    await client.execProtocol(
      concat([protocol.serialize.close({ type: "S", name }), protocol.serialize.sync()]),
      { syncToFs: false },
    );
  }

  async function closeLeastRecent() {
    const [text, statement] = statements.entries().next().value as [string, PreparedStatement];
    statements.delete(text);
    await closeStatement(statement.name);
  }

  function serialize(
    statement: PreparedStatement,
    params: unknown[],
    options?: QueryOptions,
  ): (string | null)[] {
    return params.map((param, index) => {
      if (param === null || param === undefined) return null;
      const type = statement.parameterTypes[index]!;
      const serializer = options?.serializers?.[type] ?? client.serializers[type];
      return serializer ? serializer(param) : String(param);
    });
  }

  async function execute<T>(text: string, params: unknown[], options?: QueryOptions): Promise<Results<T>> {
    const statement = await prepare(text, options);
    const { messages } = await client.execProtocol(
      concat([
        protocol.serialize.bind({ statement: statement.name, values: serialize(statement, params, options) }),
        protocol.serialize.describe({ type: "P" }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
    );
    return parse.parseResults(messages, client.parsers, options)[0] as Results<T>;
  }

  return async <T>(text: string, params: unknown[] = [], options?: QueryOptions) => {
    if (client.closed) throw new Error("PGlite is closed");
    return locks._runExclusiveTransaction(() =>
      locks._runExclusiveQuery(async () => {
        try {
          return await execute<T>(text, params, options);
        } catch (error) {
          if (!PREPARE_AGAIN.has((error as { code?: string }).code ?? "")) throw error;
          const stale = statements.get(text);
          statements.delete(text);
          if (stale) await closeStatement(stale.name).catch(() => {});
          return execute<T>(text, params, options);
        }
      }),
    );
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}
