/**
 * Colour contrast as WCAG 2.x defines it, so a contractor's brand colour is used where it reads:
 * text in it is darkened (or lightened) until it stands out from its background, and text set on
 * it is black or white, whichever contrasts more. Computed, never assumed from the colour's look.
 */

/** WCAG AA for normal text. */
export const MIN_TEXT_CONTRAST = 4.5;

type Rgb = [number, number, number];

const HEX = /^#([0-9a-f]{6})$/i;

export function parseHex(colour: string): Rgb | undefined {
  const match = HEX.exec(colour.trim());
  if (!match) return undefined;
  const value = Number.parseInt(match[1]!, 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

const toHex = (rgb: Rgb) =>
  `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, "0")).join("")}`;

/** WCAG relative luminance of an sRGB colour (0 black … 1 white). */
export function relativeLuminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((channel) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours, 1 (none) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(parseHex(a) ?? [0, 0, 0]);
  const lb = relativeLuminance(parseHex(b) ?? [0, 0, 0]);
  const [light, dark] = la > lb ? [la, lb] : [lb, la];
  return (light + 0.05) / (dark + 0.05);
}

const mix = (rgb: Rgb, toward: number, share: number): Rgb =>
  rgb.map((channel) => channel + (toward - channel) * share) as Rgb;

/**
 * `colour` as text on `background`: itself when it contrasts enough, else mixed toward black (on
 * a light background) or white (on a dark one) by the least step that does. Black or white always
 * get there, so the answer always reads.
 */
export function readableOn(colour: string, background: string, minimum = MIN_TEXT_CONTRAST): string {
  const rgb = parseHex(colour);
  if (!rgb) return textColourOn(background);
  if (contrastRatio(colour, background) >= minimum) return toHex(rgb);
  const towardBlack = textColourOn(background) === "#000000";
  for (let step = 1; step <= 20; step++) {
    const candidate = toHex(mix(rgb, towardBlack ? 0 : 255, step / 20));
    if (contrastRatio(candidate, background) >= minimum) return candidate;
  }
  return towardBlack ? "#000000" : "#ffffff";
}

/** Black or white, whichever contrasts more with `background` (one of them always reaches 4.5:1). */
export function textColourOn(background: string): "#000000" | "#ffffff" {
  return contrastRatio("#000000", background) >= contrastRatio("#ffffff", background) ? "#000000" : "#ffffff";
}
