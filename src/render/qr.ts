import { createRequire } from "node:module";
import type QRCodeModule from "qrcode";
import type { DrawOp } from "./drawing.ts";

/** Error correction M survives about 15% damage (a scuffed card) at a modest module count. */
export const QR_ERROR_CORRECTION = "M" as const;
/** Modules of white around the code, as the QR standard asks. */
const QUIET_ZONE_MODULES = 4;

export interface QrCode {
  modules: number;
  /** Horizontal runs of dark modules, [row, first column, length]: a few hundred shapes, not ~1000. */
  runs: [number, number, number][];
}

/** qrcode loads on the first code drawn (in the render threads), not with the API. */
let qrCodeModule: typeof QRCodeModule | undefined;

export function encodeQr(text: string): QrCode {
  qrCodeModule ??= createRequire(import.meta.url)("qrcode") as typeof QRCodeModule;
  const qr = qrCodeModule.create(text, { errorCorrectionLevel: QR_ERROR_CORRECTION });
  const count = qr.modules.size;
  const runs: [number, number, number][] = [];
  for (let row = 0; row < count; row++) {
    let start = -1;
    for (let column = 0; column <= count; column++) {
      const dark = column < count && qr.modules.get(row, column);
      if (dark && start < 0) start = column;
      if (!dark && start >= 0) {
        runs.push([row, start, column - start]);
        start = -1;
      }
    }
  }
  return { modules: count, runs };
}

/**
 * The code inside a fixed square box (quiet zone included) on a white backing: the code takes
 * what its quiet zone leaves, so a longer link makes finer modules, never a bigger box.
 */
export function qrBoxOps(code: QrCode, box: { x: number; y: number; size: number }): DrawOp[] {
  const module = box.size / (code.modules + 2 * QUIET_ZONE_MODULES);
  const quiet = QUIET_ZONE_MODULES * module;
  return [
    { op: "rect", x: box.x, y: box.y, width: box.size, height: box.size, fill: "#ffffff" },
    {
      op: "qr",
      x: box.x + quiet,
      y: box.y + quiet,
      size: code.modules * module,
      modules: code.modules,
      runs: code.runs,
    },
  ];
}
