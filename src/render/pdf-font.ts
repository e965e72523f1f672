import type { Font } from "fontkit";
import { cardFont, shaped } from "./text.ts";

/**
 * The card's faces as pdfkit is given them, once per thread: the parsed font (text.ts) with two
 * things shared between documents that pdfkit would otherwise redo for every PDF, each card being
 * two PDFs with both faces:
 *
 * - shaping: `layout` answers from the pieces text.ts shaped (a fresh run each call, as pdfkit
 *   scales a run's positions in place), so the PDF sets exactly what was measured;
 * - subsetting: each glyph's outline bytes and metrics are read from the font file once, and a
 *   subset of the same glyphs in the same order is encoded once (the output is the same bytes).
 *
 * Everything else (metrics, tables) is the font's own, through the prototype. The subset part
 * replaces `_addGlyph` of fontkit 2's TrueType subset, read from fontkit 2.0.4 (package.json pins
 * the major version); test/app-api/card-fit.test.ts checks the embedded fonts with pdffonts and
 * the printed text with pdftotext.
 */
const pdfFonts: Partial<Record<"regular" | "bold", Font>> = {};

export function pdfFont(bold: boolean): Font {
  const weight = bold ? "bold" : "regular";
  let wrapped = pdfFonts[weight];
  if (!wrapped) {
    const { font } = cardFont(bold);
    const layout = (text: string, features?: unknown) => {
      if (features !== undefined) return font.layout(text, features as never);
      const piece = shaped(text, bold);
      return {
        glyphs: piece.glyphs,
        positions: piece.positions.map((position) => ({ ...position })),
        get advanceWidth() {
          let width = 0;
          for (const position of this.positions) width += position.xAdvance;
          return width;
        },
      };
    };
    const glyphs = new Map<number, StoredGlyph>();
    const subsets = new Map<string, Uint8Array>();
    const createSubset = () => {
      const subset = font.createSubset() as unknown as TrueTypeSubset;
      subset._addGlyph = function (this: TrueTypeSubset, gid: number) {
        return addStoredGlyph(this, storedGlyph(font as unknown as TrueTypeFont, glyphs, gid));
      };
      const encode = subset.encode.bind(subset);
      subset.encode = () => {
        const key = subset.glyphs.join(",");
        let bytes = subsets.get(key);
        if (!bytes) {
          bytes = encode();
          if (subsets.size >= SUBSET_CACHE_ENTRIES) subsets.delete(subsets.keys().next().value!);
          subsets.set(key, bytes);
        }
        return bytes;
      };
      return subset;
    };
    wrapped = Object.create(font, {
      layout: { value: layout },
      createSubset: { value: createSubset },
    }) as Font;
    pdfFonts[weight] = wrapped;
  }
  return wrapped;
}

/** Encoded subsets kept per face (a few KB each): cards of one template and one name repeat them. */
const SUBSET_CACHE_ENTRIES = 200;

/** fontkit 2's TrueType font and subset, as far as the subset's glyph step reads and writes them. */
interface TrueTypeFont {
  getGlyph(gid: number): {
    advanceWidth: number;
    _decode(): { numberOfContours: number; components?: { glyphID: number; pos: number }[] } | null;
    _getMetrics(): { leftBearing: number };
  };
  loca: { offsets: number[] };
  _getTableStream(tag: string): { pos: number; readBuffer(length: number): Uint8Array };
  _variationProcessor?: unknown;
}

interface TrueTypeSubset {
  glyphs: number[];
  glyf: Uint8Array[];
  loca: { offsets: number[] };
  hmtx: { metrics: { advance: number; bearing: number }[] };
  offset: number;
  includeGlyph(gid: number): number;
  _addGlyph(gid: number): number;
  encode(): Uint8Array;
}

/** A glyph as a subset copies it: its `glyf` bytes, the components a compound glyph names, metrics. */
interface StoredGlyph {
  bytes: Uint8Array;
  components: { glyphID: number; pos: number }[] | null;
  advance: number;
  bearing: number;
}

function storedGlyph(font: TrueTypeFont, glyphs: Map<number, StoredGlyph>, gid: number): StoredGlyph {
  let stored = glyphs.get(gid);
  if (!stored) {
    if (font._variationProcessor) throw new Error("the card font must not be a variable font");
    const glyph = font.getGlyph(gid);
    const glyf = glyph._decode();
    const stream = font._getTableStream("glyf");
    stream.pos += font.loca.offsets[gid]!;
    stored = {
      bytes: stream.readBuffer(font.loca.offsets[gid + 1]! - font.loca.offsets[gid]!),
      components:
        glyf && glyf.numberOfContours < 0
          ? (glyf.components ?? []).map(({ glyphID, pos }) => ({ glyphID, pos }))
          : null,
      advance: glyph.advanceWidth,
      bearing: glyph._getMetrics().leftBearing,
    };
    glyphs.set(gid, stored);
  }
  return stored;
}

/** fontkit's `_addGlyph`, from stored bytes: a compound glyph's components renumbered in a copy. */
function addStoredGlyph(subset: TrueTypeSubset, glyph: StoredGlyph): number {
  let bytes = glyph.bytes;
  if (glyph.components) {
    bytes = new Uint8Array(glyph.bytes);
    const view = new DataView(bytes.buffer);
    for (const component of glyph.components)
      view.setUint16(component.pos, subset.includeGlyph(component.glyphID));
  }
  subset.glyf.push(bytes);
  subset.loca.offsets.push(subset.offset);
  subset.hmtx.metrics.push({ advance: glyph.advance, bearing: glyph.bearing });
  subset.offset += bytes.length;
  return subset.glyf.length - 1;
}
