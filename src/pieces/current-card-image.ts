// Whether a card's kept image still shows the card, and if not, how to draw and keep a new one: the
// steps Mail's image route and the draw-ahead sweep share (piece-images.ts says what is kept).

import { cardKey } from "./card-key.ts";
import { keepPieceImage, makePieceImageFinal, type PieceImageRef } from "./piece-images.ts";
import { drawCardSide, type ProofDeps, proofCard } from "./piece-proof.ts";

/** What is kept of one image of a card: nothing (undefined), a final image (null) or the key it was drawn from. */
export interface KeptImageState {
  printed: boolean;
  keptKey: string | null | undefined;
}

export type CardImageCheck =
  | { current: true }
  | { current: false; cardKey: string; drawAndKeep: () => Promise<Buffer> };

/**
 * Checks the kept image against the card as it is now. A final image is current without composing
 * the card; a kept image drawn from the card with the same key is current too, and made final when
 * the card was printed since. Otherwise the answer draws the card composed now and keeps it: final
 * for a printed card, with its key for a waiting one.
 */
export async function checkCardImage(
  deps: ProofDeps,
  image: PieceImageRef,
  state: KeptImageState,
): Promise<CardImageCheck> {
  if (state.keptKey === null) return { current: true };
  const card = await proofCard(deps, image.pieceId);
  const key = cardKey(card);
  if (state.keptKey === key) {
    if (state.printed) await makePieceImageFinal(deps.db, image, key);
    return { current: true };
  }
  return {
    current: false,
    cardKey: key,
    drawAndKeep: async () => {
      const png = await drawCardSide(deps.renderer, card, image.side, image.size);
      await keepPieceImage(deps.db, image, png, state.printed ? null : key);
      return png;
    },
  };
}
