import type { Queryable } from "./database.ts";

/**
 * A migration written in TypeScript, for data only the service's code can compute (an address
 * key is parsed in TypeScript, so SQL cannot recompute one). It runs in migrate()'s transaction,
 * under its lock, at its place among the SQL files of migrations/ (ordered by version, one
 * numbering for both), and is recorded in schema_migrations like them: it runs exactly once,
 * however many processes start together, and a failure leaves nothing.
 *
 * Such a migration is history like a SQL file: it may write any table (scripts/check-table-owners.mjs
 * lets the files named `data-migration-<version>-….ts` do so), and once landed it is not edited.
 */
export interface DataMigration {
  /** `NNNN_name`, like a SQL file's name without `.sql`. */
  version: string;
  run(tx: Queryable): Promise<void>;
}
