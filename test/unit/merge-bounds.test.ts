import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { templateOverflow } from "../../src/render/card-fit.ts";
import { backLayout, cardAsPrinted, frontLayout, overflowAsWritten } from "../../src/render/card-layout.ts";
import { type CardSender, composeCard } from "../../src/render/compose.ts";
import { shorterMergeValues } from "../../src/render/merge-bounds.ts";
import { type ResolvedTemplate, resolveTemplate } from "../../src/render/template.ts";

const SENDER: CardSender = {
  name: "Ridgeline Roofing & Gutter Company",
  phone: "(512) 555-0100",
  website: "ridgelineroofing.example",
  returnAddressLines: ["400 Industrial Way", "Austin, TX 78702"],
  offer: null,
};

/** 62 characters: more than the card was measured with, by far. */
const LONG_NAME = "Maximilian Alexander Vandermeer-Lowe Fitzgerald-Montgomery III";

/** A message with every bounded merge field, filled with words up to the last that still fits the card. */
function templateAtTheLimit(): ResolvedTemplate {
  const opening = "{{client_name}}, we roofed {{street}} in {{city}} and fixed a {{cf_roof|roof}}.";
  const filler = Array.from({ length: 80 }, (_, i) => `word${i}`);
  const withWords = (count: number) =>
    resolveTemplate({
      headline: "New roofs for {{client_name}} in {{city}}",
      message: [opening, ...filler.slice(0, count)].join(" "),
      offer: "Free check for {{street}}",
    });
  let fitting = 0;
  while (fitting < filler.length && templateOverflow(withWords(fitting + 1), SENDER).length === 0) fitting++;
  assert.ok(fitting > 0 && fitting < filler.length, `${fitting} words fit`);
  return withWords(fitting);
}

function cutFields(template: ResolvedTemplate, values: Record<string, string>) {
  const card = composeCard({
    recipient: {
      recipientName: values.client_name ?? null,
      address: `${values.street}, ${values.city}, TX 78702`,
      street: values.street ?? null,
      city: values.city ?? null,
      state: "TX",
      zip: "78702",
      properties: { cf_roof: values.cf_roof ?? "" },
    },
    orgName: SENDER.name,
    sender: SENDER,
    template,
    landingUrl: "https://porchlight.example/l/abcdefghijklmnopqrstuv",
    homeImage: { bytes: new Uint8Array() },
    printAddressBlock: true,
  });
  const printed = cardAsPrinted(card);
  const overflow = [...frontLayout(card, new Uint8Array()).overflow, ...backLayout(card).overflow];
  assert.deepEqual(overflow, overflowAsWritten(printed), "both sides print the chosen texts");
  return { card: printed, cut: overflow.map((field) => field.field) };
}

describe("a record's values longer than its card was measured with", () => {
  it("are shortened a word at a time, the longest first, never ending on a joining word, then fall back", () => {
    const template = resolveTemplate({
      message: "Hi {{client_name}} on {{street}}, about your {{cf_roof|roof}}.",
    });
    const steps = shorterMergeValues(
      {
        client_name: "Robert and Margaret Vandermeer",
        street: "12 Elm St",
        cf_roof: "slate",
        org_name: "Acme Co",
      },
      template,
    );
    assert.deepEqual(
      steps.map((step) => [step.client_name, step.street, step.cf_roof, step.org_name]),
      [
        ["Robert and Margaret", "12 Elm St", "slate", "Acme Co"],
        ["Robert", "12 Elm St", "slate", "Acme Co"],
        ["Robert", "12 Elm", "slate", "Acme Co"],
        ["Robert", "12", "slate", "Acme Co"],
        [null, null, null, "Acme Co"],
      ],
    );
    const marks = shorterMergeValues({ client_name: "Miller Roofing, Gutters & Siding" }, template);
    assert.deepEqual(
      marks.map((step) => step.client_name),
      ["Miller Roofing, Gutters", "Miller Roofing", "Miller", null],
    );
    // However many words a value has, a card tries at most 16 texts.
    const wordy = shorterMergeValues({ client_name: "word ".repeat(400) }, template);
    assert.equal(wordy.length, 16);
    assert.equal(wordy.at(-1)?.client_name, null);
    assert.deepEqual(shorterMergeValues({ org_name: "Acme Co" }, template), []);
  });

  it("never cut the text of a card whose template fits, whatever the record holds", () => {
    const template = templateAtTheLimit();
    const word = fc.oneof(
      fc.constantFrom(
        "Wolfgang",
        "MÜLLER-WESTERMANN",
        "de",
        "la",
        "&",
        "and",
        "José",
        "Ñúñez",
        "Ⅷ",
        "🏠",
        "WWWW",
      ),
      fc.string({ minLength: 1, maxLength: 30 }).filter((text) => text.trim() !== ""),
    );
    const value = fc.array(word, { minLength: 1, maxLength: 12 }).map((words) => words.join(" "));
    fc.assert(
      fc.property(value, value, value, value, (client_name, street, city, cf_roof) => {
        const { card, cut } = cutFields(template, { client_name, street, city, cf_roof });
        assert.deepEqual(
          cut,
          [],
          JSON.stringify({ client_name, street, city, cf_roof, message: card.message }),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("print as written when they fit, and shortened by whole words when they would cut the text", () => {
    const template = templateAtTheLimit();
    const fitting = cutFields(template, {
      client_name: "Jane Doe",
      street: "12 Elm St",
      city: "Austin",
      cf_roof: "slate roof",
    });
    assert.deepEqual(fitting.cut, []);
    assert.ok(
      fitting.card.message.startsWith("Jane Doe, we roofed 12 Elm St in Austin and fixed a slate roof."),
    );
    assert.equal(fitting.card.greetingName, "Jane Doe");

    // The other fields at the longest the card was measured with: the name has no room to spare.
    const long = cutFields(template, {
      client_name: LONG_NAME,
      street: "12345 Old Cottonwood Ridge Rd",
      city: "Rancho Santa Margarita",
      cf_roof: "standing seam metal roof",
    });
    assert.deepEqual(long.cut, []);
    const name =
      /^(.*), we roofed 12345 Old Cottonwood Ridge Rd in Rancho Santa Margarita/.exec(
        long.card.message,
      )?.[1] ?? "";
    assert.ok(name.length > 0 && name.length < LONG_NAME.length, name);
    assert.ok(LONG_NAME.startsWith(name), name);
    // The front greets the same name the back prints; the address block keeps the whole name.
    assert.equal(long.card.greetingName, name);
    assert.equal(long.card.addressLines[0], LONG_NAME);
    // The text ends as the template does: nothing cut.
    assert.equal(long.card.message.endsWith(template.message.split(" ").at(-1) as string), true);
  });
});
