import { setPriority } from "node:os";
import { type FieldFit, templateOverflow } from "./card-fit.ts";
import type { CardContent } from "./card-layout.ts";
import { cardTextLines } from "./card-text-lines.ts";
import type { CardSender } from "./compose.ts";
import { exampleCard } from "./example-card.ts";
import {
  type CardSide,
  type PrintFiles,
  type PrintImages,
  renderPrintFiles,
  renderProofPdf,
  renderProofPng,
  renderSidePng,
  renderSidePngs,
  renderSidePreview,
  type SidePngs,
  type SideResolution,
} from "./render.ts";
import type { ResolvedTemplate } from "./template.ts";

/**
 * The render pool's thread (see renderer.ts): lays out and draws cards off the API's event loop.
 * Each thread lowers its own scheduling priority once: on Linux, setpriority on "this process"
 * from a thread applies to that thread only, so a busy renderer yields the CPU to the thread that
 * serves requests. Elsewhere, or where the OS refuses, it stays at normal priority.
 */
export const RENDER_THREAD_NICE = 10;
try {
  setPriority(0, RENDER_THREAD_NICE);
} catch {
  // not permitted or not supported: rendering works the same, only without the lower priority
}

/**
 * Draws an example card's thumbnails and throws them away: a new thread's first card reads and parses
 * the fonts, starts sharp and librsvg and fits the placeholder scene (~0.3-0.8 s), which the first
 * card someone is waiting for should not pay.
 */
async function warmUp(): Promise<void> {
  // Mail's thumbnail width (pieces/piece-proof.ts): the placeholder's picture is scaled to it once.
  await renderSidePngs(exampleCard(), { width: 160 });
}

export type RenderTask =
  | { output: "print"; card: CardContent; images: PrintImages }
  | { output: "proof-pdf" | "proof-png"; card: CardContent }
  | { output: "sides-png"; card: CardContent; resolution: SideResolution }
  | { output: "side-png"; card: CardContent; side: CardSide; resolution: SideResolution }
  | { output: "side-preview"; card: CardContent; side: CardSide }
  | { output: "fit"; template: ResolvedTemplate; sender: CardSender }
  | { output: "warm" };

/** Both sides as PNGs and each side's lines of text, as drawn (the builder's proof). */
export type ProofSides = SidePngs & { text: { front: string[]; back: string[] } };

export type RenderResult = PrintFiles | ProofSides | Uint8Array | FieldFit[];

export default async function render(task: RenderTask): Promise<RenderResult> {
  if (task.output === "warm") {
    await warmUp();
    return new Uint8Array(0);
  }
  if (task.output === "print") return renderPrintFiles(task.card, task.images);
  if (task.output === "sides-png") {
    return { ...(await renderSidePngs(task.card, task.resolution)), text: cardTextLines(task.card) };
  }
  if (task.output === "fit") return templateOverflow(task.template, task.sender);
  if (task.output === "side-png") return renderSidePng(task.card, task.side, task.resolution);
  if (task.output === "side-preview") return renderSidePreview(task.card, task.side);
  return task.output === "proof-pdf" ? renderProofPdf(task.card) : renderProofPng(task.card);
}
