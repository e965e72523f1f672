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
  // Already a short outage line's err (the limiter's Redis outage): as it is.
  if (!(error instanceof Error)) return error;
  if (isConnectionError(error)) return { type: error.name, outage: true, ...briefCause(error) };
  const serialized = withoutQueryValues(pino.stdSerializers.errWithCause(error));
  return error instanceof AppError && error.detail
    ? { ...(serialized as object), detail: error.detail }
    : serialized;
}

/**
 * An outage as its log line's `err` (`{type, outage: true, message, code}`), whatever the driver threw:
 * for lines that log nothing but an outage (`/readyz` failing, `database connection lost`), so an
 * alert on `err.outage` sees them as it sees the worker's.
 */
export function outageErr(error: unknown): { type: string; outage: true; message: string; code?: string } {
  const type = error instanceof Error ? error.name : "Error";
  return { type, outage: true, message: String(error), ...briefCause(error) };
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

/** How an access-log line ends: pino writes the message last (http/request-log.ts logs "request"). */
const ACCESS_LINE_END = '"msg":"request"}\n';

/**
 * Standard output for the service's log. Every line is written at once, as pino's default does,
 * except the access log's: at the default level (info) one write per request cost about a fifth
 * of a live event's CPU (see docs/benchmarks.md). Those lines wait in a buffer until it holds
 * 4 KiB, another line is logged (it goes out after them, so the order stays), 100 ms pass or the
 * process exits; a process killed outright loses at most its last 100 ms of access lines.
 */
export function createStdoutDestination(): pino.DestinationStream {
  // Synchronous: a full buffer or a flush is one write on this thread, never one racing another.
  const out = pino.destination({ dest: 1, sync: true, minLength: 4096 });
  let held = false;
  const flush = () => {
    held = false;
    out.flush();
  };
  // sonic-boom's own periodic flush would write (nothing) every tick of an idle process too.
  setInterval(() => held && flush(), 100).unref();
  process.once("exit", flush);
  return {
    write(line: string) {
      out.write(line);
      if (line.endsWith(ACCESS_LINE_END)) held = true;
      else flush();
    },
  };
}
