import { isEmail } from "@mantine/form";

/** What an email field says of a typed address that is not one (`mike at kowalski`). */
export const NOT_AN_EMAIL = "This is not an email address: write it as name@example.com";

/**
 * The check of an email field: empty, it asks for the address (`emptyMessage`); typed but malformed,
 * it says so rather than ask again for what was given.
 */
export const emailRule = (emptyMessage: string) => (value: string) =>
  value.trim() === "" ? emptyMessage : isEmail(NOT_AN_EMAIL)(value.trim());
