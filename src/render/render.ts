import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import sharp from "sharp";
import { backDrawing, type CardContent, frontDrawing } from "./card-layout.ts";
import { type CardSize, cardGeometry, POINTS_PER_INCH } from "./card-size.ts";
import { type Drawing, drawingsToPdf, drawingToSvg } from "./drawing.ts";
import { PROOF_DPI } from "./proof-sides.ts";

/** Print resolution of raster artwork (the home's picture) inside the PDF. */
export const PRINT_DPI = 300;
export { PROOF_DPI };

/** Fitted pictures kept per process (each ~0.2-0.6 MB): the placeholder scene per size, repeats. */
const FITTED_CACHE_ENTRIES = 16;
const fittedCache = new Map<string, Promise<Uint8Array>>();

/**
 * Crops and scales any image sharp reads (SVG, PNG, JPEG) to cover the card's artwork at print
 * resolution, as JPEG. The same bytes at the same size are fitted once: the placeholder's scene
 * is shared by every card, and rasterizing it at 300 dpi was most of a card's time (~60 ms).
 */
export function fitHomeImage(bytes: Uint8Array, size: CardSize): Promise<Uint8Array> {
  const key = `${size}:${createHash("sha1").update(bytes).digest("hex")}`;
  const cached = fittedCache.get(key);
  if (cached) return cached;
  const fitted = fit(bytes, size);
  fittedCache.set(key, fitted);
  fitted.catch(() => fittedCache.delete(key));
  if (fittedCache.size > FITTED_CACHE_ENTRIES) fittedCache.delete(fittedCache.keys().next().value!);
  return fitted;
}

async function fit(bytes: Uint8Array, size: CardSize): Promise<Uint8Array> {
  const geometry = cardGeometry(size);
  const width = Math.round((geometry.width / POINTS_PER_INCH) * PRINT_DPI);
  const height = Math.round((geometry.height / POINTS_PER_INCH) * PRINT_DPI);
  return sharp(bytes, { density: PRINT_DPI })
    .resize(width, height, { fit: "cover", position: "centre" })
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: 88 })
    .toBuffer();
}

async function drawSides(card: CardContent): Promise<{ fitted: Uint8Array; front: Drawing; back: Drawing }> {
  const fitted = await fitHomeImage(card.homeImage.bytes, card.size);
  return { fitted, front: frontDrawing(card, fitted), back: backDrawing(card) };
}

/**
 * What a print provider takes, one PDF per side, each page the full artwork (trim plus bleed); and
 * the images for people to look at that were asked for, drawn from the same fitted picture and layout.
 */
export interface PrintFiles {
  frontPdf: Buffer;
  backPdf: Buffer;
  /** The front as a PNG `thumbnailWidth` pixels wide: what Mail lists the card with. */
  frontThumbnail?: Buffer;
  /** Each side asked for as its preview (`renderSidePreview`): what the card's page shows. */
  previews?: Partial<Record<CardSide, Buffer>>;
  /** Why the images asked for could not be drawn (the print files are whole without them). */
  imagesError?: string;
}

/** The images for people to look at drawn with the print files (none by default). */
export interface PrintImages {
  thumbnailWidth?: number;
  previews?: readonly CardSide[];
}

/**
 * The print files, and the images asked for, drawn in the same task from the same fitted picture and
 * layout: a printed card's images are made with its print files, never drawn again from a card
 * composed anew.
 */
export async function renderPrintFiles(card: CardContent, images: PrintImages = {}): Promise<PrintFiles> {
  const { fitted, front, back } = await drawSides(card);
  const [frontPdf, backPdf] = await Promise.all([drawingsToPdf([front]), drawingsToPdf([back])]);
  const { thumbnailWidth, previews = [] } = images;
  if (thumbnailWidth === undefined && previews.length === 0) return { frontPdf, backPdf };
  try {
    const [frontThumbnail, ...drawn] = await Promise.all([
      thumbnailWidth === undefined ? undefined : frontPng(card, fitted, { width: thumbnailWidth }),
      ...previews.map((side) => (side === "back" ? backPreview(back) : frontPreview(card, fitted))),
    ]);
    const previewsBySide = Object.fromEntries(previews.map((side, index) => [side, drawn[index]!]));
    return {
      frontPdf,
      backPdf,
      ...(frontThumbnail ? { frontThumbnail } : {}),
      ...(previews.length > 0 ? { previews: previewsBySide } : {}),
    };
  } catch (error) {
    // The card prints without them: an image that cannot be drawn is drawn by the sweep or a look.
    return { frontPdf, backPdf, imagesError: error instanceof Error ? error.message : String(error) };
  }
}

/** The two-page proof: front, then back. */
export async function renderProofPdf(card: CardContent): Promise<Buffer> {
  const { front, back } = await drawSides(card);
  return drawingsToPdf([front, back]);
}

/** The two sides as PNGs, for a human to look at. */
export interface SidePngs {
  front: Buffer;
  back: Buffer;
}

/**
 * The home's picture at `dpi` instead of print resolution: an SVG carrying the 300 dpi JPEG spends
 * most of its rasterizing time decoding it (a 320 px thumbnail cost ~55 ms of CPU that way, ~18 ms
 * with the picture at the thumbnail's own resolution).
 */
function pictureAt(fittedJpeg: Uint8Array, size: CardSize, dpi: number): Promise<Uint8Array> {
  // A fitted picture is one object per distinct image (fitHomeImage's cache), so its scaled copies
  // can hang off it: every placeholder card's thumbnail reuses one (~6 ms of a ~20 ms thumbnail).
  let scaled = scaledPictures.get(fittedJpeg);
  if (!scaled) {
    scaled = new Map();
    scaledPictures.set(fittedJpeg, scaled);
  }
  const width = Math.round((cardGeometry(size).width / POINTS_PER_INCH) * dpi);
  let picture = scaled.get(width);
  if (!picture) {
    picture = sharp(fittedJpeg).resize({ width }).jpeg({ quality: 85 }).toBuffer();
    scaled.set(width, picture);
    picture.catch(() => scaled.delete(width));
  }
  return picture;
}
const scaledPictures = new WeakMap<Uint8Array, Map<number, Promise<Uint8Array>>>();

export type CardSide = "front" | "back";
export type SideResolution = { dpi: number } | { width: number };

/**
 * The density that draws the card at `resolution`: a width is drawn at exactly that many pixels
 * (librsvg sizes the raster by the density; no scaling step after it).
 */
function densityOf(size: CardSize, resolution: SideResolution): number {
  return "dpi" in resolution
    ? resolution.dpi
    : (resolution.width * POINTS_PER_INCH) / cardGeometry(size).width;
}

/**
 * A drawing as a PNG. zlib at level 2, not sharp's 6: a thumbnail's encoding took ~3.5 ms of its
 * ~13, now ~1.5, for files ~6 % larger, kept in the database and sent over a network once.
 */
const sidePng = (drawing: Drawing, density: number) =>
  sharp(Buffer.from(drawingToSvg(drawing)), { density })
    .png({ compressionLevel: 2 })
    .toBuffer();

async function frontPng(card: CardContent, fitted: Uint8Array, resolution: SideResolution): Promise<Buffer> {
  const density = densityOf(card.size, resolution);
  const picture = await pictureAt(fitted, card.size, Math.ceil(density));
  return sidePng(frontDrawing(card, picture), density);
}

/**
 * One side drawn from the print files' own layout at `dpi`, or exactly `width` pixels wide (a list's
 * thumbnail). Only the front has the home's picture; the back is text, the address and the QR code.
 */
export async function renderSidePng(
  card: CardContent,
  side: CardSide,
  resolution: SideResolution,
): Promise<Buffer> {
  if (side === "back") return sidePng(backDrawing(card), densityOf(card.size, resolution));
  return frontPng(card, await fitHomeImage(card.homeImage.bytes, card.size), resolution);
}

/** Resolution of the picture inside a side's preview: the proofs' own, sharp on a phone's screen. */
export const PREVIEW_PICTURE_DPI = PROOF_DPI;

/**
 * zlib level 4, not 6: a back's SVG (glyph outlines) gzips to ~14.5 KB in ~0.9 ms of CPU against
 * ~13.7 KB in ~3.4 ms, and a front's is mostly its JPEG, which no level shrinks much.
 */
const gzipAsync = promisify(gzip);
const gzipped = (svg: string) => gzipAsync(svg, { level: 4 });

/**
 * A side as a person looks at it on the card's page: the print's own drawing as SVG, gzipped (text as
 * paths, the QR code as vector runs, the picture as a JPEG at PREVIEW_PICTURE_DPI). Drawing it is a few
 * milliseconds where a 150 dpi PNG took ~50 (front and back), and it is ~10x smaller (a photo's front
 * ~140 KB against ~1.5 MB): it can be written with every card's print files.
 */
export async function renderSidePreview(card: CardContent, side: CardSide): Promise<Buffer> {
  if (side === "back") return backPreview(backDrawing(card));
  return frontPreview(card, await fitHomeImage(card.homeImage.bytes, card.size));
}

const backPreview = (back: Drawing) => gzipped(drawingToSvg(back));

async function frontPreview(card: CardContent, fitted: Uint8Array): Promise<Buffer> {
  const picture = await pictureAt(fitted, card.size, PREVIEW_PICTURE_DPI);
  return gzipped(drawingToSvg(frontDrawing(card, picture)));
}

/** Front and back, as renderSidePng draws each. */
export async function renderSidePngs(card: CardContent, resolution: SideResolution): Promise<SidePngs> {
  const [front, back] = await Promise.all([
    renderSidePng(card, "front", resolution),
    renderSidePng(card, "back", resolution),
  ]);
  return { front, back };
}

/** Front above back on a grey sheet, for a human to look at; drawn from the PDF's own layout. */
export async function renderProofPng(card: CardContent, dpi = PROOF_DPI): Promise<Buffer> {
  const { front, back } = await renderSidePngs(card, { dpi });
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
