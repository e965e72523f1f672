// A running server loads some of its code only on first use (sign-in, MCP, Redis, SMTP): its
// modules import chunks by their content-hashed names. A rebuild under it (an upgrade's `npm start`
// of another role from the same checkout, a rolling restart) replaced the folder, and the running
// process's first use of such a route failed with "Cannot find module …/chunk-….js" until restarted.
import { copyFileSync, existsSync, linkSync, readdirSync, statSync, utimesSync } from "node:fs";
import path from "node:path";

/** How long a chunk no build makes any more is kept for processes still running older code. */
export const CARRIED_CHUNK_DAYS = 30;

const DAY_MS = 86_400_000;
const CHUNK_FILE = /^chunk-[^/\\]+\.js(\.map)?$/;

/**
 * Links into the new build the chunks of the earlier one it does not have (content-hashed names, so
 * a name the new build has is the same code), but for those written more than `CARRIED_CHUNK_DAYS`
 * ago, which go with the earlier build. Linked, not moved: the earlier folder stays whole until the
 * swap. A chunk keeps the time it was first written, so the age counts from its own build. Answers
 * the names carried.
 */
export function carryOverChunks(earlier, next, now = Date.now()) {
  if (!existsSync(earlier)) return [];
  const carried = [];
  for (const name of readdirSync(earlier)) {
    if (!CHUNK_FILE.test(name) || existsSync(path.join(next, name))) continue;
    const file = path.join(earlier, name);
    const written = statSync(file).mtime;
    if (now - written.getTime() > CARRIED_CHUNK_DAYS * DAY_MS) continue;
    try {
      linkSync(file, path.join(next, name));
    } catch {
      copyFileSync(file, path.join(next, name));
      utimesSync(path.join(next, name), written, written);
    }
    carried.push(name);
  }
  return carried.sort();
}
