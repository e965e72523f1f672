import QRCode from "qrcode";

/** Error correction M survives about 15% damage (a scuffed card) at a modest module count. */
export const QR_ERROR_CORRECTION = "M" as const;
/** Modules of white around the code, as the QR standard asks. */
const QUIET_ZONE_MODULES = 4;

/**
 * The QR code of `text` as SVG drawn at (x, y): the code itself `size` points wide, its quiet
 * zone outside that square on a white backing. One path of unit squares, crisp at any scale.
 */
export function qrCodeSvg(text: string, x: number, y: number, size: number): string {
  const qr = QRCode.create(text, { errorCorrectionLevel: QR_ERROR_CORRECTION });
  const count = qr.modules.size;
  const module = size / count;
  const quiet = QUIET_ZONE_MODULES * module;
  const squares: string[] = [];
  for (let row = 0; row < count; row++) {
    for (let column = 0; column < count; column++) {
      if (qr.modules.get(row, column)) squares.push(`M${column} ${row}h1v1h-1z`);
    }
  }
  return (
    `<rect x="${x - quiet}" y="${y - quiet}" width="${size + 2 * quiet}" height="${size + 2 * quiet}" fill="#ffffff"/>` +
    `<path transform="translate(${x} ${y}) scale(${module})" fill="#000000" d="${squares.join("")}"/>`
  );
}

/** Quiet zone width in points for a code drawn `size` points wide. */
export function qrQuietZone(text: string, size: number): number {
  const qr = QRCode.create(text, { errorCorrectionLevel: QR_ERROR_CORRECTION });
  return (QUIET_ZONE_MODULES * size) / qr.modules.size;
}
