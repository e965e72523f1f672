import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { placeholderImage } from "../../src/imagery/placeholder.ts";
import { backDrawing, type CardContent, frontDrawing } from "../../src/render/card-layout.ts";
import { type Box, CARD_SIZES, type CardSize, cardGeometry, cardSizeOf } from "../../src/render/card-size.ts";
import type { DrawOp } from "../../src/render/drawing.ts";
import { resolveTemplate } from "../../src/render/template.ts";
import { textWidth } from "../../src/render/text.ts";

const inches = (points: number) => points / 72;

/** Lob's published postcard artboards: file (trim + 0.125 in bleed) and ink-free zone, in inches. */
const LOB_SPEC: Record<CardSize, { file: [number, number]; trim: [number, number]; zone: [number, number] }> =
  {
    "4x6": { file: [6.25, 4.25], trim: [6, 4], zone: [3.2835, 2.375] },
    "6x9": { file: [9.25, 6.25], trim: [9, 6], zone: [4, 2.375] },
    "6x11": { file: [11.25, 6.25], trim: [11, 6], zone: [4, 2.375] },
  };

function card(size: CardSize, printAddressBlock: boolean): CardContent {
  const image = placeholderImage({
    address: "412 Maple Ave, Springfield, IL 62704",
    street: "412 Maple Ave",
    city: "Springfield",
    latitude: null,
    longitude: null,
  });
  return {
    size,
    headline: "A fresh look for 412 Maple Ave, the finest house on the whole street",
    greetingName: "Jane Smith",
    message: "Hi Jane, ".repeat(60),
    senderName: "Bright Roofing Co.",
    // The contractor's profile: the return address block, a wide logo, an offer and a phone.
    returnAddressLines: ["400 Industrial Way Suite 1200", "Springfield, IL 62702"],
    logo: { png: new Uint8Array([0x89, 0x50]), width: 420, height: 120 },
    offer: "10% off any roof repair booked by March 31, and a free gutter check with every job",
    phone: "(555) 201-3344",
    addressLines: ["Jane Smith", "412 Maple Ave", "Springfield, IL 62704"],
    landingUrl: "https://porchlight.example/l/abcdefghijklmnopqrstuv",
    homeImage: { bytes: image.bytes, streetSign: image.streetSign },
    printAddressBlock,
  };
}

/** Where an operation puts ink, generously for text (the layout's own width measure, descenders). */
function inkBox(op: DrawOp): Box | undefined {
  switch (op.op) {
    case "rect":
      return op.fill === "#ffffff" ? undefined : op;
    case "frame":
      return op;
    case "line":
      return { x: op.x1, y: op.y1, width: op.x2 - op.x1, height: op.y2 - op.y1 };
    case "image":
      return op;
    case "qr":
      return { x: op.x, y: op.y, width: op.size, height: op.size };
    case "text": {
      const width = Math.max(...op.lines.map((line) => textWidth(line, op.size, op.bold)));
      const left = op.center ? op.x - width / 2 : op.x;
      const top = op.y - op.size;
      return { x: left, y: top, width, height: (op.lines.length - 1) * op.lineHeight + op.size * 1.25 };
    }
  }
}

const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x - 1e-9 &&
  inner.y >= outer.y - 1e-9 &&
  inner.x + inner.width <= outer.x + outer.width + 1e-9 &&
  inner.y + inner.height <= outer.y + outer.height + 1e-9;

describe("print geometry matches Lob's postcard artboards", () => {
  for (const size of CARD_SIZES) {
    const spec = LOB_SPEC[size];
    const geometry = cardGeometry(size);

    test(`${size}: the file is ${spec.file.join(" × ")} in, the trim ${spec.trim.join(" × ")} in inside a 0.125 in bleed`, () => {
      assert.deepEqual([inches(geometry.width), inches(geometry.height)], spec.file);
      assert.deepEqual([inches(geometry.trim.width), inches(geometry.trim.height)], spec.trim);
      assert.deepEqual([inches(geometry.trim.x), inches(geometry.trim.y)], [0.125, 0.125]);
    });

    test(`${size}: the ink-free zone is ${spec.zone.join(" × ")} in, 0.275 in from the right and 0.25 in from the bottom edge of the file`, () => {
      const zone = geometry.clearZone;
      assert.ok(Math.abs(inches(zone.width) - spec.zone[0]) < 1e-9);
      assert.ok(Math.abs(inches(zone.height) - spec.zone[1]) < 1e-9);
      assert.ok(Math.abs(inches(geometry.width - zone.x - zone.width) - 0.275) < 1e-9);
      assert.ok(Math.abs(inches(geometry.height - zone.y - zone.height) - 0.25) < 1e-9);
    });

    test(`${size}: with the provider printing the address, the back puts no ink in the ink-free zone and its text stays in the safe zone`, () => {
      const back = backDrawing(card(size, false));
      for (const op of back.ops) {
        const box = inkBox(op);
        if (!box) continue;
        assert.ok(
          !overlaps(box, geometry.clearZone),
          `${op.op} ${JSON.stringify(box)} is in the ink-free zone`,
        );
        if (op.op === "text" || op.op === "qr")
          assert.ok(inside(box, geometry.safe), `${op.op} leaves the safe zone`);
      }
      const logo = back.ops.find((op) => op.op === "image");
      assert.ok(logo && inside(inkBox(logo)!, geometry.safe), "the logo is drawn inside the safe zone");
      const printed = back.ops.flatMap((op) => (op.op === "text" ? op.lines : []));
      for (const line of ["400 Industrial Way Suite 1200", "Springfield, IL 62702"]) {
        assert.ok(printed.includes(line), `the return address line "${line}" is printed`);
      }
    });

    test(`${size}: printing the address itself, the address block and postage box sit inside the zone`, () => {
      const back = backDrawing(card(size, true));
      const address = back.ops.find((op) => op.op === "text" && op.lines[0] === "Jane Smith");
      assert.ok(address && inside(inkBox(address)!, geometry.clearZone));
      const stamp = back.ops.find((op) => op.op === "frame");
      assert.ok(stamp && inside(inkBox(stamp)!, geometry.clearZone));
    });

    test(`${size}: the front's picture covers the whole file (bleed included) and its text stays in the safe zone`, () => {
      const front = frontDrawing(card(size, false), new Uint8Array([0xff, 0xd8]));
      const image = front.ops.find((op) => op.op === "image");
      assert.deepEqual(image && inkBox(image), {
        ...image,
        x: 0,
        y: 0,
        width: geometry.width,
        height: geometry.height,
      });
      // The band at the foot: greeting and headline; the header above it: business name and phone.
      type Op<K extends DrawOp["op"]> = Extract<DrawOp, { op: K }>;
      const bandTop = front.ops.find(
        (op): op is Op<"rect"> => op.op === "rect" && op.opacity !== undefined,
      )!.y;
      // Not the picture's street sign (centred on its plate).
      const texts = front.ops.filter((op): op is Op<"text"> => op.op === "text" && !op.center);
      assert.equal(texts.filter((op) => op.y >= bandTop).length, 2, "greeting and headline");
      assert.deepEqual(
        texts.filter((op) => op.y < bandTop).flatMap((op) => op.lines),
        ["Bright Roofing Co.", "(555)\u00a0201-3344"], // the phone never breaks at its space
        "the front carries the business name and phone",
      );
      for (const text of texts)
        assert.ok(inside(inkBox(text)!, geometry.safe), `${JSON.stringify(text)} is in the safe zone`);
    });
  }

  test("a template naming the retired 6x4.25 size prints the 4x6 card; unknown sizes fall back to it", () => {
    assert.equal(cardSizeOf("6x4.25"), "4x6");
    assert.equal(resolveTemplate({ size: "6x4.25" }).size, "4x6");
    assert.equal(resolveTemplate({ size: "6x11" }).size, "6x11");
    assert.equal(resolveTemplate({ size: "5x7" }).size, "4x6");
    assert.equal(cardSizeOf(9), undefined);
  });
});
