/**
 * Postcard sizes and their print geometry. Every measure is in points (1/72 in), the unit of
 * both the PDF page and the SVG viewBox; the artwork covers the trim plus a 0.125 in bleed on
 * every side, so a card is 0.25 in wider and taller than it is once cut.
 */
export const CARD_SIZES = ["6x4.25", "6x9"] as const;
export type CardSize = (typeof CARD_SIZES)[number];

export const POINTS_PER_INCH = 72;
export const BLEED_INCHES = 0.125;
/** Text and the QR code stay this far inside the trim, clear of the cutter's tolerance. */
export const SAFE_INCHES = 0.1875;

const pt = (inches: number) => inches * POINTS_PER_INCH;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CardGeometry {
  size: CardSize;
  /** The artwork (trim plus bleed) in points. */
  width: number;
  height: number;
  bleed: number;
  /** The trimmed card inside the artwork. */
  trim: Box;
  /** Inside the trim by the safety margin: where text may go. */
  safe: Box;
  /**
   * The print provider's ink-free address zone on the back (bottom right), as Lob specifies it:
   * 3.2835 × 2.375 in on a 4×6-class card, 4 × 2.375 in on a 6×9, 0.275 in from the right trim
   * and 0.25 in from the bottom trim. Postage and the address block print here.
   */
  clearZone: Box;
}

/** Trim width × height in inches; both cards are landscape (the 6×9 is 9 in wide, 6 in tall). */
const TRIM_INCHES: Record<CardSize, { width: number; height: number; clearZoneWidth: number }> = {
  "6x4.25": { width: 6, height: 4.25, clearZoneWidth: 3.2835 },
  "6x9": { width: 9, height: 6, clearZoneWidth: 4 },
};

export function cardGeometry(size: CardSize): CardGeometry {
  const trimInches = TRIM_INCHES[size];
  const bleed = pt(BLEED_INCHES);
  const trim = { x: bleed, y: bleed, width: pt(trimInches.width), height: pt(trimInches.height) };
  const safeMargin = pt(SAFE_INCHES);
  const zoneWidth = pt(trimInches.clearZoneWidth);
  const zoneHeight = pt(2.375);
  return {
    size,
    width: trim.width + 2 * bleed,
    height: trim.height + 2 * bleed,
    bleed,
    trim,
    safe: {
      x: trim.x + safeMargin,
      y: trim.y + safeMargin,
      width: trim.width - 2 * safeMargin,
      height: trim.height - 2 * safeMargin,
    },
    clearZone: {
      x: trim.x + trim.width - pt(0.275) - zoneWidth,
      y: trim.y + trim.height - pt(0.25) - zoneHeight,
      width: zoneWidth,
      height: zoneHeight,
    },
  };
}
