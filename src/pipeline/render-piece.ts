import type { HomeImagery } from "../imagery/home-imagery.ts";
import { createPlaceholderImagery } from "../imagery/placeholder.ts";
import { composeCard } from "../render/compose.ts";
import { fitHomeImage, type RenderedSides, renderSides } from "../render/render.ts";
import { landingUrl } from "../services/campaigns.ts";
import { locationOf, type PieceRecord, recipientOf } from "./piece-record.ts";

export interface RenderPieceOptions {
  imagery: HomeImagery;
  publicBaseUrl: string;
  printAddressBlock: boolean;
  /** When the imagery provider fails: draw the placeholder (true) or let the error through. */
  placeholderOnImageryError: boolean;
  signal?: AbortSignal;
}

/** The piece's two sides as SVG: its home's image, its template, its landing URL's QR code. */
export async function renderPiece(piece: PieceRecord, options: RenderPieceOptions): Promise<RenderedSides> {
  const location = locationOf(piece);
  let image: Buffer;
  try {
    image = (await options.imagery.fetchImage(location, options.signal)).bytes;
  } catch (error) {
    if (!options.placeholderOnImageryError) throw error;
    image = (await createPlaceholderImagery().fetchImage(location)).bytes;
  }
  const card = composeCard({
    recipient: recipientOf(piece),
    orgName: piece.orgName,
    template: piece.template,
    landingUrl: landingUrl(options.publicBaseUrl, piece.token),
    homeImage: await fitHomeImage(image, piece.template.size),
    printAddressBlock: options.printAddressBlock,
  });
  return renderSides(card);
}
