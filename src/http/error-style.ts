/**
 * Two error styles coexist in the public interface (spec: Errors). An endpoint's style maps the
 * machine codes it would otherwise send to the exact strings that endpoint documents; a key
 * `code@status` maps that code at that status only.
 */
export type ErrorStyle = Readonly<Record<string, string>>;

/** Events and newer endpoints: machine codes as they are. */
export const MACHINE_STYLE: ErrorStyle = {};

/** Older endpoints (me, automation list, conversions, tracking, trigger, customers, subscribe…). */
export const SENTENCE_STYLE: ErrorStyle = {
  unauthorized: "Unauthorized",
  rate_limited: "Too many requests",
  internal_error: "Internal server error",
};

/**
 * The import endpoint: sentences for auth and 500, machine codes for everything else. Its one 400
 * is `invalid_json` (spec: Errors, Import endpoint): a body that cannot be read as JSON at all
 * (empty, a declared type that is not JSON) is not valid JSON either, so it is not the 400
 * `invalid_payload` the other endpoints send for it.
 */
export const IMPORT_STYLE: ErrorStyle = {
  unauthorized: "Unauthorized",
  internal_error: "Internal server error",
  "invalid_payload@400": "invalid_json",
};

export function styledCode(style: ErrorStyle | undefined, code: string, status: number): string {
  return style?.[`${code}@${status}`] ?? style?.[code] ?? code;
}

/** The legacy trigger's kill-switch answer (400, spec: Errors, Other): retryable, with Retry-After. */
export const AUTOMATIONS_DISABLED_SENTENCE = "Automations are globally disabled";
