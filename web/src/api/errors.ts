/** The one error type of the web app: what the app API (or the operator API) answered when it said no. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /**
   * The app API answers {error:{code,message,details?}}; the operator API {error, detail?}. Both
   * become one ApiError so screens never read a body shape.
   */
  static from(status: number, body: unknown): ApiError {
    const error = (body as { error?: unknown } | null)?.error;
    if (error && typeof error === "object") {
      const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
      return new ApiError(
        status,
        String(code ?? status),
        String(message ?? code ?? "Request failed"),
        details,
      );
    }
    const detail = (body as { detail?: unknown } | null)?.detail;
    const code = typeof error === "string" ? error : String(status);
    return new ApiError(
      status,
      code,
      typeof detail === "string" ? detail : sentenceFor(status, code),
      detail,
    );
  }

  /** The server's complaints about single fields, by field name, for a form's setErrors. */
  fieldErrors(): Record<string, string> {
    const found: Record<string, string> = {};
    const add = (field: unknown, message: unknown) => {
      if (typeof field !== "string" || typeof message !== "string") return;
      found[field.replace(/^\/?body\/?/, "").replaceAll("/", ".")] = message;
    };
    const details = this.details as unknown;
    // A refusal with no details that names its field first, as the API's checks write them
    // ("address: give the house number and street, …", "name: must NOT have more than 200
    // characters"): the field gets the rest, in words, without the field's code name.
    if (details === undefined && isInputRefused(this)) {
      const named = /^([a-z_][\w.[\]]*): (.+)$/s.exec(this.message);
      if (named) add(named[1], inWords(named[2]!));
    }
    if (Array.isArray(details)) {
      for (const item of details) {
        const entry = item as { field?: unknown; path?: unknown; message?: unknown };
        add(entry.field ?? entry.path, entry.message);
      }
    } else if (details && typeof details === "object") {
      const fields = (details as { fields?: unknown }).fields ?? details;
      if (fields && typeof fields === "object" && !Array.isArray(fields)) {
        for (const [field, message] of Object.entries(fields)) add(field, message);
      }
    }
    return found;
  }
}

/** A field's refusal as a person reads it: a sentence, schema words said plainly. */
export function inWords(message: string): string {
  const plain = message
    .replace(/^must NOT have more than (\d+) characters?.*$/s, "Use at most $1 characters")
    .replace(/^must NOT have fewer than 1 characters?$/, "Fill this in")
    // A schema pattern is no sentence: "must match pattern \"^[0-9+().\\- ]*$\"" says nothing to a person.
    .replace(/^must match pattern .*$/s, "This is not in the form this field takes");
  return plain.charAt(0).toUpperCase() + plain.slice(1);
}

function sentenceFor(status: number, code: string): string {
  if (status === 401) return "You are signed out. Sign in again.";
  if (status === 403) return "Your role does not allow this. Ask an owner of your organization.";
  if (status === 404) return "This no longer exists.";
  if (status === 429) return "Too many attempts. Wait a minute and try again.";
  if (status >= 500) return "The server had a problem. Try again in a moment.";
  return code.replaceAll("_", " ");
}

/** A sentence for any error a screen shows. */
export function errorMessage(error: unknown): string {
  // A refusal naming its field ("template.message: …", "email: must NOT have…") is said without
  // the field's code name, in words.
  if (error instanceof ApiError && isInputRefused(error)) {
    const named = /^[a-z_][\w.[\]]*: (.+)$/s.exec(error.message);
    return named ? inWords(named[1]!) : error.message;
  }
  if (error instanceof ApiError) return error.message;
  if (isNetworkFailure(error)) return "The server could not be reached. Check your connection and try again.";
  // A screen that failed to draw what the server sent (a TypeError too, but no connection's fault):
  // after a deploy, the page may be older than the server.
  if (error instanceof TypeError)
    return "Something went wrong on this screen. Reload the page; if it happens again, tell Porchlight support.";
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}

/** fetch's own failure: a TypeError with the browser's words for it (Chromium, Firefox, Safari). */
const isNetworkFailure = (error: unknown) =>
  error instanceof TypeError && /failed to fetch|networkerror|load failed/i.test(error.message);

/**
 * Whether a form's failed request is the form's own to fix (the server refused what was typed: 400,
 * 409, 422), so it belongs on a field; anything else (no connection, the server's own problem, a
 * role, too many attempts, a session ended) is said once for the whole form.
 */
export function isInputRefused(error: unknown): error is ApiError {
  return error instanceof ApiError && [400, 409, 422].includes(error.status);
}
