import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../config.ts";

/**
 * Left in DATA_DIR by a finished copy to PostgreSQL: an embedded start on that DATA_DIR (a unit or
 * compose file that lost DATABASE_URL) would accept events into a database nobody reads any more,
 * with the same API keys, so it refuses until the file is removed.
 */
export const COPIED_MARKER = "copied-to-postgres";

/** Writes the marker: where the data went (host and database, never the password) and when. */
export function markCopied(dataDir: string, targetUrl: string, at: Date): void {
  const target = new URL(targetUrl);
  writeFileSync(
    path.join(dataDir, COPIED_MARKER),
    `Copied to PostgreSQL ${target.host}${target.pathname} at ${at.toISOString()}.\n` +
      "Start with DATABASE_URL. To serve this embedded copy again, delete this file.\n",
    { mode: 0o600 },
  );
}

/** An embedded start's refusal when DATA_DIR was copied to PostgreSQL. */
export function refuseIfCopied(dataDir: string): void {
  const file = path.join(dataDir, COPIED_MARKER);
  if (!existsSync(file)) return;
  const where = readFileSync(file, "utf8").split("\n")[0]!.replace(/\.$/, "");
  throw new ConfigError(
    "DATA_DIR",
    `${dataDir} was copied to PostgreSQL (${where}): start with DATABASE_URL, or delete ${file} to serve the embedded copy again`,
  );
}
