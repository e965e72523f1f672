// node --import tsx bench/render-cost.ts [tree] [cards]
// CPU per card of the render steps alone (no database, no jobs), in this process, for the source
// tree at `tree` (default: this one), so two builds can be compared in one run on the same
// machine: e.g. `git archive main src | tar -x -C /tmp/main`, link node_modules there, and run
// both trees alternately. A card is a 4×6 with the default template and a sender profile (phone,
// return address, offer), a new street number each; the first 5 cards (fonts parsed, the
// placeholder picture fitted) are not counted. Prints one JSON line: ms per card by step.
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, ".."));
const count = Number(process.argv[3] ?? 300);
const load = (file: string) => import(pathToFileURL(path.join(root, "src", file)).href);
const { createPlaceholderImagery } = await load("imagery/placeholder.ts");
const { composeCard } = await load("render/compose.ts");
const { DEFAULT_TEMPLATE } = await load("render/template.ts");
const { fitHomeImage } = await load("render/render.ts");
const { frontDrawing, backDrawing } = await load("render/card-layout.ts");
const { drawingsToPdf } = await load("render/drawing.ts");

const WARMUP = 5;
const imagery = createPlaceholderImagery();
const sender = {
  name: "Bright Roofing Co.",
  phone: "(555) 201-3344",
  website: null,
  returnAddressLines: ["400 Industrial Way Suite 1200", "Springfield, IL 62702"],
  offer: "10% off any roof repair booked by March 31",
};
const totals: Record<string, number> = {};
const timed = async <T>(step: string, work: () => Promise<T> | T): Promise<T> => {
  const before = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(before);
  totals[step] = (totals[step] ?? 0) + (used.user + used.system) / 1000;
  return result;
};
const started = process.cpuUsage();
let firstCardMs = 0;
for (let index = 0; index < count + WARMUP; index++) {
  if (index === WARMUP) for (const step of Object.keys(totals)) totals[step] = 0;
  const street = `${index} Elm St`;
  const location = { address: street, street, city: "Springfield", latitude: null, longitude: null };
  const image = await timed("imagery", () => imagery.fetchImage(location));
  const card = await timed("compose", () =>
    composeCard({
      recipient: {
        recipientName: "Jane Smith",
        address: street,
        street,
        city: "Springfield",
        state: "IL",
        zip: "62704",
        properties: {},
      },
      orgName: sender.name,
      sender,
      template: DEFAULT_TEMPLATE,
      landingUrl: `https://porchlight.example/l/${index.toString(36).padStart(22, "x")}`,
      homeImage: { bytes: image.bytes, streetSign: image.streetSign },
      printAddressBlock: true,
    }),
  );
  const fitted = await timed("fit picture", () => fitHomeImage(card.homeImage.bytes, card.size));
  const front = await timed("layout front", () => frontDrawing(card, fitted));
  const back = await timed("layout back", () => backDrawing(card));
  await timed("PDF front", () => drawingsToPdf([front]));
  await timed("PDF back", () => drawingsToPdf([back]));
  if (index === 0) {
    const used = process.cpuUsage(started);
    firstCardMs = (used.user + used.system) / 1000;
  }
}
const round = (ms: number) => Math.round(ms * 100) / 100;
const steps = Object.fromEntries(Object.entries(totals).map(([step, ms]) => [step, round(ms / count)]));
const total = round(Object.values(steps).reduce((sum, ms) => sum + ms, 0));
console.log(
  JSON.stringify({ tree: root, cards: count, firstCardMs: Math.round(firstCardMs), msPerCard: total, steps }),
);
