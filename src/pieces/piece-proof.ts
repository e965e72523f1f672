import type { Queryable } from "../db/database.ts";
import { notFound } from "../errors.ts";
import type { HomeImagery } from "../imagery/home-imagery.ts";
import type { Renderer } from "../render/renderer.ts";
import { loadPieceById } from "./piece-record.ts";
import { cardOfPiece } from "./render-piece.ts";

/** The card of a piece as it would print, for a human to look at; imagery errors show the placeholder. */
export async function renderProof(
  deps: { db: Queryable; imagery: HomeImagery; renderer: Renderer; publicBaseUrl: string },
  pieceId: string,
  format: "pdf" | "png",
): Promise<Buffer> {
  const piece = await loadPieceById(deps.db, pieceId);
  if (!piece) throw notFound("piece not found");
  const card = await cardOfPiece(piece, {
    db: deps.db,
    imagery: deps.imagery,
    publicBaseUrl: deps.publicBaseUrl,
    printAddressBlock: true,
    placeholderOnImageryError: true,
  });
  return deps.renderer.proof(card, format);
}
