import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addressLines, composeCard } from "../../src/render/compose.ts";
import { templateProblems } from "../../src/render/merge.ts";
import { printableText, unprintableCharacters } from "../../src/render/printable-text.ts";
import { resolveTemplate } from "../../src/render/template.ts";

const recipient = (recipientName: string, street = "70 Name St Unit 5") => ({
  recipientName,
  address: `${street}, Springfield, IL 62704`,
  street,
  city: "Springfield",
  state: "IL",
  zip: "62704",
  properties: {},
});

const cardFor = (name: string, template = resolveTemplate(null)) =>
  composeCard({
    recipient: recipient(name),
    orgName: "Bright Gutters 🏠",
    template,
    landingUrl: "https://porch.example/l/abc",
    homeImage: { bytes: new Uint8Array() },
    printAddressBlock: true,
  });

describe("what the card's typeface can print", () => {
  it("finds emoji and letters outside Latin, Greek and Cyrillic; keeps accents, Greek, Cyrillic and typography", () => {
    assert.deepEqual(unprintableCharacters("Thanks 🏡 山田 Ω Жора é ñ ’ – ½ ™"), ["🏡", "山", "田"]);
    assert.deepEqual(unprintableCharacters("plain ASCII, as most cards are"), []);
    assert.equal(printableText("Thanks Ana 🏡, we are near!"), "Thanks Ana, we are near!");
    assert.equal(printableText("Zoë Παπαδοπούλου Жора"), "Zoë Παπαδοπούλου Жора");
  });

  it("a record's name the card cannot print gives the greeting's fallback and 'Current Resident', never empty boxes", () => {
    for (const name of ["山田 太郎", "العربية اسم", "👍🏽"]) {
      const card = cardFor(name);
      assert.equal(card.greetingName, "Neighbor", name);
      assert.equal(card.addressLines[0], "Current Resident", name);
      assert.deepEqual(unprintableCharacters(`${card.headline} ${card.message}`), [], name);
    }
    const mixed = cardFor("Ana 🌻 Lopez");
    assert.equal(mixed.greetingName, "Ana Lopez");
    assert.equal(mixed.senderName, "Bright Gutters", "the business name loses its emoji too");
    assert.deepEqual(addressLines(recipient("Ana Lopez")).slice(0, 1), ["Ana Lopez"]);
  });

  it("a template the card cannot print is refused in words, naming the characters", () => {
    const [problem] = templateProblems("Thanks {{client_name}} 🏡✨");
    assert.match(problem!, /the card's typeface cannot print 🏡 ✨ \(emoji/);
    assert.match(problem!, /remove them$/);
    assert.deepEqual(templateProblems("Thanks {{client_name}}, Zoë says γειά"), []);
  });
});
