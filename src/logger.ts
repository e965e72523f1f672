import pino, { type Logger } from "pino";

/** JSON logs; credentials and bodies are redacted wherever they could appear. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
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
  });
}
