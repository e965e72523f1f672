// Whether a card's kept image still shows the card, and if not, how to draw and keep a new one: the
// steps Mail's image route and the draw-ahead sweep share, and the print's choice, for each image, to
// draw it or keep the one that shows it (piece-images.ts says what is kept).

import { createHash } from "node:crypto";
import { loadCardSender } from "../orgs/card-sender.ts";
import type { CardSender } from "../render/compose.ts";
import { cardKey } from "./card-key.ts";
import {
  type KeptImagesColumn,
  keepPieceImage,
  keptKeyOf,
  makePieceImageFinal,
  type PieceImageRef,
  PRINTED_IMAGES,
} from "./piece-images.ts";
import { drawCardSide, type ProofDeps, pieceToDraw, proofOptions } from "./piece-proof.ts";
import { locationOf, type PieceRecord } from "./piece-record.ts";
import { composePieceCard, homeImageOf } from "./render-piece.ts";

/** What is kept of one image of a card: nothing (undefined), a final image (null) or the key it was drawn from. */
export interface KeptImageState {
  printed: boolean;
  keptKey: string | null | undefined;
}

export type CardImageCheck =
  | { current: true }
  | { current: false; cardKey: string; drawAndKeep: () => Promise<Buffer> };

/**
 * What a piece's card is drawn from, without fetching its home's picture: the card composed with no
 * picture, and the imagery provider's key of the picture it would fetch. So a look at a kept image costs
 * two reads and never a call to the imagery provider (paid per picture, for Street View and Mapbox).
 * A provider's new picture of the same home shows on the next card drawn for another reason; the
 * printed card always fetches its own.
 */
function cardInputsKey(deps: ProofDeps, piece: PieceRecord, sender: CardSender): string {
  const withoutPicture = composePieceCard(piece, sender, { bytes: new Uint8Array() }, proofOptions(deps));
  return createHash("sha256")
    .update(cardKey(withoutPicture))
    .update(deps.imagery.pictureKey(locationOf(piece)))
    .digest("hex");
}

/**
 * Checks the kept image against the card as it is now. A final image is current without reading
 * the card; a kept image drawn from the same inputs is current too, and made final when the card was
 * printed since. Otherwise the answer draws the card as it is now and keeps it: final for a printed
 * card, with its inputs' key for a waiting one. A card drawn with the placeholder because the imagery
 * provider failed is served but not kept, so the next look tries the provider again. `sender`: the
 * organization's, when the caller has it already (a sweep reads it once for all its cards).
 */
export async function checkCardImage(
  deps: ProofDeps,
  image: PieceImageRef,
  state: KeptImageState,
  sender?: CardSender,
): Promise<CardImageCheck> {
  if (state.keptKey === null) return { current: true };
  const piece = await pieceToDraw(deps, image.pieceId);
  sender ??= await loadCardSender(deps.db, piece.orgId);
  const key = cardInputsKey(deps, piece, sender);
  if (state.keptKey === key) {
    if (state.printed) await makePieceImageFinal(deps.db, image, key);
    return { current: true };
  }
  return {
    current: false,
    cardKey: key,
    drawAndKeep: async () => {
      const options = proofOptions(deps);
      const { image: picture, fellBack } = await homeImageOf(piece, options);
      const card = composePieceCard(piece, sender, picture, options);
      const drawn = await drawCardSide(deps.renderer, card, image.side, image.size);
      if (!fellBack) await keepPieceImage(deps.db, image, drawn, state.printed ? null : key);
      return drawn;
    },
  };
}

/**
 * What the print step does about one of the card's images (PRINTED_IMAGES): draws it with the print
 * files (render.ts), unless one kept already shows the card printed: a final one, or one drawn while
 * the card waited from the same inputs, made final as the card is printed. None is drawn when the
 * picture is the placeholder standing in for a failed provider: a retry after a crash between
 * hand-over and receipt draws anew while the printer has the first drawing (the provider's idempotency
 * key), so the sweep or a look draws it later, as for a waiting card.
 */
export type ImageAtPrint = { image: (typeof PRINTED_IMAGES)[number] } & (
  | { draw: true }
  | { draw: false; finalKey?: string }
);

export function imagesAtPrint(
  deps: ProofDeps,
  piece: PieceRecord,
  sender: CardSender,
  pictureFellBack: boolean,
  kept: KeptImagesColumn["kept"],
): ImageAtPrint[] {
  const keptKeys = PRINTED_IMAGES.map((image) => keptKeyOf(kept, image));
  // Composed (without its picture) only when a kept image may show it.
  const inputsKey = keptKeys.some((key) => typeof key === "string")
    ? cardInputsKey(deps, piece, sender)
    : undefined;
  return PRINTED_IMAGES.map((image, index) => {
    const keptKey = keptKeys[index];
    if (keptKey === null || pictureFellBack) return { image, draw: false };
    if (keptKey !== undefined && keptKey === inputsKey) return { image, draw: false, finalKey: keptKey };
    return { image, draw: true };
  });
}
