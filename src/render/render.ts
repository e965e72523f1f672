import PDFDocument from "pdfkit";
import sharp from "sharp";
import SVGtoPDF from "svg-to-pdfkit";
import { type CardSize, cardGeometry, POINTS_PER_INCH } from "./card-size.ts";
import { backSvg, type CardContent, frontSvg } from "./card-svg.ts";

/** Print resolution of raster artwork (the home's image) inside the PDF. */
export const PRINT_DPI = 300;
/** Resolution of the PNG proof a human looks at. */
export const PROOF_DPI = 150;

export interface RenderedSides {
  size: CardSize;
  front: string;
  back: string;
}

export function renderSides(card: CardContent): RenderedSides {
  return { size: card.size, front: frontSvg(card), back: backSvg(card) };
}

/**
 * Crops and scales any image sharp reads (SVG, PNG, JPEG) to cover the card's artwork at print
 * resolution, so the SVG never depends on aspect-ratio handling that PDF and raster renderers
 * implement differently.
 */
export async function fitHomeImage(
  bytes: Buffer,
  size: CardSize,
): Promise<{ mime: "image/jpeg"; bytes: Buffer }> {
  const geometry = cardGeometry(size);
  const width = Math.round((geometry.width / POINTS_PER_INCH) * PRINT_DPI);
  const height = Math.round((geometry.height / POINTS_PER_INCH) * PRINT_DPI);
  const jpeg = await sharp(bytes, { density: PRINT_DPI })
    .resize(width, height, { fit: "cover", position: "centre" })
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: 88 })
    .toBuffer();
  return { mime: "image/jpeg", bytes: jpeg };
}

/** A PDF with one page per SVG, each page the full artwork (trim plus bleed). */
export function renderPdf(size: CardSize, pages: readonly string[]): Promise<Buffer> {
  const { width, height } = cardGeometry(size);
  const doc = new PDFDocument({
    autoFirstPage: false,
    margin: 0,
    info: { Title: "Postcard", Creator: "Porchlight" },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  for (const svg of pages) {
    doc.addPage({ size: [width, height], margin: 0 });
    SVGtoPDF(doc, svg, 0, 0, { width, height, assumePt: true, warningCallback: () => {} });
  }
  doc.end();
  return done;
}

/** The two-page print file: front, then back. */
export const renderCardPdf = (sides: RenderedSides) => renderPdf(sides.size, [sides.front, sides.back]);

/** One side as PNG at `dpi`, rendered from the same SVG the PDF is made of. */
export function renderSidePng(svg: string, dpi = PROOF_DPI): Promise<Buffer> {
  return sharp(Buffer.from(svg), { density: dpi }).png().toBuffer();
}

/** Front above back on a grey sheet, for a human to look at. */
export async function renderProofPng(sides: RenderedSides, dpi = PROOF_DPI): Promise<Buffer> {
  const [front, back] = await Promise.all([renderSidePng(sides.front, dpi), renderSidePng(sides.back, dpi)]);
  const { width: sideWidth, height: sideHeight } = await sharp(front).metadata();
  const gap = Math.round(dpi * 0.25);
  return sharp({
    create: {
      width: sideWidth! + 2 * gap,
      height: 2 * sideHeight! + 3 * gap,
      channels: 4,
      background: "#8a949e",
    },
  })
    .composite([
      { input: front, left: gap, top: gap },
      { input: back, left: gap, top: 2 * gap + sideHeight! },
    ])
    .png()
    .toBuffer();
}
