import PDFDocument from "pdfkit";
import { pdfFont } from "./pdf-font.ts";
import { textPath } from "./text.ts";

/**
 * One side of a card as a short list of drawing operations, in points from the artwork's top
 * left. The print PDF draws them with pdfkit directly (vector text and shapes, the photo embedded
 * as its JPEG bytes); the PNG proof renders the same list as SVG. One layout, two outputs: the
 * proof shows what prints.
 */
export type DrawOp =
  | { op: "rect"; x: number; y: number; width: number; height: number; fill: string; opacity?: number }
  | {
      op: "frame";
      x: number;
      y: number;
      width: number;
      height: number;
      stroke: string;
      lineWidth: number;
      radius?: number;
      fill?: string;
      dash?: [number, number];
    }
  | { op: "line"; x1: number; y1: number; x2: number; y2: number; stroke: string; lineWidth: number }
  /** A raster picture: the home's photo (JPEG) or the organization's logo (PNG, may be transparent). */
  | {
      op: "image";
      x: number;
      y: number;
      width: number;
      height: number;
      bytes: Uint8Array;
      format: "jpeg" | "png";
    }
  | {
      op: "text";
      lines: readonly string[];
      /** Left edge, or the centre with `center`. */
      x: number;
      /** Baseline of the first line. */
      y: number;
      size: number;
      bold: boolean;
      fill: string;
      lineHeight: number;
      center?: boolean;
    }
  /** A QR code `size` points wide at (x, y): its dark runs, [row, first column, length] in modules. */
  | {
      op: "qr";
      x: number;
      y: number;
      size: number;
      modules: number;
      runs: readonly [number, number, number][];
    };

export interface Drawing {
  width: number;
  height: number;
  ops: DrawOp[];
}

/** The card's faces as registered with each PDF (text.ts has the font); pdfkit embeds a subset of each. */
const fontName = (bold: boolean) => (bold ? "Card-Bold" : "Card-Regular");

function drawPdfOp(doc: PDFKit.PDFDocument, op: DrawOp): void {
  switch (op.op) {
    case "rect":
      doc.save().rect(op.x, op.y, op.width, op.height);
      if (op.opacity !== undefined) doc.fillOpacity(op.opacity);
      doc.fill(op.fill).restore();
      return;
    case "frame": {
      doc.save().lineWidth(op.lineWidth);
      if (op.dash) doc.dash(op.dash[0], { space: op.dash[1] });
      if (op.radius) doc.roundedRect(op.x, op.y, op.width, op.height, op.radius);
      else doc.rect(op.x, op.y, op.width, op.height);
      if (op.fill) doc.fillAndStroke(op.fill, op.stroke);
      else doc.stroke(op.stroke);
      doc.restore();
      return;
    }
    case "line":
      doc
        .save()
        .lineWidth(op.lineWidth)
        .moveTo(op.x1, op.y1)
        .lineTo(op.x2, op.y2)
        .stroke(op.stroke)
        .restore();
      return;
    case "image":
      doc.image(Buffer.from(op.bytes.buffer, op.bytes.byteOffset, op.bytes.byteLength), op.x, op.y, {
        width: op.width,
        height: op.height,
      });
      return;
    case "text": {
      doc.save().font(fontName(op.bold)).fontSize(op.size).fillColor(op.fill);
      op.lines.forEach((line, index) => {
        const x = op.center ? op.x - doc.widthOfString(line) / 2 : op.x;
        doc.text(line, x, op.y + index * op.lineHeight, { lineBreak: false, baseline: "alphabetic" });
      });
      doc.restore();
      return;
    }
    case "qr": {
      const module = op.size / op.modules;
      doc.save();
      for (const [row, column, length] of op.runs) {
        doc.rect(op.x + column * module, op.y + row * module, length * module, module);
      }
      doc.fill("#000000").restore();
      return;
    }
  }
}

/** A PDF with one page per drawing, each page the full artwork (trim plus bleed). */
export function drawingsToPdf(drawings: readonly Drawing[]): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    margin: 0,
    info: { Title: "Postcard", Creator: "Porchlight" },
    // No default font: pdfkit would load and parse Helvetica's metrics for every document, unused.
    font: null as never,
  });
  // The parsed font, not its file: pdfkit would parse the file (its kerning tables) again per
  // document; and its words shaped once per thread (text.ts), not once per document.
  doc.registerFont(fontName(false), pdfFont(false) as never);
  doc.registerFont(fontName(true), pdfFont(true) as never);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  for (const drawing of drawings) {
    doc.addPage({ size: [drawing.width, drawing.height], margin: 0 });
    for (const op of drawing.ops) drawPdfOp(doc, op);
  }
  doc.end();
  return done;
}

function svgOp(op: DrawOp): string {
  switch (op.op) {
    case "rect": {
      const opacity = op.opacity === undefined ? "" : ` fill-opacity="${op.opacity}"`;
      return `<rect x="${op.x}" y="${op.y}" width="${op.width}" height="${op.height}" fill="${op.fill}"${opacity}/>`;
    }
    case "frame": {
      const radius = op.radius ? ` rx="${op.radius}"` : "";
      const dash = op.dash ? ` stroke-dasharray="${op.dash[0]} ${op.dash[1]}"` : "";
      return `<rect x="${op.x}" y="${op.y}" width="${op.width}" height="${op.height}"${radius} fill="${op.fill ?? "none"}" stroke="${op.stroke}" stroke-width="${op.lineWidth}"${dash}/>`;
    }
    case "line":
      return `<line x1="${op.x1}" y1="${op.y1}" x2="${op.x2}" y2="${op.y2}" stroke="${op.stroke}" stroke-width="${op.lineWidth}"/>`;
    case "image": {
      const href = `data:image/${op.format};base64,${Buffer.from(op.bytes).toString("base64")}`;
      return `<image x="${op.x}" y="${op.y}" width="${op.width}" height="${op.height}" preserveAspectRatio="none" href="${href}"/>`;
    }
    case "text": {
      const data = op.lines
        .map((line, index) =>
          textPath(line, {
            x: op.x,
            y: op.y + index * op.lineHeight,
            size: op.size,
            bold: op.bold,
            ...(op.center ? { center: true } : {}),
          }),
        )
        .join("");
      return data ? `<path fill="${op.fill}" d="${data}"/>` : "";
    }
    case "qr": {
      const path = op.runs
        .map(([row, column, length]) => `M${column} ${row}h${length}v1h-${length}z`)
        .join("");
      return `<path transform="translate(${op.x} ${op.y}) scale(${op.size / op.modules})" fill="#000000" d="${path}"/>`;
    }
  }
}

/** The drawing as SVG, sized in points as unitless user units (raster renderers map 72 to an inch). */
export function drawingToSvg(drawing: Drawing): string {
  const { width, height } = drawing;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `${drawing.ops.map(svgOp).join("")}</svg>`
  );
}
