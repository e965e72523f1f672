import assert from "node:assert/strict";
import { describe, it } from "node:test";
import PDFDocument from "pdfkit";
import { drawingsToPdf } from "../../src/render/drawing.ts";
import { pdfFont } from "../../src/render/pdf-font.ts";
import { cardFont, textWidth } from "../../src/render/text.ts";
import { pdfFonts, pdfTextLines } from "../helpers/pdf-text.ts";

// Kerning pairs (AV, To, Ty), a no-break space, digits, accents (compound glyphs in Inter) and a dash.
const SAMPLES = [
  "AVATAR Today, Tyler’s roof at 1234 Old Cottonwood Ridge Rd",
  "(555)\u00a0201-3344 or call",
  "Café Müller – naïve façade, Zoë’s coupon ½ off",
  "Hello neighbor, we just finished a job on Evergreen Ter.",
];

describe("the card font, shaped and subset once per thread", () => {
  it("measures every line as pdfkit sets it with the font file itself (no shared shaping)", () => {
    for (const bold of [false, true]) {
      const doc = new PDFDocument({ autoFirstPage: false });
      doc.registerFont("plain", cardFont(bold).bytes);
      doc.font("plain").fontSize(13);
      for (const sample of SAMPLES) {
        for (const text of [sample, `${sample} `, sample.slice(0, 9)]) {
          assert.ok(
            Math.abs(textWidth(text, 13, bold) - doc.widthOfString(text)) < 1e-9,
            `${bold ? "bold" : "regular"} "${text}": ${textWidth(text, 13, bold)} ≠ ${doc.widthOfString(text)}`,
          );
        }
      }
    }
  });

  it("gives pdfkit a fresh run each time: documents after the first measure the same", () => {
    for (let copy = 0; copy < 3; copy++) {
      const doc = new PDFDocument({ autoFirstPage: false });
      doc.registerFont("shared", pdfFont(true) as never);
      doc.font("shared").fontSize(13);
      for (const sample of SAMPLES)
        assert.ok(
          Math.abs(textWidth(sample, 13, true) - doc.widthOfString(sample)) < 1e-9,
          `copy ${copy + 1}`,
        );
    }
  });

  it("encodes the same subset bytes as fontkit's own subset, compound glyphs included, cold and cached", () => {
    for (const bold of [false, true]) {
      const { font } = cardFont(bold);
      const ids = [
        ...new Set(SAMPLES.flatMap((sample) => font.layout(sample).glyphs.map((glyph) => glyph.id))),
      ];
      const compound = ids.filter(
        (id) =>
          ((font.getGlyph(id) as unknown as { _decode(): { numberOfContours: number } | null })._decode()
            ?.numberOfContours ?? 0) < 0,
      );
      assert.ok(compound.length > 0, "the samples include a compound glyph (its components are renumbered)");
      const encoded = (source: typeof font) => {
        const subset = source.createSubset();
        for (const id of ids) subset.includeGlyph(id as never);
        return Buffer.from(subset.encode());
      };
      const expected = encoded(font);
      assert.deepEqual(encoded(pdfFont(bold)), expected, "first encoding");
      assert.deepEqual(encoded(pdfFont(bold)), expected, "from the cache");
    }
  });

  it("prints the same text in many PDFs (shared runs are never scaled twice), every font embedded", async () => {
    const drawing = {
      width: 300,
      height: 200,
      ops: SAMPLES.map((line, index) => ({
        op: "text" as const,
        lines: [line],
        x: 10,
        y: 30 + index * 30,
        size: 9,
        bold: index % 2 === 1,
        fill: "#000000",
        lineHeight: 11,
      })),
    };
    for (let copy = 0; copy < 3; copy++) {
      const pdf = await drawingsToPdf([drawing]);
      // A no-break space is the space's glyph: the text layer reads it as the first one set.
      assert.deepEqual(
        pdfTextLines(pdf).map((line) => line.replace(/\u00a0/g, " ")),
        SAMPLES.map((line) => line.replace(/\u00a0/g, " ")),
        `copy ${copy + 1}`,
      );
      const fonts = pdfFonts(pdf);
      assert.equal(fonts.length, 2);
      assert.ok(
        fonts.every((font) => font.embedded && font.subset),
        JSON.stringify(fonts),
      );
    }
  });
});
