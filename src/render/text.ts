import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Font, Glyph, GlyphPosition } from "fontkit";

const require = createRequire(import.meta.url);

/**
 * The card's typeface: Inter (SIL Open Font License), regular and bold, as the TrueType files of
 * @expo-google-fonts/inter. Every card text is set in it, in the print PDF (embedded as a subset of
 * the glyphs used: print vendors refuse a file that only names a font) and in the PNG proof (drawn
 * as the same glyphs' outlines), and measured with its own metrics, so a line breaks in the same
 * place in both and the proof shows what prints.
 */
const FONT_FILES = {
  regular: "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf",
  bold: "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf",
} as const;

export interface CardFont {
  /** The TrueType file, as pdfkit embeds it. */
  bytes: Buffer;
  /** The parsed font (fontkit, the library pdfkit itself lays text out with). */
  font: Font;
}

const fonts: Partial<Record<keyof typeof FONT_FILES, CardFont>> = {};

/** The regular or bold face, read and parsed once per thread, on first use. */
export function cardFont(bold: boolean): CardFont {
  const weight = bold ? "bold" : "regular";
  let loaded = fonts[weight];
  if (!loaded) {
    const bytes = readFileSync(require.resolve(FONT_FILES[weight]));
    const fontkit = require("fontkit") as typeof import("fontkit");
    loaded = { bytes, font: fontkit.create(bytes) as Font };
    fonts[weight] = loaded;
  }
  return loaded;
}

/**
 * A line is shaped in pdfkit's own pieces: each word with the space or tab after it (pdfkit's
 * EmbeddedFont.layout splits text so before fontkit shapes it). Measuring, the PDF and the proof's
 * outlines all add up the same pieces, so the three agree to the font unit; and a piece is shaped
 * once per thread, not once per document: shaping Inter (its contextual alternates and kerning)
 * was most of a card's CPU when pdfkit repeated it for every PDF. Cards of one template repeat
 * their words, where whole lines differ by a name or a street.
 */
export function piecesOf(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === " " || character === "\t") {
      pieces.push(text.slice(start, index + 1));
      start = index + 1;
    }
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/** A piece as fontkit shapes it, in font units; shared, so never changed by a reader. */
export interface ShapedPiece {
  glyphs: readonly Glyph[];
  positions: readonly Readonly<GlyphPosition>[];
  advanceWidth: number;
}

const SHAPED_CACHE_ENTRIES = 20_000;
const shapedPieces = new Map<string, ShapedPiece>();

/** The piece shaped in the regular or bold face, once per thread (pdf-font.ts gives it to pdfkit). */
export function shaped(piece: string, bold: boolean): ShapedPiece {
  const key = `${bold ? "b" : "r"}${piece}`;
  let found = shapedPieces.get(key);
  if (!found) {
    const run = cardFont(bold).font.layout(piece);
    found = {
      glyphs: run.glyphs,
      positions: run.positions.map((position) => Object.freeze({ ...position })),
      advanceWidth: run.advanceWidth,
    };
    if (shapedPieces.size >= SHAPED_CACHE_ENTRIES) shapedPieces.clear();
    shapedPieces.set(key, found);
  }
  return found;
}

/** Width in points of `text` set at `size`, kerned as pdfkit sets it (fontkit's default features). */
export function textWidth(text: string, size: number, bold: boolean): number {
  let advance = 0;
  for (const piece of piecesOf(text)) advance += shaped(piece, bold).advanceWidth;
  return (advance * size) / cardFont(bold).font.unitsPerEm;
}

export interface TextStyle {
  size: number;
  bold: boolean;
}

/** Lines as set, and whether anything had to be cut (with "…") to fit them. */
export interface WrappedText {
  lines: string[];
  /** The text's characters (white space collapsed) and how many of them print before any cut. */
  characters: number;
  printed: number;
}

const normalize = (text: string) => text.replace(/[ \t\r\n\f\v]+/g, " ").trim();

/** A word's parts, each ending after one of its hyphens: "Munster-Hernandez-" and "Smith". */
const hyphenParts = (word: string) => word.match(/[^-]*-+|[^-]+$/g) ?? [word];

/**
 * Greedy word wrap at spaces (a no-break space, U+00A0, joins what it separates, as in a phone
 * number). A word longer than the line breaks after its hyphens ("Munster-Hernandez-" over
 * "O'Connor"), where it has any, and a part still longer than the line is cut. The last line
 * ends in "…" on overflow.
 */
export function layoutText(text: string, style: TextStyle, maxWidth: number, maxLines: number): WrappedText {
  const whole = normalize(text);
  const words = whole.split(" ").filter(Boolean);
  const lines: string[] = [];
  // What stood in the text between each line and the next: a space, or nothing after a hyphen.
  const gaps: string[] = [];
  const push = (line: string, gap: string) => {
    lines.push(line);
    gaps.push(gap);
  };
  let current = "";
  let wordCut = false;
  const fits = (candidate: string) => textWidth(candidate, style.size, style.bold) <= maxWidth;
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (fits(candidate)) {
      current = candidate;
      continue;
    }
    if (fits(word)) {
      if (current) push(current, " ");
      current = word;
      continue;
    }
    let separator = current ? " " : "";
    let partsOnLine = false;
    for (const part of hyphenParts(word)) {
      // Nothing joins a part that had to be cut.
      const joined = current + separator + part;
      separator = "";
      if (!current.endsWith("…") && fits(joined)) {
        current = joined;
        partsOnLine = true;
        continue;
      }
      if (current) push(current, partsOnLine ? "" : " ");
      partsOnLine = true;
      if (fits(part)) current = part;
      else {
        current = cutToWidth(part, style, maxWidth);
        wordCut = true;
      }
    }
  }
  if (current) push(current, "");
  const characters = Array.from(whole).length;
  if (lines.length <= maxLines)
    return { lines, characters, printed: wordCut ? printedOf(lines, gaps) : characters };
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = withEllipsis(kept[maxLines - 1]!, style, maxWidth);
  return { lines: kept, characters, printed: printedOf(kept, gaps) };
}

/** Characters that print before the first "…" (a cut word or the last line's cut), lines joined as the text had them. */
function printedOf(lines: readonly string[], gaps: readonly string[]): number {
  const joined = lines.map((line, index) => (index < lines.length - 1 ? line + gaps[index] : line)).join("");
  const cut = joined.indexOf("…");
  return Array.from(cut < 0 ? joined : joined.slice(0, cut).trimEnd()).length;
}

/** The lines alone; see layoutText. */
export function wrapText(text: string, style: TextStyle, maxWidth: number, maxLines: number): string[] {
  return layoutText(text, style, maxWidth, maxLines).lines;
}

function cutToWidth(word: string, style: TextStyle, maxWidth: number): string {
  const cut = longestFittingPrefix(word, style, maxWidth);
  return cut === word ? word : `${cut}…`;
}

function withEllipsis(line: string, style: TextStyle, maxWidth: number): string {
  const cut = line.endsWith("…") ? line.slice(0, -1) : line;
  return `${longestFittingPrefix(cut, style, maxWidth).trimEnd()}…`;
}

/**
 * The longest prefix (at least one character) that fits with "…" after it, found by bisection:
 * dropping one character at a time measured a 2000-character name about 2000 times (a second of
 * blocked event loop per card).
 */
function longestFittingPrefix(text: string, style: TextStyle, maxWidth: number): string {
  const characters = Array.from(text);
  const fits = (count: number) =>
    textWidth(`${characters.slice(0, count).join("")}…`, style.size, style.bold) <= maxWidth;
  if (fits(characters.length)) return text;
  let low = 1;
  let high = characters.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return characters.slice(0, low).join("");
}

/**
 * The largest size from `maxSize` down to `minSize` at which the text wraps into `maxLines` with no
 * word cut; at `minSize` it is wrapped and cut as it must be.
 */
export function fitText(
  text: string,
  options: { bold: boolean; maxSize: number; minSize: number; maxWidth: number; maxLines: number },
): WrappedText & { size: number } {
  for (let size = options.maxSize; size > options.minSize; size -= 1) {
    const wrapped = layoutText(text, { size, bold: options.bold }, options.maxWidth, options.maxLines);
    if (wrapped.printed === wrapped.characters) return { ...wrapped, size };
  }
  const size = options.minSize;
  return { ...layoutText(text, { size, bold: options.bold }, options.maxWidth, options.maxLines), size };
}

/**
 * One line of text as the outlines of its glyphs: an SVG path's data in points, its baseline at
 * (x, y) (its centre at x with `center`). The proof draws text this way so that its raster shows
 * the very glyphs, kerning and widths the PDF prints, whatever fonts the machine has.
 */
export function textPath(
  line: string,
  options: { x: number; y: number; size: number; bold: boolean; center?: boolean },
): string {
  const { font } = cardFont(options.bold);
  const scale = options.size / font.unitsPerEm;
  let penX = options.center ? options.x - textWidth(line, options.size, options.bold) / 2 : options.x;
  let data = "";
  for (const piece of piecesOf(line)) {
    const run = shaped(piece, options.bold);
    run.glyphs.forEach((glyph, index) => {
      const position = run.positions[index]!;
      const outline = glyphOutline(glyph, options.bold, options.size, scale);
      if (outline) {
        const x = penX + position.xOffset * scale + outline.startX;
        const y = options.y - position.yOffset * scale + outline.startY;
        data += `M${x.toFixed(2)} ${y.toFixed(2)}${outline.rest}`;
      }
      penX += position.xAdvance * scale;
    });
  }
  return data;
}

/**
 * A glyph's outline at one size: where it starts from its origin, and the rest as relative
 * commands. Every point is rounded to 0.01 pt from the origin before the differences are taken,
 * so the relative steps add up to no drift. Kept per thread (an outline was ~2 ms of a card
 * side's SVG each time, most of a back's 9 ms; a card repeats a few dozen glyphs).
 */
interface GlyphOutline {
  startX: number;
  startY: number;
  rest: string;
}

const GLYPH_OUTLINE_ENTRIES = 5_000;
const glyphOutlines = new Map<string, GlyphOutline | null>();

function glyphOutline(glyph: Glyph, bold: boolean, size: number, scale: number): GlyphOutline | null {
  const key = `${bold ? "b" : "r"}${glyph.id}@${size}`;
  let outline = glyphOutlines.get(key);
  if (outline === undefined) {
    outline = outlineOf(glyph, scale);
    if (glyphOutlines.size >= GLYPH_OUTLINE_ENTRIES) glyphOutlines.clear();
    glyphOutlines.set(key, outline);
  }
  return outline;
}

const RELATIVE = { moveTo: "m", lineTo: "l", quadraticCurveTo: "q", bezierCurveTo: "c" } as const;

const hundredths = (value: number) => Math.round(value * 100);
const asPoints = (value: number) => (value / 100).toString();

function outlineOf(glyph: Glyph, scale: number): GlyphOutline | null {
  const commands = glyph.path.commands;
  if (commands.length === 0) return null;
  // Current point in hundredths of a point, y down; every command but the first is relative to it.
  let atX = 0;
  let atY = 0;
  let subpathX = 0;
  let subpathY = 0;
  let start = { x: 0, y: 0 };
  let rest = "";
  const step = (args: readonly number[], from: number) => {
    const x = hundredths(args[from]! * scale);
    const y = hundredths(-args[from + 1]! * scale);
    const relative = `${asPoints(x - atX)} ${asPoints(y - atY)}`;
    return { x, y, relative };
  };
  commands.forEach(({ command, args }, index) => {
    if (command === "closePath") {
      // A closed subpath leaves the current point at its start.
      rest += "z";
      atX = subpathX;
      atY = subpathY;
      return;
    }
    const points = [0, 2, 4].slice(0, args.length / 2).map((from) => step(args, from));
    const end = points[points.length - 1]!;
    // The first command is the outline's first moveTo: drawn by the caller at its absolute place.
    if (index === 0) start = end;
    else rest += `${RELATIVE[command]}${points.map((point) => point.relative).join(" ")}`;
    if (command === "moveTo") {
      subpathX = end.x;
      subpathY = end.y;
    }
    atX = end.x;
    atY = end.y;
  });
  return { startX: start.x / 100, startY: start.y / 100, rest };
}
