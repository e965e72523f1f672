/**
 * Postcard sizes and their print geometry, to the print provider's published artboard (Lob's
 * postcard specs): every file is the trim plus a 0.125 in bleed on each side, so a 4×6 card is a
 * 6.25 × 4.25 in file, a 6×9 one 9.25 × 6.25 in and the 6×11 jumbo 11.25 × 6.25 in. A provider
 * refuses a file of other dimensions. Every measure here is in points (1/72 in), the unit of the
 * PDF page. All cards are landscape.
 */
export const CARD_SIZES = ["4x6", "6x9", "6x11"] as const;
export type CardSize = (typeof CARD_SIZES)[number];

/**
 * Sizes a stored template may still name. "6x4.25" was the default card's name when its trim was
 * 6 × 4.25 in (a file no provider's 4×6 class accepts); such automations now print the 4×6 card.
 */
const LEGACY_SIZES: Readonly<Record<string, CardSize>> = { "6x4.25": "4x6" };

/** The size a stored template names, legacy names mapped; undefined when it names none we print. */
export function cardSizeOf(stored: unknown): CardSize | undefined {
  if (typeof stored !== "string") return undefined;
  if ((CARD_SIZES as readonly string[]).includes(stored)) return stored as CardSize;
  return LEGACY_SIZES[stored];
}

export const POINTS_PER_INCH = 72;
export const BLEED_INCHES = 0.125;
/**
 * Text and the QR code stay this far inside the trim. Lob asks for 0.125 in; 0.1875 in adds the
 * cutter's 1/16 in tolerance.
 */
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
  /** The artwork (trim plus bleed) in points: the PDF page. */
  width: number;
  height: number;
  bleed: number;
  /** The trimmed card inside the artwork. */
  trim: Box;
  /** Inside the trim by the safety margin: where text may go. */
  safe: Box;
  /**
   * The provider's ink-free address zone on the back (bottom right), as Lob specifies it:
   * 3.2835 × 2.375 in on a 4×6, 4 × 2.375 in on every other size, 0.275 in from the right edge
   * and 0.25 in from the bottom edge of the artwork (bleed included). Postage and the address
   * block print here.
   */
  clearZone: Box;
}

interface SizeSpec {
  trimWidth: number;
  trimHeight: number;
  clearZoneWidth: number;
}

/** Trim width × height in inches (landscape: the 6×9 is 9 in wide) and the clear zone's width. */
const SPECS: Record<CardSize, SizeSpec> = {
  "4x6": { trimWidth: 6, trimHeight: 4, clearZoneWidth: 3.2835 },
  "6x9": { trimWidth: 9, trimHeight: 6, clearZoneWidth: 4 },
  "6x11": { trimWidth: 11, trimHeight: 6, clearZoneWidth: 4 },
};

const CLEAR_ZONE_HEIGHT_INCHES = 2.375;
const CLEAR_ZONE_RIGHT_INCHES = 0.275;
const CLEAR_ZONE_BOTTOM_INCHES = 0.25;

export function cardGeometry(size: CardSize): CardGeometry {
  const spec = SPECS[size];
  const bleed = pt(BLEED_INCHES);
  const trim = { x: bleed, y: bleed, width: pt(spec.trimWidth), height: pt(spec.trimHeight) };
  const width = trim.width + 2 * bleed;
  const height = trim.height + 2 * bleed;
  const safeMargin = pt(SAFE_INCHES);
  const zoneWidth = pt(spec.clearZoneWidth);
  const zoneHeight = pt(CLEAR_ZONE_HEIGHT_INCHES);
  return {
    size,
    width,
    height,
    bleed,
    trim,
    safe: {
      x: trim.x + safeMargin,
      y: trim.y + safeMargin,
      width: trim.width - 2 * safeMargin,
      height: trim.height - 2 * safeMargin,
    },
    clearZone: {
      x: width - pt(CLEAR_ZONE_RIGHT_INCHES) - zoneWidth,
      y: height - pt(CLEAR_ZONE_BOTTOM_INCHES) - zoneHeight,
      width: zoneWidth,
      height: zoneHeight,
    },
  };
}
