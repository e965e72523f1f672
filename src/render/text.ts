import { createRequire } from "node:module";
import type PDFDocument from "pdfkit";

/** pdfkit (its font metrics) loads on the first measurement: the API process may never need it. */
const loadPdfKit = () => createRequire(import.meta.url)("pdfkit") as typeof PDFDocument;

/**
 * Text layout for the card SVGs. SVG has no line wrapping, so lines are broken here, measured
 * with the PDF's own Helvetica metrics. The PNG proof renders the same SVG through librsvg, whose
 * fallback sans where no Helvetica-metric font (Liberation Sans) is installed is DejaVu Sans:
 * measured 7-15% wider than Helvetica, and 17-21% in bold (up to 25% for runs of i and l), so
 * widths carry that margin and a proof line never runs past its column.
 */
const RASTER_WIDTH_MARGIN = { regular: 1.16, bold: 1.22 };

let measurer: PDFKit.PDFDocument | undefined;

export function textWidth(text: string, size: number, bold: boolean): number {
  measurer ??= new (loadPdfKit())({ autoFirstPage: false });
  return (
    measurer
      .font(bold ? "Helvetica-Bold" : "Helvetica")
      .fontSize(size)
      .widthOfString(text) * RASTER_WIDTH_MARGIN[bold ? "bold" : "regular"]
  );
}

export interface TextStyle {
  size: number;
  bold: boolean;
}

/** Greedy word wrap; a word longer than the line is cut. The last line ends in "…" on overflow. */
export function wrapText(text: string, style: TextStyle, maxWidth: number, maxLines: number): string[] {
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  const lines: string[] = [];
  let current = "";
  const fits = (candidate: string) => textWidth(candidate, style.size, style.bold) <= maxWidth;
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (fits(candidate)) {
      current = candidate;
      continue;
    }
    if (current) lines.push(current);
    current = fits(word) ? word : cutToWidth(word, style, maxWidth);
  }
  if (current) lines.push(current);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = withEllipsis(kept[maxLines - 1]!, style, maxWidth);
  return kept;
}

function cutToWidth(word: string, style: TextStyle, maxWidth: number): string {
  const cut = longestFittingPrefix(word, style, maxWidth);
  return cut === word ? word : `${cut}…`;
}

function withEllipsis(line: string, style: TextStyle, maxWidth: number): string {
  return `${longestFittingPrefix(line, style, maxWidth).trimEnd()}…`;
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
): { size: number; lines: string[] } {
  const whole = text.replace(/\s+/g, " ").trim();
  for (let size = options.maxSize; size > options.minSize; size -= 1) {
    const lines = wrapText(text, { size, bold: options.bold }, options.maxWidth, Number.POSITIVE_INFINITY);
    if (lines.length <= options.maxLines && lines.join(" ") === whole) return { size, lines };
  }
  const size = options.minSize;
  return { size, lines: wrapText(text, { size, bold: options.bold }, options.maxWidth, options.maxLines) };
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

export const FONT_FAMILY = "Helvetica, Arial, sans-serif";
