import { readableOn } from "../domain/colour-contrast.ts";
import { type CardGeometry, type CardSize, cardGeometry, POINTS_PER_INCH } from "./card-size.ts";
import type { Drawing, DrawOp } from "./drawing.ts";
import { placeholderSignOps } from "./placeholder-sign.ts";
import { encodeQr, qrBoxOps } from "./qr.ts";
import { fitText, layoutText, textWidth, type WrappedText, wrapText } from "./text.ts";

/** The organization's logo as a card prints it: PNG, shrunk for print once per logo version. */
export interface CardLogo {
  png: Uint8Array;
  width: number;
  height: number;
}

/** Everything printed on one card, merge fields already applied. */
export interface CardContent {
  size: CardSize;
  headline: string;
  /** The recipient as the front greets them ("Neighbor" when the record has no name). */
  greetingName: string;
  message: string;
  /** The sender block: the business's name (its profile's), else the organization's. */
  senderName: string;
  /** The return address under the sender's name: street line, then "City, ST ZIP". */
  returnAddressLines?: readonly string[];
  /** The business's phone, offered beside the QR code. */
  phone?: string | null;
  /** The contractor's own offer line, merge fields applied; none prints nothing. */
  offer?: string | null;
  /** The organization's logo, beside the sender block. */
  logo?: CardLogo;
  /** The business's brand colour (#rrggbb): the card's accent; none uses the default accent. */
  accent?: string | null;
  /** The address block: recipient line, then street and city lines. */
  addressLines: string[];
  landingUrl: string;
  /** The home's picture as the imagery adapter gave it (fitted to the card when it is drawn). */
  homeImage: { bytes: Uint8Array; streetSign?: string | undefined };
  /**
   * False when the provider prints postage and the address itself (Lob): the clear zone is then
   * left empty, as the provider requires.
   */
  printAddressBlock: boolean;
  /**
   * The same texts with the record's values shortened by whole words, in order (merge-bounds.ts):
   * the first that nothing cuts prints when these would be cut. None: these print as they are.
   */
  shorterTexts?: readonly CardTexts[];
}

/** The texts a card prints that merge a record's values. */
export type CardTexts = Pick<CardContent, "headline" | "greetingName" | "message" | "offer">;

/**
 * The QR code's box, quiet zone included: fixed, so nothing else on the card moves with the
 * length of the link (a proof's link and a piece's differ); the code's modules shrink inside it.
 */
const QR_BOX_INCHES = 1.1;
export const DEFAULT_ACCENT = "#c2410c";
const INK = "#1d2433";
/** Type sizes are set for the 4×6 card's 4 in height and scale with the card. */
const BASE_TRIM_HEIGHT = 4 * POINTS_PER_INCH;

const text = (
  lines: readonly string[],
  options: { x: number; y: number; size: number; fill: string; bold?: boolean; lineHeight?: number },
): DrawOp => ({
  op: "text",
  lines,
  x: options.x,
  y: options.y,
  size: options.size,
  bold: options.bold ?? false,
  fill: options.fill,
  lineHeight: options.lineHeight ?? options.size * 1.25,
});

/** A template field a card printed cut short: its characters and how many of them printed. */
export interface FieldOverflow {
  field: "headline" | "message" | "offer";
  characters: number;
  printed: number;
}

/** A side as drawn, and the template fields that did not fit it. */
export interface SideLayout {
  drawing: Drawing;
  overflow: FieldOverflow[];
}

const overflowOf = (field: FieldOverflow["field"], text: WrappedText): FieldOverflow[] =>
  text.printed < text.characters ? [{ field, characters: text.characters, printed: text.printed }] : [];

const accentOf = (card: CardContent) => card.accent ?? DEFAULT_ACCENT;

/** The card's front as it prints, with the texts it prints (cardAsPrinted). */
export function frontLayout(card: CardContent, fittedJpeg: Uint8Array): SideLayout {
  const laid = printedLayouts(card)?.front;
  if (!laid) return layFront(card, fittedJpeg);
  const ops = laid.drawing.ops.map((op) =>
    op.op === "image" && op.bytes === NO_PICTURE ? { ...op, bytes: fittedJpeg } : op,
  );
  return { ...laid, drawing: { ...laid.drawing, ops } };
}

/** The card's back as it prints, with the texts it prints (cardAsPrinted). */
export const backLayout = (card: CardContent): SideLayout => printedLayouts(card)?.back ?? layBack(card);

interface PrintedCard {
  card: CardContent;
  /** Its sides as laid out choosing it, the front without its picture. */
  front: SideLayout;
  back: SideLayout;
}

const printedCards = new WeakMap<CardContent, PrintedCard>();
const NO_PICTURE = new Uint8Array();

/**
 * The card with the first of its texts that neither side cuts: its own, else each shorter one in
 * turn, else the last (every record field at its fallback, which the fit rule measured). Chosen
 * once per card, so both sides, the proof and the print file print the same words; the layouts
 * that chose it are kept, so a card is laid out once when its own texts fit. Undefined: the card
 * has nothing to shorten and prints as it is.
 */
function printedLayouts(card: CardContent): PrintedCard | undefined {
  if (!card.shorterTexts?.length) return undefined;
  let printed = printedCards.get(card);
  if (!printed) {
    for (const candidate of [card, ...card.shorterTexts.map((texts) => ({ ...card, ...texts }))]) {
      printed = { card: candidate, front: layFront(candidate, NO_PICTURE), back: layBack(candidate) };
      if (printed.front.overflow.length === 0 && printed.back.overflow.length === 0) break;
    }
    printedCards.set(card, printed as PrintedCard);
  }
  return printed;
}

/** The card with the texts it prints (see printedLayouts). */
export const cardAsPrinted = (card: CardContent): CardContent => printedLayouts(card)?.card ?? card;

/** What its own texts would cut on either side, never shortened: the fit rule's measure. */
export const overflowAsWritten = (card: CardContent): FieldOverflow[] => [
  ...layFront(card, NO_PICTURE).overflow,
  ...layBack(card).overflow,
];

/**
 * Front: the home's picture to the bleed, the business (logo, name, phone) top left, a band with
 * the greeting and the headline.
 */
function layFront(card: CardContent, fittedJpeg: Uint8Array): SideLayout {
  const geometry = cardGeometry(card.size);
  const { width, height, safe } = geometry;
  const scale = geometry.trim.height / BASE_TRIM_HEIGHT;
  const headline = fitText(card.headline, {
    bold: true,
    maxSize: Math.round(22 * scale),
    minSize: Math.round(14 * scale),
    maxWidth: safe.width,
    maxLines: 2,
  });
  const greetingSize = Math.round(11 * scale);
  const headlineLineHeight = headline.size * 1.15;
  const bandPadding = 10 * scale;
  const bandHeight =
    bandPadding * 2 +
    greetingSize * 1.6 +
    headlineLineHeight * headline.lines.length +
    (height - safe.y - safe.height);
  const bandTop = height - bandHeight;
  const greetingY = bandTop + bandPadding + greetingSize;
  const headlineY = greetingY + greetingSize * 0.6 + headline.size;
  const greeting = wrapText(
    `Prepared for ${card.greetingName}`,
    { size: greetingSize, bold: false },
    safe.width,
    1,
  );
  const sign = card.homeImage.streetSign;
  return {
    drawing: {
      width,
      height,
      ops: [
        { op: "rect", x: 0, y: 0, width, height, fill: "#dfe6ee" },
        { op: "image", x: 0, y: 0, width, height, bytes: fittedJpeg, format: "jpeg" },
        ...(sign === undefined ? [] : placeholderSignOps(sign, width, height)),
        ...senderBadge(card, { x: safe.x, y: safe.y, maxWidth: safe.width * 0.5 }, scale),
        { op: "rect", x: 0, y: bandTop, width, height: bandHeight, fill: "#10151f", opacity: 0.72 },
        { op: "rect", x: 0, y: bandTop, width, height: 3 * scale, fill: accentOf(card) },
        text(greeting, { x: safe.x, y: greetingY, size: greetingSize, fill: "#f4d7a1" }),
        text(headline.lines, {
          x: safe.x,
          y: headlineY,
          size: headline.size,
          bold: true,
          fill: "#ffffff",
          lineHeight: headlineLineHeight,
        }),
      ],
    },
    overflow: overflowOf("headline", headline),
  };
}

export const frontDrawing = (card: CardContent, fittedJpeg: Uint8Array): Drawing =>
  frontLayout(card, fittedJpeg).drawing;

/**
 * The phone on one line, never split: "or call 555 0100" when it fits, else "or call" above the
 * number, which shrinks (to 70 %) before it would be cut.
 */
function phoneLines(phone: string, size: number, maxWidth: number): { lines: string[]; size: number } {
  const number = phone.trim().replace(/ /g, "\u00a0");
  const oneLine = `or call ${number}`;
  if (textWidth(oneLine, size, true) <= maxWidth) return { lines: [oneLine], size };
  const fitted = fitText(number, {
    bold: true,
    maxSize: size,
    minSize: Math.max(5, Math.floor(size * 0.7)),
    maxWidth,
    maxLines: 1,
  });
  return { lines: ["or call", ...fitted.lines], size: fitted.size };
}

/**
 * The business on the card's front: a white plate at the top left with the logo, the name and
 * the phone, at most `maxWidth` wide. Who mailed the card is the first thing a homeowner looks for.
 */
function senderBadge(
  card: CardContent,
  area: { x: number; y: number; maxWidth: number },
  scale: number,
): DrawOp[] {
  const padding = 7 * scale;
  const gap = 7 * scale;
  const inner = area.maxWidth - 2 * padding;
  let logoWidth = 0;
  let logoHeight = 0;
  if (card.logo) {
    const fit = Math.min(
      (0.42 * POINTS_PER_INCH * scale) / card.logo.height,
      (inner * 0.38) / card.logo.width,
    );
    logoWidth = card.logo.width * fit;
    logoHeight = card.logo.height * fit;
  }
  const textRoom = inner - (logoWidth > 0 ? logoWidth + gap : 0);
  const name = fitText(card.senderName, {
    bold: true,
    maxSize: Math.round(12 * scale),
    minSize: Math.round(9 * scale),
    maxWidth: textRoom,
    maxLines: 2,
  });
  const phoneSize = Math.round(10 * scale);
  const phone = card.phone?.trim()
    ? fitText(card.phone.trim().replace(/ /g, "\u00a0"), {
        bold: false,
        maxSize: phoneSize,
        minSize: Math.max(5, Math.floor(phoneSize * 0.7)),
        maxWidth: textRoom,
        maxLines: 1,
      })
    : undefined;
  const nameLineHeight = name.size * 1.2;
  const textHeight = name.size + (name.lines.length - 1) * nameLineHeight + (phone ? phone.size * 1.5 : 0);
  const textWidthUsed = Math.max(
    ...name.lines.map((line) => textWidth(line, name.size, true)),
    ...(phone ? phone.lines.map((line) => textWidth(line, phone.size, false)) : [0]),
  );
  const contentHeight = Math.max(logoHeight, textHeight + name.size * 0.25);
  const plateWidth = 2 * padding + (logoWidth > 0 ? logoWidth + gap : 0) + textWidthUsed;
  const plateHeight = 2 * padding + contentHeight;
  const textX = area.x + padding + (logoWidth > 0 ? logoWidth + gap : 0);
  const textTop = area.y + padding + (contentHeight - textHeight) / 2;
  const ops: DrawOp[] = [
    {
      op: "frame",
      x: area.x,
      y: area.y,
      width: plateWidth,
      height: plateHeight,
      radius: 5 * scale,
      fill: "#ffffff",
      stroke: "#ffffff",
      lineWidth: 0.5,
    },
    {
      op: "rect",
      x: area.x,
      y: area.y + 5 * scale,
      width: 2.5 * scale,
      height: plateHeight - 10 * scale,
      fill: accentOf(card),
    },
  ];
  if (card.logo) {
    ops.push({
      op: "image",
      x: area.x + padding,
      y: area.y + padding + (contentHeight - logoHeight) / 2,
      width: logoWidth,
      height: logoHeight,
      bytes: card.logo.png,
      format: "png",
    });
  }
  ops.push(
    text(name.lines, {
      x: textX,
      y: textTop + name.size,
      size: name.size,
      bold: true,
      fill: INK,
      lineHeight: nameLineHeight,
    }),
  );
  if (phone) {
    ops.push(
      text(phone.lines, {
        x: textX,
        y: textTop + name.size + (name.lines.length - 1) * nameLineHeight + phone.size * 1.5,
        size: phone.size,
        fill: readableOn(accentOf(card), "#ffffff"),
        bold: true,
      }),
    );
  }
  return ops;
}

/**
 * Back: the return address block (logo, business name, return address) top left, the message,
 * the offer line and the QR code below it, all in the left column; postage and the address in the
 * clear zone, which nothing else enters.
 */
function layBack(card: CardContent): SideLayout {
  const geometry = cardGeometry(card.size);
  const { width, height, safe, clearZone } = geometry;
  const scale = geometry.trim.height / BASE_TRIM_HEIGHT;
  const accent = accentOf(card);
  const columnRight = clearZone.x - 14;
  const columnWidth = columnRight - safe.x;
  const qrBox = QR_BOX_INCHES * POINTS_PER_INCH;
  // The code's own edge (inside its quiet zone) lines up with the safe area's left and bottom.
  const qrBoxX = safe.x - qrBox * 0.08;
  const qrBoxY = safe.y + safe.height - qrBox * 0.92;

  const header = returnAddressBlock(card, { x: safe.x, y: safe.y, width: columnWidth }, scale);

  const offerSize = Math.round(11 * scale * 10) / 10;
  const offer = card.offer?.trim()
    ? layoutText(card.offer, { size: offerSize, bold: true }, columnWidth, 2)
    : undefined;
  const offerLines = offer?.lines ?? [];
  const offerTop = qrBoxY - 2 - offerLines.length * offerSize * 1.25;

  const messageTop = header.bottom + 12 * scale;
  const messageRoom = offerTop - (offerLines.length > 0 ? 4 : 2) - messageTop;
  const messageSize = Math.round(10.5 * scale * 10) / 10;
  const messageLines = Math.max(1, Math.floor(messageRoom / (messageSize * 1.3)));
  const message = layoutText(card.message, { size: messageSize, bold: false }, columnWidth, messageLines);

  const callToActionX = qrBoxX + qrBox + 4;
  const callToActionWidth = columnRight - callToActionX;
  const callToAction = wrapText(
    "Scan with your phone camera to see your home's page",
    { size: 7.5, bold: false },
    callToActionWidth,
    4,
  );
  const call = card.phone?.trim() ? phoneLines(card.phone, 8, callToActionWidth) : undefined;
  const callHeight = call ? call.lines.length * call.size * 1.25 + 3 : 0;
  const callToActionY = qrBoxY + qrBox / 2 - (callToAction.length * 7.5 * 1.25 + callHeight) / 2 + 7.5;

  return {
    drawing: {
      width,
      height,
      ops: [
        { op: "rect", x: 0, y: 0, width, height, fill: "#ffffff" },
        { op: "rect", x: 0, y: 0, width, height: geometry.trim.y + 6 * scale, fill: accent },
        ...header.ops,
        text(message.lines, {
          x: safe.x,
          y: messageTop + messageSize,
          size: messageSize,
          fill: INK,
          lineHeight: messageSize * 1.3,
        }),
        ...(offerLines.length > 0
          ? [
              text(offerLines, {
                x: safe.x,
                y: offerTop + offerSize,
                size: offerSize,
                bold: true,
                fill: readableOn(accent, "#ffffff"),
                lineHeight: offerSize * 1.25,
              }),
            ]
          : []),
        ...qrBoxOps(encodeQr(card.landingUrl), { x: qrBoxX, y: qrBoxY, size: qrBox }),
        text(callToAction, { x: callToActionX, y: callToActionY, size: 7.5, fill: "#4a5568" }),
        ...(call
          ? [
              text(call.lines, {
                x: callToActionX,
                y: callToActionY + callToAction.length * 7.5 * 1.25 + 3,
                size: call.size,
                bold: true,
                fill: INK,
                lineHeight: call.size * 1.25,
              }),
            ]
          : []),
        {
          op: "line",
          x1: columnRight + 7,
          y1: safe.y + 6,
          x2: columnRight + 7,
          y2: safe.y + safe.height,
          stroke: "#c8cfd8",
          lineWidth: 0.75,
        },
        ...(card.printAddressBlock ? addressBlockOps(card, clearZone) : []),
      ],
    },
    overflow: [...overflowOf("message", message), ...(offer ? overflowOf("offer", offer) : [])],
  };
}

export const backDrawing = (card: CardContent): Drawing => backLayout(card).drawing;

/** Logo at most this tall and this share of the column wide, at the 4×6 card's scale. */
const LOGO_MAX_HEIGHT = 0.55 * POINTS_PER_INCH;
const LOGO_MAX_COLUMN_SHARE = 0.42;

/**
 * The return address block: the logo (when there is one) left of the business's name and its
 * return address, the name bold. Its bottom is where the message may start.
 */
function returnAddressBlock(
  card: CardContent,
  area: { x: number; y: number; width: number },
  scale: number,
): { ops: DrawOp[]; bottom: number } {
  const ops: DrawOp[] = [];
  let textX = area.x;
  let logoBottom = area.y;
  if (card.logo) {
    const fit = Math.min(
      (LOGO_MAX_HEIGHT * scale) / card.logo.height,
      (area.width * LOGO_MAX_COLUMN_SHARE) / card.logo.width,
    );
    const logoWidth = card.logo.width * fit;
    const logoHeight = card.logo.height * fit;
    ops.push({
      op: "image",
      x: area.x,
      y: area.y,
      width: logoWidth,
      height: logoHeight,
      bytes: card.logo.png,
      format: "png",
    });
    textX = area.x + logoWidth + 8 * scale;
    logoBottom = area.y + logoHeight;
  }
  const textWidth = area.x + area.width - textX;
  // A long name beside a logo takes up to three lines and shrinks (to three quarters) before it is cut.
  const { size: nameSize, lines: name } = fitText(card.senderName, {
    bold: true,
    maxSize: Math.round(12 * scale),
    minSize: Math.round(9 * scale),
    maxWidth: textWidth,
    maxLines: 3,
  });
  const nameBottom = area.y + nameSize + (name.length - 1) * nameSize * 1.2;
  ops.push(text(name, { x: textX, y: area.y + nameSize, size: nameSize, bold: true, fill: INK }));
  const addressSize = Math.round(8.5 * scale * 10) / 10;
  // The address runs under the logo and name, the column's full width: beside a logo a 4×6
  // card's column cuts "Springfield, IL 62702" short.
  const address = (card.returnAddressLines ?? []).flatMap((line) =>
    wrapText(line, { size: addressSize, bold: false }, area.width, 1),
  );
  const rowBottom = Math.max(logoBottom, nameBottom);
  let bottom = rowBottom;
  if (address.length > 0) {
    const firstBaseline = rowBottom + addressSize * 1.45;
    ops.push(
      text(address, {
        x: area.x,
        y: firstBaseline,
        size: addressSize,
        fill: "#4a5568",
        lineHeight: addressSize * 1.25,
      }),
    );
    bottom = firstBaseline + (address.length - 1) * addressSize * 1.25 + addressSize * 0.3;
  }
  return { ops, bottom };
}

/** Postage box top right, the address block in the lower half of the clear zone. */
function addressBlockOps(card: CardContent, zone: CardGeometry["clearZone"]): DrawOp[] {
  const stampWidth = 0.85 * POINTS_PER_INCH;
  const stampHeight = 0.95 * POINTS_PER_INCH;
  const stampX = zone.x + zone.width - stampWidth - 6;
  const stampY = zone.y + 6;
  const size = 10;
  const lines = card.addressLines.flatMap((line) =>
    wrapText(line, { size, bold: false }, zone.width - 24, 2),
  );
  const blockTop = zone.y + zone.height * 0.52;
  return [
    {
      op: "frame",
      x: stampX,
      y: stampY,
      width: stampWidth,
      height: stampHeight,
      stroke: "#9aa5b1",
      lineWidth: 0.75,
      dash: [3, 2],
    },
    {
      op: "text",
      lines: ["FIRST-CLASS", "POSTAGE"],
      x: stampX + stampWidth / 2,
      y: stampY + stampHeight / 2 - 2,
      size: 6.5,
      bold: false,
      fill: "#9aa5b1",
      lineHeight: 9,
      center: true,
    },
    text(lines, { x: zone.x + 12, y: blockTop + size, size, fill: "#000000", lineHeight: size * 1.3 }),
  ];
}
