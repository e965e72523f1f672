/** Resolution of the PNG proof a human looks at (render.ts draws the sheet at it). */
export const PROOF_DPI = 150;

/**
 * The two sides of a proof sheet (render.ts's renderProofPng stacks front above back with a margin
 * of a quarter inch), as separate PNGs; `width` scales each down (a list's thumbnail).
 */
export async function splitProofSheet(png: Buffer, width?: number): Promise<[Buffer, Buffer]> {
  // sharp (libvips) loads with the first proof shown, not at start.
  const { default: sharp } = await import("sharp");
  const { width: sheetWidth, height: sheetHeight } = await sharp(png).metadata();
  const gap = Math.round(PROOF_DPI * 0.25);
  const sideWidth = sheetWidth! - 2 * gap;
  const sideHeight = Math.floor((sheetHeight! - 3 * gap) / 2);
  const side = (top: number) => {
    const image = sharp(png).extract({ left: gap, top, width: sideWidth, height: sideHeight });
    return (width && width < sideWidth ? image.resize({ width }) : image).png().toBuffer();
  };
  const [front, back] = await Promise.all([side(gap), side(2 * gap + sideHeight)]);
  return [front, back];
}
