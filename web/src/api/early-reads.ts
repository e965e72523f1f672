import type { Answer } from "./client.ts";

/**
 * The answers public/early-reads.js asked for as the page started, each handed to the first query
 * that asks for its path and then forgotten, so every later read goes to the server.
 */
type EarlyPath = "/app/api/v1/session" | "/app/api/v1/organization";

declare global {
  interface Window {
    __porchlightEarlyReads?: Partial<Record<EarlyPath, Promise<{ response: Response; body: unknown }>>>;
  }
}

/**
 * The early answer for `path` in the client's own shape, if one was asked for and not yet taken;
 * otherwise (or when the early request failed on the network) `call`'s.
 */
export function earlyReadOr<T>(path: EarlyPath, call: () => Promise<Answer<T>>): Promise<Answer<T>> {
  const early = window.__porchlightEarlyReads?.[path];
  if (!early) return call();
  delete window.__porchlightEarlyReads![path];
  return early.then(
    ({ response, body }) => (response.ok ? { data: body as T, response } : { error: body, response }),
    call,
  );
}
