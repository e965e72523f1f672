import type { Queryable } from "../db/database.ts";
import type { HomeImage, HomeImagery } from "../imagery/home-imagery.ts";
import { createPlaceholderImagery } from "../imagery/placeholder.ts";
import { loadCardSender } from "../orgs/card-sender.ts";
import type { CardContent } from "../render/card-layout.ts";
import { composeCard } from "../render/compose.ts";
import { landingUrl } from "./campaigns.ts";
import { locationOf, type PieceRecord, recipientOf } from "./piece-record.ts";

export interface CardOfPieceOptions {
  /** Where the organization's profile (name, phone, return address, logo, offer) is read from. */
  db: Queryable;
  imagery: HomeImagery;
  publicBaseUrl: string;
  printAddressBlock: boolean;
  /** When the imagery provider fails: draw the placeholder (true) or let the error through. */
  placeholderOnImageryError: boolean;
  signal?: AbortSignal;
}

/**
 * What the piece's card prints: its home's picture (fetched here; fitting and drawing happen in
 * the renderer), its template with merge fields applied, its organization's profile, its landing URL.
 */
export async function cardOfPiece(piece: PieceRecord, options: CardOfPieceOptions): Promise<CardContent> {
  const location = locationOf(piece);
  let image: HomeImage;
  try {
    image = await options.imagery.fetchImage(location, options.signal);
  } catch (error) {
    if (!options.placeholderOnImageryError) throw error;
    image = await createPlaceholderImagery().fetchImage(location);
  }
  const sender = await loadCardSender(options.db, piece.orgId);
  return composeCard({
    recipient: recipientOf(piece),
    orgName: piece.orgName,
    sender,
    template: piece.template,
    landingUrl: landingUrl(options.publicBaseUrl, piece.token),
    homeImage: { bytes: image.bytes, streetSign: image.streetSign },
    printAddressBlock: options.printAddressBlock,
  });
}
