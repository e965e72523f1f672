/**
 * Better Auth answers 500 for any error inside its handler, a database connection dropped in the
 * middle of a sign-in included. Its logger sees the error; this remembers, per request, whether it
 * was the database being unavailable, so the route answers that as every other route does (503 with
 * Retry-After, nothing applied) instead of a 500.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isConnectionError } from "../db/database.ts";

const requestErrors = new AsyncLocalStorage<{ databaseUnavailable: boolean }>();

/** Runs one request through Better Auth; answers whether the database failed it. */
export async function runAuthRequest<T>(
  handle: () => Promise<T>,
): Promise<{ result: T; databaseUnavailable: boolean }> {
  const seen = { databaseUnavailable: false };
  const result = await requestErrors.run(seen, handle);
  return { result, databaseUnavailable: seen.databaseUnavailable };
}

/** Called by Better Auth's logger with each error it logs. */
export function noteAuthError(error: unknown): void {
  const seen = requestErrors.getStore();
  if (seen && isConnectionError(error)) seen.databaseUnavailable = true;
}
