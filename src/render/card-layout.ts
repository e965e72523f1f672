import { type CardGeometry, type CardSize, cardGeometry, POINTS_PER_INCH } from "./card-size.ts";
import type { Drawing, DrawOp } from "./drawing.ts";
import { placeholderSignOps } from "./placeholder-sign.ts";
import { encodeQr, qrOps, qrQuietZone } from "./qr.ts";
import { fitText, wrapText } from "./text.ts";

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
}

const QR_INCHES = 0.9;
const ACCENT = "#e4572e";
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

/** Front: the home's picture to the bleed, a band with the greeting and the headline. */
export function frontDrawing(card: CardContent, fittedJpeg: Uint8Array): Drawing {
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
    width,
    height,
    ops: [
      { op: "rect", x: 0, y: 0, width, height, fill: "#dfe6ee" },
      { op: "image", x: 0, y: 0, width, height, bytes: fittedJpeg, format: "jpeg" },
      ...(sign === undefined ? [] : placeholderSignOps(sign, width, height)),
      { op: "rect", x: 0, y: bandTop, width, height: bandHeight, fill: "#10151f", opacity: 0.72 },
      { op: "rect", x: 0, y: bandTop, width, height: 3 * scale, fill: ACCENT },
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
  };
}

/**
 * Back: the return address block (logo, business name, return address) top left, the message,
 * the offer line and the QR code below it, all in the left column; postage and the address in the
 * clear zone, which nothing else enters.
 */
export function backDrawing(card: CardContent): Drawing {
  const geometry = cardGeometry(card.size);
  const { width, height, safe, clearZone } = geometry;
  const scale = geometry.trim.height / BASE_TRIM_HEIGHT;
  const columnRight = clearZone.x - 14;
  const columnWidth = columnRight - safe.x;
  const qr = encodeQr(card.landingUrl);
  const qrSize = QR_INCHES * POINTS_PER_INCH;
  const qrQuiet = qrQuietZone(qr, qrSize);
  const qrY = safe.y + safe.height - qrSize - qrQuiet / 2;
  const qrX = safe.x + qrQuiet / 2;

  const header = returnAddressBlock(card, { x: safe.x, y: safe.y, width: columnWidth }, scale);

  const offerSize = Math.round(11 * scale * 10) / 10;
  const offer = card.offer?.trim()
    ? wrapText(card.offer, { size: offerSize, bold: true }, columnWidth, 2)
    : [];
  const offerTop = qrY - qrQuiet - 6 - offer.length * offerSize * 1.25;

  const messageTop = header.bottom + 12 * scale;
  const messageRoom = offerTop - (offer.length > 0 ? 4 : 2) - messageTop;
  const messageSize = Math.round(10.5 * scale * 10) / 10;
  const messageLines = Math.max(1, Math.floor(messageRoom / (messageSize * 1.3)));
  const message = wrapText(card.message, { size: messageSize, bold: false }, columnWidth, messageLines);

  const callToActionX = qrX + qrSize + qrQuiet + 4;
  const callToAction = wrapText(
    "Scan with your phone camera to see your home's page",
    { size: 7.5, bold: false },
    columnRight - callToActionX,
    4,
  );
  const call = card.phone?.trim()
    ? wrapText(`or call ${card.phone.trim()}`, { size: 8, bold: true }, columnRight - callToActionX, 2)
    : [];
  const callToActionY = qrY + qrSize / 2 - 8 - call.length * 6;

  return {
    width,
    height,
    ops: [
      { op: "rect", x: 0, y: 0, width, height, fill: "#ffffff" },
      { op: "rect", x: 0, y: 0, width, height: geometry.trim.y + 6 * scale, fill: ACCENT },
      ...header.ops,
      text(message, {
        x: safe.x,
        y: messageTop + messageSize,
        size: messageSize,
        fill: INK,
        lineHeight: messageSize * 1.3,
      }),
      ...(offer.length > 0
        ? [
            text(offer, {
              x: safe.x,
              y: offerTop + offerSize,
              size: offerSize,
              bold: true,
              fill: ACCENT,
              lineHeight: offerSize * 1.25,
            }),
          ]
        : []),
      ...qrOps(qr, qrX, qrY, qrSize),
      text(callToAction, { x: callToActionX, y: callToActionY, size: 7.5, fill: "#4a5568" }),
      ...(call.length > 0
        ? [
            text(call, {
              x: callToActionX,
              y: callToActionY + callToAction.length * 7.5 * 1.25 + 3,
              size: 8,
              bold: true,
              fill: INK,
              lineHeight: 10,
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
  };
}

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
