import type { Queryable } from "../db/database.ts";
import type { HomeImage, HomeImagery } from "../imagery/home-imagery.ts";
import { createPlaceholderImagery } from "../imagery/placeholder.ts";
import { loadCardSender } from "../orgs/card-sender.ts";
import type { CardContent } from "../render/card-layout.ts";
import { composeCard } from "../render/compose.ts";
import { landingUrl } from "./campaigns.ts";
import { loadPieceById, locationOf, type PieceRecord, recipientOf } from "./piece-record.ts";

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

/**
 * The card's headline and offer as its landing page shows them: merged like the card, but with
 * only what the page may show anyone holding its link (the first name, the street line; never
 * the full name, the town or the record's own fields, which take their fallbacks).
 */
export async function pageWordsOfPiece(
  db: Queryable,
  pieceId: string,
): Promise<{ headline: string; offer: string | null } | undefined> {
  const piece = await loadPieceById(db, pieceId);
  if (!piece) return undefined;
  const recipient = recipientOf(piece);
  const firstName = recipient.recipientName?.trim().split(/\s+/)[0] ?? null;
  const card = composeCard({
    recipient: {
      ...recipient,
      recipientName: firstName,
      city: null,
      state: null,
      zip: null,
      properties: recipient.properties.job_street ? { job_street: recipient.properties.job_street } : {},
    },
    orgName: piece.orgName,
    sender: await loadCardSender(db, piece.orgId),
    template: piece.template,
    landingUrl: "",
    homeImage: { bytes: new Uint8Array() },
    printAddressBlock: false,
  });
  return { headline: card.headline, offer: card.offer ?? null };
}
