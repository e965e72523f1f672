import pino, { type Logger } from "pino";
import { isConnectionError } from "./db/database.ts";
import { AppError, briefCause } from "./errors.ts";

/**
 * A failed query's error carries its bound values (drizzle's `params`, also repeated in its message
 * and stack; PostgreSQL's `detail`, e.g. the key of a unique violation): names, emails, addresses.
 * They are cut from logged errors, down the `cause` chain (kept as an object, so PostgreSQL's
 * code and constraint stay readable); the statement stays.
 */
function withoutQueryValues(error: unknown): unknown {
  if (error === null || typeof error !== "object") return error;
  const { params: _params, detail: _detail, ...rest } = error as Record<string, unknown>;
  for (const field of ["message", "stack"] as const) {
    const text = rest[field];
    if (typeof text === "string") rest[field] = text.replace(/\nparams: [\s\S]*?(?=\n {4}at |$)/, "");
  }
  if (rest.cause !== undefined) rest.cause = withoutQueryValues(rest.cause);
  return rest;
}

/**
 * The service's own errors keep their detail: it is our text, written to explain the failure. An
 * outage (the database or another peer unreachable) is its short cause alone: at several lines a
 * second, stacks and driver objects (pg's client, its cancel key) buried the log and told an
 * operator nothing more.
 */
function serializeError(error: Error): unknown {
  if (isConnectionError(error)) return { type: error.name, outage: true, ...briefCause(error) };
  const serialized = withoutQueryValues(pino.stdSerializers.errWithCause(error));
  return error instanceof AppError && error.detail
    ? { ...(serialized as object), detail: error.detail }
    : serialized;
}

/** JSON logs; credentials, bodies and query values are redacted wherever they could appear. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    serializers: { err: serializeError },
    redact: {
      paths: [
        "req.headers.authorization",
        "headers.authorization",
        "authorization",
        "key",
        "signing_secret",
        "body",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
