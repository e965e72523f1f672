import { invalidPayload } from "../errors.ts";

/**
 * Text that cannot be printed on a card: control characters (tab and line breaks aside: they
 * fold to spaces), format characters (bidi overrides such as U+202E that reorder what a reader
 * sees, zero-width spaces, soft hyphens, the byte order mark), line and paragraph separators,
 * private-use and unassigned code points. The zero-width joiners U+200C and U+200D are kept:
 * Persian and Indic scripts need them to spell words.
 */
const UNPRINTABLE = /(?![\t\n\r\u200c\u200d])[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

/** The first character that cannot be printed on a card, as `U+202E`; undefined when none. */
export function unprintableCharacter(value: string): string | undefined {
  const found = UNPRINTABLE.exec(value)?.[0];
  if (found === undefined) return undefined;
  const codePoint = found.codePointAt(0) ?? 0;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Refuses (422 invalid_payload, naming the field) text that a card could not print as sent. */
export function assertPrintable(value: string | undefined, field: string): void {
  const found = value === undefined ? undefined : unprintableCharacter(value);
  if (found !== undefined) {
    throw invalidPayload(
      `${field}: contains ${found}, a control or format character that cannot be printed on a card`,
    );
  }
}
