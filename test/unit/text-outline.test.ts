/**
 * The proof draws text as its glyphs' outlines (render/text.ts), each glyph's outline at a size kept
 * per thread as relative steps. The points they reach must be fontkit's own, placed as pdfkit sets
 * the line: no drift along an outline, none between glyphs, and a cached outline draws the same.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cardFont, piecesOf, shaped, textPath, textWidth } from "../../src/render/text.ts";

const SAMPLES = [
  "AVATAR Today, Tyler’s roof at 1234 Old Cottonwood Ridge Rd",
  "Café Müller – Zoë’s ½ off",
  "(555)\u00a0201-3344",
];

/** The absolute points of an SVG path's data, each command's end point and control points. */
function pathPoints(data: string): [number, number][] {
  const points: [number, number][] = [];
  let x = 0;
  let y = 0;
  let startX = 0;
  let startY = 0;
  for (const [, letter, args] of data.matchAll(/([MmLlQqCcZz])([^MmLlQqCcZz]*)/g)) {
    const numbers = args!.trim() ? args!.trim().split(/\s+/).map(Number) : [];
    const relative = letter === letter!.toLowerCase();
    if (letter === "z" || letter === "Z") {
      x = startX;
      y = startY;
      continue;
    }
    const pairs: [number, number][] = [];
    for (let i = 0; i < numbers.length; i += 2) {
      pairs.push(relative ? [x + numbers[i]!, y + numbers[i + 1]!] : [numbers[i]!, numbers[i + 1]!]);
    }
    points.push(...pairs);
    [x, y] = pairs[pairs.length - 1]!;
    if (letter === "M" || letter === "m") [startX, startY] = [x, y];
  }
  return points;
}

/** The same points straight from fontkit, as pdfkit places the line's glyphs. */
function fontkitPoints(line: string, x: number, y: number, size: number, bold: boolean): [number, number][] {
  const scale = size / cardFont(bold).font.unitsPerEm;
  let penX = x;
  const points: [number, number][] = [];
  for (const piece of piecesOf(line)) {
    const run = shaped(piece, bold);
    run.glyphs.forEach((glyph, index) => {
      const position = run.positions[index]!;
      for (const { command, args } of glyph.path.commands) {
        if (command === "closePath") continue;
        for (let i = 0; i < args.length; i += 2) {
          points.push([
            penX + (position.xOffset + args[i]!) * scale,
            y - (position.yOffset + args[i + 1]!) * scale,
          ]);
        }
      }
      penX += position.xAdvance * scale;
    });
  }
  return points;
}

describe("text drawn as glyph outlines", () => {
  it("reaches every point of fontkit's outlines within 0.02 pt, cold and cached, left and centred", () => {
    for (const bold of [false, true]) {
      for (const line of SAMPLES) {
        for (const size of [9, 13.5, 28]) {
          for (const center of [false, true]) {
            const x = 17.3;
            const y = 101.25;
            const expected = fontkitPoints(
              line,
              center ? x - textWidth(line, size, bold) / 2 : x,
              y,
              size,
              bold,
            );
            for (let pass = 0; pass < 2; pass++) {
              const drawn = pathPoints(textPath(line, { x, y, size, bold, center }));
              assert.equal(drawn.length, expected.length, `"${line}" at ${size} pt: every point drawn`);
              const worst = Math.max(
                ...drawn.map(([px, py], i) =>
                  Math.max(Math.abs(px - expected[i]![0]), Math.abs(py - expected[i]![1])),
                ),
              );
              assert.ok(
                worst <= 0.02,
                `"${line}" at ${size} pt (${bold ? "bold" : "regular"}): off by ${worst} pt`,
              );
            }
          }
        }
      }
    }
  });

  it("draws nothing for spaces alone", () => {
    assert.equal(textPath("   ", { x: 0, y: 0, size: 12, bold: false }), "");
  });
});
