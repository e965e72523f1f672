/**
 * PostgreSQL text and jsonb cannot hold NUL characters or unpaired surrogates, though JSON allows
 * both as escapes (`\u0000`, `\ud800`). Such input is refused with a 422 naming the field rather
 * than failing its write with a 500.
 */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT = "must be well-formed Unicode text without NUL characters";

export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && !UNPAIRED_SURROGATE.test(value);
}

/** Characters as the spec's limits count them: code points (an emoji is one, not two). */
export function countCodePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
