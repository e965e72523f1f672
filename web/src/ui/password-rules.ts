import { hasLength } from "@mantine/form";

/** The shortest password the service accepts (its auth settings); every form asking for one says so. */
export const MIN_PASSWORD_LENGTH = 10;

/** What every new password's field says of the rule (the service also refuses a password guessed first). */
export const NEW_PASSWORD_HINT = `At least ${MIN_PASSWORD_LENGTH} characters; not a password people often use, nor your name or email`;

/** The check of a new password's field. */
export const newPasswordRule = hasLength(
  { min: MIN_PASSWORD_LENGTH },
  `Use at least ${MIN_PASSWORD_LENGTH} characters`,
);

/**
 * The check of the field repeating the new password in `field`: empty, it is asked for, not said
 * to differ from an empty password.
 */
export const repeatsPasswordIn =
  <Values extends Record<string, unknown>>(field: keyof Values) =>
  (value: string, values: Values) =>
    value === "" ? "Repeat the new password" : value !== values[field] ? "The two passwords differ" : null;
