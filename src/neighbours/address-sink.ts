import type { Database } from "../db/database.ts";
import { type AddressSink, loadOutweighsTable, statementSink } from "./load-addresses.ts";
import { postgresLoadSink } from "./postgres-swap-load.ts";
import { countReferenceAddresses } from "./reference-addresses.ts";

/**
 * Where a file's rows go, as `addresses:load` decides it (and the bench after it): a file large
 * against the table builds the indexes once, on PostgreSQL in a new table swapped in at the end
 * (a running server reads the old one meanwhile), on PGlite in place; a smaller one is inserted
 * through the indexes.
 */
export async function addressSinkFor(
  database: Database,
  file: string,
  options: { databaseUrl?: string | undefined; onStep?: (step: string) => void } = {},
): Promise<AddressSink> {
  const large = await loadOutweighsTable(file, await countReferenceAddresses(database.db));
  if (!options.databaseUrl) return statementSink(database, { rebuildIndexes: large });
  return postgresLoadSink(options.databaseUrl, {
    large,
    ...(options.onStep ? { onStep: options.onStep } : {}),
  });
}
