import { backLayout, type CardContent, frontLayout } from "./card-layout.ts";
import type { Drawing } from "./drawing.ts";

const linesOf = (drawing: Drawing) => drawing.ops.flatMap((op) => (op.op === "text" ? op.lines : []));

/**
 * Every line of text on each side, in drawing order: what the proof and the print file both draw
 * (one layout), for the builder to describe the proof in words and a test to compare the two.
 */
export function cardTextLines(card: CardContent): { front: string[]; back: string[] } {
  return {
    front: linesOf(frontLayout(card, new Uint8Array()).drawing),
    back: linesOf(backLayout(card).drawing),
  };
}
