import type { Queryable } from "../db/database.ts";
import { notFound } from "../errors.ts";
import type { HomeImagery } from "../imagery/home-imagery.ts";
import type { CardContent } from "../render/card-layout.ts";
import type { CardSide } from "../render/render.ts";
import type { Renderer } from "../render/renderer.ts";
import { loadPieceById, type PieceRecord } from "./piece-record.ts";
import { cardOfPiece } from "./render-piece.ts";

export interface ProofDeps {
  db: Queryable;
  imagery: HomeImagery;
  renderer: Renderer;
  publicBaseUrl: string;
}

/**
 * Width of a list's thumbnail of a card side, in pixels. Mail shows it at most 72 CSS px wide, so 160
 * is sharp on a 2x screen; drawn with every printed card, it costs ~5.5 ms of CPU against ~9 at 320,
 * in half the bytes (~23 KB for the placeholder scene).
 */
export const THUMBNAIL_WIDTH = 160;

export type ProofSize = "full" | "thumbnail";

/** How a card is drawn for a human to look at: with its address block, the placeholder when imagery fails. */
export const proofOptions = (deps: ProofDeps) => ({
  db: deps.db,
  imagery: deps.imagery,
  publicBaseUrl: deps.publicBaseUrl,
  printAddressBlock: true,
  placeholderOnImageryError: true,
});

/** The piece, or a 404 when there is none. */
export async function pieceToDraw(deps: ProofDeps, pieceId: string): Promise<PieceRecord> {
  const piece = await loadPieceById(deps.db, pieceId);
  if (!piece) throw notFound("piece not found");
  return piece;
}

/** The card of a piece as it would print, for a human to look at; imagery errors show the placeholder. */
export async function proofCard(deps: ProofDeps, pieceId: string): Promise<CardContent> {
  return cardOfPiece(await pieceToDraw(deps, pieceId), proofOptions(deps));
}

/** The two-page PDF or the PNG sheet of both sides (the operator's proof). */
export async function renderProof(deps: ProofDeps, pieceId: string, format: "pdf" | "png"): Promise<Buffer> {
  return deps.renderer.proof(await proofCard(deps, pieceId), format);
}

/** One side of a composed card as a person looks at it: a list's PNG thumbnail, or the page's SVG preview. */
export function drawCardSide(
  renderer: Renderer,
  card: CardContent,
  side: CardSide,
  size: ProofSize,
): Promise<Buffer> {
  return size === "thumbnail"
    ? renderer.side(card, side, { width: THUMBNAIL_WIDTH })
    : renderer.preview(card, side);
}
