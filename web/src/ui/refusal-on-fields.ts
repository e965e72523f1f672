import { ApiError } from "../api/errors.ts";
import { focusFirstInvalid } from "./focus.ts";

/**
 * A refusal naming fields is said on them, and the first takes the focus; the app's toast says
 * the others (the requests' `refusalsOnFields`).
 */
export function sayOnFields(
  error: unknown,
  setErrors: (errors: Record<string, string>) => void,
  form: HTMLElement | null,
) {
  const onFields = error instanceof ApiError ? error.fieldErrors() : {};
  if (Object.keys(onFields).length === 0) return;
  setErrors(onFields);
  focusFirstInvalid(form);
}
