import path from "node:path";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import type { FieldFit } from "./card-fit.ts";
import type { CardContent } from "./card-layout.ts";
import type { CardSender } from "./compose.ts";
import type { CardSide, PrintFiles, PrintImages, SideResolution } from "./render.ts";
import type { ProofSides, RenderResult, RenderTask } from "./render-worker.ts";
import type { ResolvedTemplate } from "./template.ts";

/**
 * Draws cards: the print files a provider takes and the operator's proofs. Rendering is CPU work
 * (layout, QR, image fitting, PDF writing), so it runs on a pool of worker threads, never on the
 * event loop that serves requests and claims jobs.
 */
export interface Renderer {
  /**
   * One PDF per side, each page the full artwork (trim plus bleed); with `thumbnailWidth` and
   * `previews`, the front's list thumbnail and the sides' previews drawn with them (render.ts).
   */
  printFiles(card: CardContent, options?: PrintFileOptions): Promise<PrintFiles>;
  /** The two-page PDF (front, back) or the PNG sheet of both sides, for a human to look at. */
  proof(card: CardContent, format: "pdf" | "png"): Promise<Buffer>;
  /** Each side as its own PNG, at a resolution or scaled to a width, with each side's lines of text. */
  sides(card: CardContent, resolution: SideResolution): Promise<ProofSides>;
  /** One side as a PNG (a list's thumbnail needs only the front; the back has no picture to scale). */
  side(card: CardContent, side: CardSide, resolution: SideResolution): Promise<Buffer>;
  /** One side as its card page's preview: gzipped SVG (render.ts `renderSidePreview`). */
  preview(card: CardContent, side: CardSide): Promise<Buffer>;
  /**
   * The template's fields its card would cut (card-fit.ts has the rule). Laid out on a render
   * thread like every card: the first layout in a thread loads the card's fonts (~0.2 s), which
   * the thread that serves requests should never do.
   */
  fit(template: ResolvedTemplate, sender: CardSender): Promise<FieldFit[]>;
  /**
   * Starts a render thread, if none is running, and draws an example card on it, without waiting:
   * called when somebody opens the app, so the screen's first card image is not the one that pays
   * for the thread's start (its font, sharp, librsvg, the placeholder's fit).
   */
  warm(): void;
  /** Lets rendering in flight finish, then ends the threads. */
  close(): Promise<void>;
}

export interface PrintFileOptions extends PrintImages {
  signal?: AbortSignal;
}

/** A thread left idle this long ends (a quiet service does not hold the renderer's memory). */
const IDLE_THREAD_MS = 60_000;

/**
 * The worker file beside this one with this file's own extension: `.ts` under tsx (development,
 * tests), `.js` in the compiled build, whose worker then loads without tsx.
 */
function workerFile(): string {
  const self = fileURLToPath(import.meta.url);
  return path.join(path.dirname(self), `render-worker${path.extname(self)}`);
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export function createRenderPool(options: { threads: number }): Renderer {
  const pool = new Piscina<RenderTask, RenderResult>({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: options.threads,
    idleTimeout: IDLE_THREAD_MS,
    // A thread runs one card at a time: its image fitting awaits sharp, and a second card meanwhile
    // would only queue inside it.
    concurrentTasksPerWorker: 1,
  });
  return {
    async printFiles(card, options = {}) {
      const { signal, ...images } = options;
      const files = (await pool.run(
        { output: "print", card, images },
        signal ? { signal } : {},
      )) as PrintFiles;
      const previews =
        files.previews &&
        Object.fromEntries(Object.entries(files.previews).map(([side, bytes]) => [side, asBuffer(bytes)]));
      return {
        frontPdf: asBuffer(files.frontPdf),
        backPdf: asBuffer(files.backPdf),
        ...(files.frontThumbnail ? { frontThumbnail: asBuffer(files.frontThumbnail) } : {}),
        ...(previews ? { previews } : {}),
        ...(files.imagesError ? { imagesError: files.imagesError } : {}),
      };
    },
    async proof(card, format) {
      const bytes = await pool.run({ output: format === "pdf" ? "proof-pdf" : "proof-png", card });
      return asBuffer(bytes as Uint8Array);
    },
    async sides(card, resolution) {
      const sides = (await pool.run({ output: "sides-png", card, resolution })) as ProofSides;
      return { front: asBuffer(sides.front), back: asBuffer(sides.back), text: sides.text };
    },
    async fit(template, sender) {
      return (await pool.run({ output: "fit", template, sender })) as FieldFit[];
    },
    async side(card, side, resolution) {
      return asBuffer((await pool.run({ output: "side-png", card, side, resolution })) as Uint8Array);
    },
    async preview(card, side) {
      return asBuffer((await pool.run({ output: "side-preview", card, side })) as Uint8Array);
    },
    warm() {
      if (pool.threads.length > 0) return;
      pool.run({ output: "warm" }).catch(() => undefined);
    },
    close: () => pool.close(),
  };
}
