import { type CardGeometry, type CardSize, cardGeometry, POINTS_PER_INCH } from "./card-size.ts";
import { qrCodeSvg, qrQuietZone } from "./qr.ts";
import { FONT_FAMILY, fitText, textBlock, wrapText } from "./text.ts";

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
  /** The home's image, already cropped to the artwork's aspect ratio (PNG or JPEG bytes). */
  homeImage: { mime: "image/png" | "image/jpeg"; bytes: Buffer };
  /**
   * False when the provider prints postage and the address itself (Lob): the clear zone is then
   * left empty, as the provider requires.
   */
  printAddressBlock: boolean;
}

const QR_INCHES = 0.9;
const ACCENT = "#e4572e";
const INK = "#1d2433";

/** Sized in points as unitless user units: raster renderers then map 72 units to an inch. */
function svgDocument(geometry: CardGeometry, body: string): string {
  const { width, height } = geometry;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ` +
    `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `${body}</svg>`
  );
}

/** Front: the home's image to the bleed, a band with the greeting and the headline. */
export function frontSvg(card: CardContent): string {
  const geometry = cardGeometry(card.size);
  const { width, height, safe } = geometry;
  const scale = geometry.trim.height / (4.25 * POINTS_PER_INCH);
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
  const image = `data:${card.homeImage.mime};base64,${card.homeImage.bytes.toString("base64")}`;
  const greeting = wrapText(
    `Prepared for ${card.greetingName}`,
    { size: greetingSize, bold: false },
    safe.width,
    1,
  );
  return svgDocument(
    geometry,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#dfe6ee"/>` +
      `<image x="0" y="0" width="${width}" height="${height}" xlink:href="${image}" href="${image}"/>` +
      `<rect x="0" y="${bandTop}" width="${width}" height="${bandHeight}" fill="#10151f" fill-opacity="0.72"/>` +
      `<rect x="0" y="${bandTop}" width="${width}" height="${3 * scale}" fill="${ACCENT}"/>` +
      textBlock(greeting, { x: safe.x, y: greetingY, size: greetingSize, fill: "#f4d7a1" }) +
      textBlock(headline.lines, {
        x: safe.x,
        y: headlineY,
        size: headline.size,
        bold: true,
        fill: "#ffffff",
        lineHeight: headlineLineHeight,
      }),
  );
}

/** Back: sender block, message and QR code on the left; postage and address in the clear zone. */
export function backSvg(card: CardContent): string {
  const geometry = cardGeometry(card.size);
  const { width, height, safe, clearZone } = geometry;
  const scale = geometry.trim.height / (4.25 * POINTS_PER_INCH);
  const columnRight = clearZone.x - 14;
  const columnWidth = columnRight - safe.x;
  const qrSize = QR_INCHES * POINTS_PER_INCH;
  const qrQuiet = qrQuietZone(card.landingUrl, qrSize);
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

  return svgDocument(
    geometry,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>` +
      `<rect x="0" y="0" width="${width}" height="${geometry.trim.y + 6 * scale}" fill="${ACCENT}"/>` +
      textBlock(sender, { x: safe.x, y: safe.y + senderSize, size: senderSize, bold: true, fill: INK }) +
      textBlock(message, {
        x: safe.x,
        y: messageTop + messageSize,
        size: messageSize,
        fill: INK,
        lineHeight: messageSize * 1.3,
      }) +
      qrCodeSvg(card.landingUrl, qrX, qrY, qrSize) +
      textBlock(callToAction, { x: callToActionX, y: qrY + qrSize / 2 - 8, size: 7.5, fill: "#4a5568" }) +
      `<line x1="${columnRight + 7}" y1="${safe.y + 6}" x2="${columnRight + 7}" y2="${safe.y + safe.height}" stroke="#c8cfd8" stroke-width="0.75"/>` +
      (card.printAddressBlock ? addressBlockSvg(card, clearZone) : ""),
  );
}

/** Postage box top right, the address block in the lower half of the clear zone. */
function addressBlockSvg(card: CardContent, zone: CardGeometry["clearZone"]): string {
  const stampWidth = 0.85 * POINTS_PER_INCH;
  const stampHeight = 0.95 * POINTS_PER_INCH;
  const stampX = zone.x + zone.width - stampWidth - 6;
  const stampY = zone.y + 6;
  const size = 10;
  const lines = card.addressLines.flatMap((line) =>
    wrapText(line, { size, bold: false }, zone.width - 24, 2),
  );
  const blockTop = zone.y + zone.height * 0.52;
  return (
    `<rect x="${stampX}" y="${stampY}" width="${stampWidth}" height="${stampHeight}" fill="none" stroke="#9aa5b1" stroke-width="0.75" stroke-dasharray="3 2"/>` +
    `<text font-family="${FONT_FAMILY}" font-size="6.5" fill="#9aa5b1" text-anchor="middle">` +
    `<tspan x="${stampX + stampWidth / 2}" y="${stampY + stampHeight / 2 - 2}">FIRST-CLASS</tspan>` +
    `<tspan x="${stampX + stampWidth / 2}" y="${stampY + stampHeight / 2 + 7}">POSTAGE</tspan></text>` +
    textBlock(lines, { x: zone.x + 12, y: blockTop + size, size, fill: "#000000", lineHeight: size * 1.3 })
  );
}
