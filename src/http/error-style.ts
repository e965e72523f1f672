/**
 * Two error styles coexist in the public interface (spec: Errors). An endpoint's style maps the
 * machine codes it would otherwise send to the exact strings that endpoint documents.
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

/** The import endpoint: sentences for auth and 500, machine codes for everything else. */
export const IMPORT_STYLE: ErrorStyle = {
  unauthorized: "Unauthorized",
  internal_error: "Internal server error",
};

export function styledCode(style: ErrorStyle | undefined, code: string): string {
  return style?.[code] ?? code;
}

/** The legacy trigger's kill-switch answer (400, spec: Errors, Other): retryable, with Retry-After. */
export const AUTOMATIONS_DISABLED_SENTENCE = "Automations are globally disabled";
