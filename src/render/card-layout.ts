import { placeholderSignOps } from "../imagery/placeholder.ts";
import { type CardGeometry, type CardSize, cardGeometry, POINTS_PER_INCH } from "./card-size.ts";
import type { Drawing, DrawOp } from "./drawing.ts";
import { encodeQr, qrOps, qrQuietZone } from "./qr.ts";
import { fitText, wrapText } from "./text.ts";

/** Everything printed on one card, merge fields already applied. */
export interface CardContent {
  size: CardSize;
  headline: string;
  /** The recipient as the front greets them ("Neighbor" when the record has no name). */
  greetingName: string;
  message: string;
  /** The sender block: the organization's name. */
  senderName: string;
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
      { op: "image", x: 0, y: 0, width, height, jpeg: fittedJpeg },
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

/** Back: sender block, message and QR code on the left; postage and address in the clear zone. */
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

  const senderSize = Math.round(12 * scale);
  const sender = wrapText(card.senderName, { size: senderSize, bold: true }, columnWidth, 2);
  const senderBottom = safe.y + senderSize + (sender.length - 1) * senderSize * 1.2;

  const messageTop = senderBottom + 16 * scale;
  const messageRoom = qrY - qrQuiet - 8 - messageTop;
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

  return {
    width,
    height,
    ops: [
      { op: "rect", x: 0, y: 0, width, height, fill: "#ffffff" },
      { op: "rect", x: 0, y: 0, width, height: geometry.trim.y + 6 * scale, fill: ACCENT },
      text(sender, { x: safe.x, y: safe.y + senderSize, size: senderSize, bold: true, fill: INK }),
      text(message, {
        x: safe.x,
        y: messageTop + messageSize,
        size: messageSize,
        fill: INK,
        lineHeight: messageSize * 1.3,
      }),
      ...qrOps(qr, qrX, qrY, qrSize),
      text(callToAction, { x: callToActionX, y: qrY + qrSize / 2 - 8, size: 7.5, fill: "#4a5568" }),
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
