/** A word, a closing mark or sentence punctuation before the caret: the field needs a space after it. */
const ENDS_A_WORD = /[\p{L}\p{N}.,!?;:)}]$/u;
/** A word or an opening mark after the caret: the field needs a space before it. */
const STARTS_A_WORD = /^[\p{L}\p{N}({]/u;

/**
 * `text` with `token` in place of its characters from `start` to `end`, with a space on each side
 * where the neighbouring text would otherwise touch it ("{{street}}Scan"), never a second one.
 * `tokenAt` is where the token begins in the new text.
 */
export function insertMergeField(
  text: string,
  start: number,
  end: number,
  token: string,
): { text: string; tokenAt: number } {
  const before = text.slice(0, start);
  const after = text.slice(end);
  const spaceBefore = ENDS_A_WORD.test(before) ? " " : "";
  const spaceAfter = STARTS_A_WORD.test(after) ? " " : "";
  return {
    text: `${before}${spaceBefore}${token}${spaceAfter}${after}`,
    tokenAt: before.length + spaceBefore.length,
  };
}
