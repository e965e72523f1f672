import { sql } from "../db/database.ts";

/** Statuses as an SQL list, for `status IN …` (the statuses are the service's own words, never input). */
export const sqlStatusList = (statuses: readonly string[]) =>
  sql.raw(`(${statuses.map((status) => `'${status}'`).join(", ")})`);
