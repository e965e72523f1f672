/**
 * The one error type of the service. Services throw it; the HTTP error handler renders it in
 * the calling endpoint's style (see http/error-style.ts). `code` is the machine code; endpoints
 * of the older style translate a few codes into their sentences.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string | undefined;
  readonly headers: Record<string, string>;
  /** False for codes every endpoint sends verbatim (the pre-auth per-IP limit). */
  readonly restyle: boolean;

  constructor(
    status: number,
    code: string,
    detail?: string,
    headers: Record<string, string> = {},
    restyle = true,
  ) {
    super(detail ? `${code}: ${detail}` : code);
    this.name = "AppError";
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.headers = headers;
    this.restyle = restyle;
  }
}

export const invalidPayload = (detail: string) => new AppError(422, "invalid_payload", detail);
/**
 * A 422 naming each field that is wrong (`template.headline`, `steps[0].template.message`): the detail
 * names the first, `details.fields` all of them, for an editor to put back on its inputs.
 */
export function invalidFields(fields: Record<string, string>): AppError | undefined {
  const [first] = Object.entries(fields);
  if (!first) return undefined;
  return refusedFields(422, "invalid_payload", `${first[0]}: ${first[1]}`, fields);
}

/** An error whose body names each refused field in words (`details.fields`), for a form's inputs. */
export function refusedFields(
  status: number,
  code: string,
  detail: string,
  fields: Record<string, string>,
): AppError {
  const error = new AppError(status, code, detail) as AppError & { details?: unknown };
  error.details = { fields };
  return error;
}
export const unreadableBody = (detail: string) => new AppError(400, "invalid_payload", detail);
export const invalidJson = (detail = "request body is not valid JSON") =>
  new AppError(400, "invalid_json", detail);
export const notFound = (detail = "not found") => new AppError(404, "not_found", detail);
/** RFC 6750 §3: a 401 names the scheme the client must use. */
export const unauthorized = (detail?: string) =>
  new AppError(401, "unauthorized", detail, { "www-authenticate": 'Bearer realm="api"' });
export const forbidden = () => new AppError(403, "unauthorized");

export const rateLimited = (retryAfterSeconds: number, detail?: string) =>
  new AppError(429, "rate_limited", detail, {
    "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/**
 * The pre-auth per-IP limit answers exactly `{"error":"rate_limited"}` (spec: Authentication 6) on
 * every endpoint, whatever its style.
 */
export const ipRateLimited = (retryAfterSeconds: number) =>
  new AppError(
    429,
    "rate_limited",
    undefined,
    { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    false,
  );

export const payloadTooLarge = (limitBytes: number) =>
  new AppError(413, "payload_too_large", `request body exceeds the limit of ${limitBytes} bytes`);

export const databaseUnavailable = () =>
  new AppError(503, "service_unavailable", "the database cannot be reached; retry later", {
    "retry-after": "5",
  });

/** A request that reached an instance after it began to shut down: another instance (or this one, restarted) takes the retry. */
export const shuttingDown = () =>
  new AppError(503, "service_unavailable", "this instance is shutting down; retry", {
    "retry-after": "1",
    connection: "close",
  });

export const automationsDisabled = () =>
  new AppError(503, "automations_disabled", "automations are paused platform-wide; retry later", {
    "retry-after": "300",
  });

/**
 * Exactly `{"error":"auth_unavailable"}` (spec: Authentication 7): the key was not checked. The
 * key store's failure rides along as `cause`, for the log line.
 */
export const authUnavailable = (cause?: unknown) => {
  const error = new AppError(503, "auth_unavailable", undefined, { "retry-after": "5" });
  if (cause !== undefined) error.cause = cause;
  return error;
};

export type ErrorLike = { code?: unknown; message?: unknown; cause?: unknown };

/**
 * The error and its causes, outermost first, at most `depth` deep (drizzle wraps the driver's
 * error; a cyclic or absurdly deep chain is cut).
 */
export function causeChain(error: unknown, depth = 5): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < depth; ) {
    chain.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return chain;
}

/**
 * The innermost cause of a failure as its message's first line and code, for a log line that
 * repeats during an outage: no stack, and none of what drivers hang on their errors (pg's client,
 * with its connection parameters and the backend's cancel key).
 */
export function briefCause(error: unknown): { message: string; code?: string } | undefined {
  const innermost = causeChain(error instanceof AppError ? error.cause : error, 6).at(-1);
  if (innermost === undefined) return undefined;
  const { message, code } = innermost as { message?: unknown; code?: unknown };
  return {
    message: typeof message === "string" ? message.split("\n")[0]!.slice(0, 200) : String(innermost),
    ...(typeof code === "string" ? { code } : {}),
  };
}

/** A system error in one word where Node gives one (EACCES, EADDRINUSE), else its message. */
export function systemErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}
