import { sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";

/** Statuses after the print files were handed to the printer: the card is what was printed. */
export const PRINTED_STATUSES = [
  "submitted",
  "mailed",
  "in_transit",
  "delivered",
  "returned",
] as const satisfies readonly PieceStatus[];
const PRINTED: ReadonlySet<PieceStatus> = new Set(PRINTED_STATUSES);

export const isPrinted = (status: PieceStatus) => PRINTED.has(status);

/** Statuses as an SQL list, for `status IN …` (the statuses are the service's own words, never input). */
export const sqlStatusList = (statuses: readonly string[]) =>
  sql.raw(`(${statuses.map((status) => `'${status}'`).join(", ")})`);
