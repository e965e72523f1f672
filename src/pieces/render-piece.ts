import type { Queryable } from "../db/database.ts";
import type { HomeImage, HomeImagery } from "../imagery/home-imagery.ts";
import { createPlaceholderImagery } from "../imagery/placeholder.ts";
import { loadCardSender } from "../orgs/card-sender.ts";
import type { CardContent } from "../render/card-layout.ts";
import { type CardSender, composeCard } from "../render/compose.ts";
import { landingUrl } from "./campaigns.ts";
import { loadPieceById, locationOf, type PieceRecord, recipientOf } from "./piece-record.ts";

/** Where a piece's card links to and whether it prints the address block (the print provider's choice). */
export interface PieceCardOptions {
  publicBaseUrl: string;
  printAddressBlock: boolean;
}

export interface HomeImageOptions {
  imagery: HomeImagery;
  /** When the imagery provider fails: draw the placeholder (true) or let the error through. */
  placeholderOnImageryError: boolean;
  signal?: AbortSignal;
}

export interface CardOfPieceOptions extends PieceCardOptions, HomeImageOptions {
  /** Where the organization's profile (name, phone, return address, logo, offer) is read from. */
  db: Queryable;
}

/**
 * The picture of the piece's home from the imagery provider; when the provider fails and that is
 * allowed, the placeholder instead (`fellBack`: a picture that stands in for the real one).
 */
export async function homeImageOf(
  piece: PieceRecord,
  options: HomeImageOptions,
): Promise<{ image: HomeImage; fellBack: boolean }> {
  const location = locationOf(piece);
  try {
    return { image: await options.imagery.fetchImage(location, options.signal), fellBack: false };
  } catch (error) {
    if (!options.placeholderOnImageryError) throw error;
    return { image: await createPlaceholderImagery().fetchImage(location), fellBack: true };
  }
}

/**
 * The sender as a piece's card uses it: the piece's template carries its offer line, decided in SQL
 * (card-template-sql.ts: the approved one, or the profile's of now), so the profile's offer is not
 * laid over it again (an offer edited after an approval must not print on the approved card).
 */
const senderOfPiece = (sender: CardSender): CardSender => ({ ...sender, offer: null });

/**
 * The piece's card drawn with `picture` (a fetched HomeImage, or bytes alone): its template with
 * merge fields applied, its sender, its landing URL. Only the picture's bytes and sign are drawn.
 */
export function composePieceCard(
  piece: PieceRecord,
  sender: CardSender,
  picture: CardContent["homeImage"],
  options: PieceCardOptions,
): CardContent {
  return composeCard({
    recipient: recipientOf(piece),
    orgName: piece.orgName,
    sender: senderOfPiece(sender),
    template: piece.template,
    landingUrl: landingUrl(options.publicBaseUrl, piece.token),
    homeImage: { bytes: picture.bytes, streetSign: picture.streetSign },
    printAddressBlock: options.printAddressBlock,
  });
}

/**
 * What the piece's card prints: its home's picture (fetched here; fitting and drawing happen in
 * the renderer), its template with merge fields applied, its organization's profile, its landing URL.
 */
export async function cardOfPiece(piece: PieceRecord, options: CardOfPieceOptions): Promise<CardContent> {
  return (await composeCardOfPiece(piece, options)).card;
}

/** cardOfPiece, with the profile it was drawn with and whether its picture is the placeholder standing in. */
export async function composeCardOfPiece(
  piece: PieceRecord,
  options: CardOfPieceOptions,
): Promise<{ card: CardContent; sender: CardSender; fellBack: boolean }> {
  const { image, fellBack } = await homeImageOf(piece, options);
  const sender = await loadCardSender(options.db, piece.orgId);
  return { card: composePieceCard(piece, sender, image, options), sender, fellBack };
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
    sender: senderOfPiece(await loadCardSender(db, piece.orgId)),
    template: piece.template,
    landingUrl: "",
    homeImage: { bytes: new Uint8Array() },
    printAddressBlock: false,
  });
  return { headline: card.headline, offer: card.offer ?? null };
}
