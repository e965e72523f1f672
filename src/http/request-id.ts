import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * A caller's (or its gateway's) `X-Request-Id` is kept, so one id follows a request through the
 * CRM's logs, a proxy's and ours; it must look like an id (1–128 of `A-Z a-z 0-9 . _ : / + = @ -`)
 * else a fresh UUID is used: a header is never allowed to forge log fields or smuggle bytes.
 */
const CALLER_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers["x-request-id"];
  return typeof sent === "string" && CALLER_ID.test(sent) ? sent : randomUUID();
}
