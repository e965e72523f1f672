import { cardFont } from "./text.ts";

/**
 * What the card's typeface can print. Inter covers Latin, Greek and Cyrillic; anything else (emoji,
 * CJK, Arabic, Hebrew, …) would print as an empty box (a missing glyph), and right-to-left text
 * would also run past its box. A template is refused for such characters; a record's value (a
 * name, a street) drops them, and an emptied value takes its field's fallback ("Neighbor").
 */
const printable = new Map<number, boolean>();

function canPrint(codePoint: number): boolean {
  let known = printable.get(codePoint);
  if (known === undefined) {
    known =
      cardFont(false).font.hasGlyphForCodePoint(codePoint) &&
      cardFont(true).font.hasGlyphForCodePoint(codePoint);
    printable.set(codePoint, known);
  }
  return known;
}

const PLAIN = /^[\x20-\x7e]*$/;
const isSpace = (character: string) => /\s/.test(character);

/** The characters of `text` the card cannot print, each once, in order. */
export function unprintableCharacters(text: string): string[] {
  if (PLAIN.test(text)) return [];
  const found = new Set<string>();
  for (const character of text) {
    if (!isSpace(character) && !canPrint(character.codePointAt(0)!)) found.add(character);
  }
  return [...found];
}

/** `text` without the characters the card cannot print, its spaces tidied where they went. */
export function printableText(text: string): string {
  if (PLAIN.test(text)) return text;
  let kept = "";
  for (const character of text) {
    if (isSpace(character) || canPrint(character.codePointAt(0)!)) kept += character;
  }
  return kept === text
    ? text
    : kept
        .replace(/[ \t]{2,}/g, " ")
        .replace(/ +([,.!?;:])/g, "$1")
        .trim();
}

/** `text` if the card prints it whole, else null. */
export const printableOrNull = (text: string | null | undefined): string | null =>
  text == null ? null : printableText(text) || null;
