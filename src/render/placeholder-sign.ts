import { PLACEHOLDER_SCENE } from "../imagery/placeholder.ts";
import type { DrawOp } from "./drawing.ts";
import { wrapText } from "./text.ts";

const SIGN = PLACEHOLDER_SCENE.sign;

/**
 * The sign with the street lettered on it, over the scene as it covers a `width` × `height`
 * artwork (scaled to cover, centred, as the scene's image is fitted). Vector text: crisp in print.
 */
export function placeholderSignOps(street: string, width: number, height: number): DrawOp[] {
  const scale = Math.max(width / PLACEHOLDER_SCENE.width, height / PLACEHOLDER_SCENE.height);
  const left = (width - PLACEHOLDER_SCENE.width * scale) / 2;
  const top = (height - PLACEHOLDER_SCENE.height * scale) / 2;
  const at = (x: number, y: number) => ({ x: left + x * scale, y: top + y * scale });
  const lines = wrapText(street, { size: SIGN.fontSize, bold: true }, 520, 2);
  const signHeight = 60 + lines.length * SIGN.lineHeight;
  const corner = at(SIGN.x, SIGN.top);
  const label = at(SIGN.x + SIGN.width / 2, SIGN.top + 62);
  return [
    {
      op: "frame",
      ...corner,
      width: SIGN.width * scale,
      height: signHeight * scale,
      radius: 14 * scale,
      fill: "#ffffff",
      stroke: "#1d2433",
      lineWidth: 4 * scale,
    },
    {
      op: "text",
      lines,
      ...label,
      size: SIGN.fontSize * scale,
      bold: true,
      fill: "#1d2433",
      lineHeight: SIGN.lineHeight * scale,
      center: true,
    },
  ];
}
