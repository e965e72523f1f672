import { setPriority } from "node:os";
import type { CardContent } from "./card-layout.ts";
import {
  type CardSide,
  renderPrintFiles,
  renderProofPdf,
  renderProofPng,
  renderSidePng,
  renderSidePngs,
  type SidePngs,
  type SideResolution,
} from "./render.ts";
import { textPath } from "./text.ts";

/** Reads and parses both faces and shapes a word in each: most of a new thread's first card (~0.8 s). */
function warmFonts(): void {
  for (const bold of [false, true]) textPath("Porchlight", { x: 0, y: 0, size: 12, bold });
}

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

export type RenderTask =
  | { output: "print"; card: CardContent }
  | { output: "proof-pdf" | "proof-png"; card: CardContent }
  | { output: "sides-png"; card: CardContent; resolution: SideResolution }
  | { output: "side-png"; card: CardContent; side: CardSide; resolution: SideResolution }
  | { output: "warm" };

export type RenderResult = { frontPdf: Uint8Array; backPdf: Uint8Array } | SidePngs | Uint8Array;

export default async function render(task: RenderTask): Promise<RenderResult> {
  if (task.output === "warm") {
    warmFonts();
    return new Uint8Array(0);
  }
  if (task.output === "print") return renderPrintFiles(task.card);
  if (task.output === "sides-png") return renderSidePngs(task.card, task.resolution);
  if (task.output === "side-png") return renderSidePng(task.card, task.side, task.resolution);
  return task.output === "proof-pdf" ? renderProofPdf(task.card) : renderProofPng(task.card);
}
