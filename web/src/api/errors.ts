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
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError)
    return "The server could not be reached. Check your connection and try again.";
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}
