/**
 * Better Auth answers 500 for any error inside its handler, a database connection dropped in the
 * middle of a sign-in included. Its logger sees the error; this remembers, per request, whether it
 * was the database being unavailable, so the route answers that as every other route does (503 with
 * Retry-After, nothing applied) instead of a 500. It also keeps the request's logger, so that
 * Better Auth's own lines ("auth: Invalid password") carry the request id of the attempt.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "pino";
import { isConnectionError } from "../db/database.ts";

type AuthLog = Pick<Logger, "debug" | "info" | "warn" | "error">;

const requestErrors = new AsyncLocalStorage<{ databaseUnavailable: boolean; log: AuthLog }>();

/** Runs one request through Better Auth; answers whether the database failed it. */
export async function runAuthRequest<T>(
  handle: () => Promise<T>,
  log: AuthLog,
): Promise<{ result: T; databaseUnavailable: boolean }> {
  const seen = { databaseUnavailable: false, log };
  const result = await requestErrors.run(seen, handle);
  return { result, databaseUnavailable: seen.databaseUnavailable };
}

/** The logger of the request Better Auth is answering, if it is answering one. */
export function authRequestLog(): AuthLog | undefined {
  return requestErrors.getStore()?.log;
}

/** Called by Better Auth's logger with each error it logs. */
export function noteAuthError(error: unknown): void {
  const seen = requestErrors.getStore();
  if (seen && isConnectionError(error)) seen.databaseUnavailable = true;
}
