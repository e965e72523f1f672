/**
 * The name every connection to PostgreSQL gives itself, so that an operator's `pg_stat_activity`
 * (and `log_line_prefix` %a) tells an API process from a worker or a one-shot tool.
 */

import type { ServerRole } from "../config.ts";

/** `porchlight` for the default start (API and workers), `porchlight-api`, `porchlight-worker`. */
export function serverApplicationName(role: ServerRole): string {
  return role === "all" ? "porchlight" : `porchlight-${role}`;
}

/** A one-shot tool's: `porchlight-copy-to-postgres`, `porchlight-addresses-load`. */
export function toolApplicationName(tool: "copy-to-postgres" | "addresses-load"): string {
  return `porchlight-${tool}`;
}

/**
 * `url` asking PostgreSQL to name its connections `name`, unless the operator named them: an
 * `application_name` (or `fallback_application_name`) in the URL is kept as it is. The name goes
 * in as node-postgres's `fallback_application_name`, which the driver sends only when nothing else
 * names the connection, so `PGAPPNAME` in the environment wins too. Carried by the URL, it reaches
 * every connection opened from it: the pool, the LISTEN connection, the migrations' and the bulk
 * loads' own clients.
 */
export function withApplicationName(url: string, name: string): string {
  const fragmentAt = url.indexOf("#");
  const beforeFragment = fragmentAt === -1 ? url : url.slice(0, fragmentAt);
  const fragment = fragmentAt === -1 ? "" : url.slice(fragmentAt);
  const queryAt = beforeFragment.indexOf("?");
  const query = new URLSearchParams(queryAt === -1 ? "" : beforeFragment.slice(queryAt + 1));
  if (query.has("application_name") || query.has("fallback_application_name")) return url;
  const separator = queryAt === -1 ? "?" : /[?&]$/.test(beforeFragment) ? "" : "&";
  return `${beforeFragment}${separator}fallback_application_name=${encodeURIComponent(name)}${fragment}`;
}
