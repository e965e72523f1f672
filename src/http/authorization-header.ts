import type { IncomingMessage } from "node:http";

/** How many times the request carried header `lowerCaseName` (Node merges or drops repeats). */
export function timesSent(raw: IncomingMessage, lowerCaseName: string): number {
  let seen = 0;
  const list = raw.rawHeaders;
  for (let index = 0; index < list.length; index += 2) {
    if (list[index]!.length === lowerCaseName.length && list[index]!.toLowerCase() === lowerCaseName) seen++;
  }
  return seen;
}

/**
 * The request's Authorization header when it was sent exactly once. Node keeps the first of
 * several and drops the rest, while a proxy in front may act on the last: a request carrying two
 * credentials is treated as carrying none, never as the first one's tenant.
 */
export function soleAuthorization(raw: IncomingMessage): string | undefined {
  const value = raw.headers.authorization;
  if (value === undefined) return undefined;
  return timesSent(raw, "authorization") > 1 ? undefined : value;
}
