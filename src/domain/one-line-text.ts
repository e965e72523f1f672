import { type TStringOptions, Type } from "@fastify/type-provider-typebox";

/**
 * A name is one line of text: no control characters (CR, LF, tab, bell…), no format characters
 * (bidi overrides, zero-width spaces) and no line or paragraph separators. Names end up in mail
 * headers, CSV cells, logs and printed cards, where a line break starts something new (issue 37:
 * a business name put `Bcc:` and `X-Injected:` lines into an invitation's mail). The zero-width
 * joiners U+200C and U+200D stay allowed: Persian and Indic scripts need them.
 */
export const ONE_LINE_PATTERN = "^(?:[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]|[\\u200C\\u200D])*$";

/** What a validation failure of ONE_LINE_PATTERN says after the field's name. */
export const NOT_ONE_LINE = "must be one line of text without control characters (line breaks, tabs)";

/** A string schema whose value must be one line of text (ajv compiles patterns with the `u` flag). */
export const OneLineText = (options: TStringOptions = {}) =>
  Type.String({ ...options, pattern: ONE_LINE_PATTERN });
