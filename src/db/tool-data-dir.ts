/**
 * The DATA_DIR a one-shot tool (`db:restore`, `db:copy-to-postgres`) reads or writes. The server's
 * DATA_DIR is usually set where the server is started (its unit, its compose file), not in the
 * operator's shell: a tool run without it fell back to `./data` in silence, and copied nothing or
 * restored into a folder no server reads.
 */
import { existsSync } from "node:fs";
import { DEFAULT_DATA_DIR } from "../config.ts";

/** `DATA_DIR /abs/path`, and, when the variable is unset, that this is only the default. */
export function dataDirNamed(dataDir: string, defaulted: boolean): string {
  return defaulted
    ? `DATA_DIR ${dataDir} (DATA_DIR is not set: the default, ${DEFAULT_DATA_DIR})`
    : `DATA_DIR ${dataDir}`;
}

/**
 * The one line that refuses a tool run without DATA_DIR where the default folder does not exist
 * (`whatToDo` says which DATA_DIR to set); undefined when DATA_DIR is set or the default exists.
 */
export function missingDefaultDataDir(
  dataDir: string,
  defaulted: boolean,
  whatToDo: string,
): string | undefined {
  if (!defaulted || existsSync(dataDir)) return undefined;
  return `DATA_DIR is not set and the default ${DEFAULT_DATA_DIR} (${dataDir}) does not exist: ${whatToDo}`;
}
