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

/** Quiet zone width in points for a code drawn `size` points wide. */
export const qrQuietZone = (code: QrCode, size: number) => (QUIET_ZONE_MODULES * size) / code.modules;

/**
 * The code drawn at (x, y), `size` points wide, on a white backing that holds its quiet zone
 * outside that square.
 */
export function qrOps(code: QrCode, x: number, y: number, size: number): DrawOp[] {
  const quiet = qrQuietZone(code, size);
  return [
    {
      op: "rect",
      x: x - quiet,
      y: y - quiet,
      width: size + 2 * quiet,
      height: size + 2 * quiet,
      fill: "#ffffff",
    },
    { op: "qr", x, y, size, modules: code.modules, runs: code.runs },
  ];
}
