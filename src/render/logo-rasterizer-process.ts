/**
 * The logo rasteriser's child process (see logo-rasterizer.ts): decodes one uploaded image at a
 * time and answers a PNG. It lives in a process of its own so that the parent can end a drawing
 * that runs too long with SIGKILL, which stops libvips and librsvg wherever they are (a worker
 * thread's termination would leave their native work running on the thread pool).
 */
import sharp from "sharp";
import { AppError } from "../errors.ts";
import { sanitizeSvgLogo } from "./svg-logo.ts";

export interface RasterRequest {
  id: number;
  image: Uint8Array;
  /** An SVG is rebuilt from the allow-list (svg-logo.ts) and sized before it is drawn. */
  kind: "svg" | "bitmap";
  /** Longer side of the PNG, at most. */
  maxSide: number;
  /** Most pixels a bitmap may declare before it is decoded. */
  maxInputPixels: number;
}

export type RasterAnswer =
  | { id: number; png: Uint8Array }
  | { id: number; unreadable: true }
  /** The SVG was refused by the allow-list: the detail names why. */
  | { id: number; refused: string };

// One libvips thread and no cache: the process draws one small image at a time.
sharp.concurrency(1);
sharp.cache(false);

async function rasterise(request: RasterRequest): Promise<RasterAnswer> {
  let image: Uint8Array = request.image;
  if (request.kind === "svg") {
    try {
      image = sanitizeSvgLogo(Buffer.from(image.buffer, image.byteOffset, image.byteLength), request.maxSide);
    } catch (error) {
      if (error instanceof AppError) return { id: request.id, refused: error.detail ?? error.code };
      return { id: request.id, unreadable: true };
    }
  }
  try {
    const png = await sharp(image, { limitInputPixels: request.maxInputPixels })
      .resize({ width: request.maxSide, height: request.maxSide, fit: "inside", withoutEnlargement: true })
      .png()
      .toBuffer();
    return { id: request.id, png };
  } catch {
    return { id: request.id, unreadable: true };
  }
}

/**
 * A process's first drawing of text loads fontconfig's fonts and librsvg: ~0.25 s on a quiet machine,
 * over the 1.5 s time limit on a loaded one. Drawn once before the process says it is ready, that
 * cost is part of its start, which no upload's time limit counts.
 */
const WARM_UP_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><text x="2" y="15">Aa</text></svg>`;

function warmUp(): Promise<unknown> {
  return sharp(Buffer.from(WARM_UP_SVG))
    .png()
    .toBuffer()
    .catch(() => undefined); // a process that cannot draw still answers: each upload is then refused
}

process.on("message", (message: RasterRequest) => {
  void rasterise(message).then((answer) => process.send?.(answer));
});
// The parent going away (a crash, a SIGKILL) closes the channel: nothing is left to draw for.
process.on("disconnect", () => process.exit(0));
void warmUp().then(() => process.send?.({ ready: true }));
