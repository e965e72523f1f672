/**
 * Proofs of draft cards are drawn once per card (issue 41): the same card again, or asked for by
 * several requests at once, is one drawing; anything drawn on the card that changes (its text, the
 * sample home's picture, the logo's bytes) is a new one; the cache holds a bounded number of bytes.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createProofCache } from "../../src/app-api/proof-cache.ts";
import { cardKey } from "../../src/pieces/card-key.ts";
import type { CardContent } from "../../src/render/card-layout.ts";

const CARD: CardContent = {
  size: "4x6",
  headline: "Your roof, done right",
  greetingName: "Jordan",
  message: "We just finished a job on Main St.",
  senderName: "Acme Roofing",
  returnAddressLines: ["1 Shop Rd", "Springfield, IL 62701"],
  phone: "555-0100",
  offer: null,
  logo: { png: new Uint8Array([1, 2, 3]), width: 10, height: 10 },
  accent: null,
  addressLines: ["Jordan Smith", "123 Main St", "Springfield, IL 62701"],
  landingUrl: "http://porchlight.test/l/proof",
  homeImage: { bytes: new Uint8Array([9, 9, 9]), streetSign: "Main St" },
  printAddressBlock: true,
};

/** A drawing that counts its calls and takes a turn of the event loop, as the render pool does. */
function countingDraw(sideBytes = 100) {
  const drawn: CardContent[] = [];
  const draw = async (card: CardContent) => {
    drawn.push(card);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return {
      front_png: `front:${card.headline}`.padEnd(sideBytes, "."),
      back_png: "back",
      text: [card.message],
    };
  };
  return { drawn, draw };
}

describe("the proof cache", () => {
  test("the same card is drawn once, also when several ask at once", async () => {
    const proofs = createProofCache();
    const { drawn, draw } = countingDraw();
    const together = await Promise.all([1, 2, 3].map(() => proofs.proofOf(structuredClone(CARD), draw)));
    const later = await proofs.proofOf(structuredClone(CARD), draw);
    assert.equal(drawn.length, 1);
    for (const proof of [...together, later]) assert.deepEqual(proof, together[0]);
    assert.match(later.front_png, /^front:Your roof, done right/);
  });

  test("a change to anything drawn is a new drawing: text, the home's picture, the logo's bytes", async () => {
    const proofs = createProofCache();
    const { drawn, draw } = countingDraw();
    const changes: CardContent[] = [
      CARD,
      { ...CARD, message: "We just finished a job on Elm St." },
      { ...CARD, homeImage: { bytes: new Uint8Array([9, 9, 8]), streetSign: "Main St" } },
      { ...CARD, logo: { png: new Uint8Array([1, 2, 4]), width: 10, height: 10 } },
      { ...CARD, size: "6x9" },
    ];
    for (const card of changes) await proofs.proofOf(card, draw);
    assert.equal(drawn.length, changes.length);
    assert.equal(new Set(changes.map(cardKey)).size, changes.length);
    assert.equal(cardKey(CARD), cardKey(structuredClone(CARD)), "a copy is the same card");
  });

  test("holds at most its bytes: the least recently used proof is drawn again", async () => {
    const proofs = createProofCache(2500);
    const { drawn, draw } = countingDraw(1000);
    const cards = ["A", "B", "C"].map((headline) => ({ ...CARD, headline }));
    await proofs.proofOf(cards[0]!, draw);
    await proofs.proofOf(cards[1]!, draw);
    await proofs.proofOf(cards[0]!, draw); // A is now the most recently used
    await proofs.proofOf(cards[2]!, draw); // two fit: B goes
    assert.equal(drawn.length, 3);
    await proofs.proofOf(cards[0]!, draw);
    assert.equal(drawn.length, 3, "A stayed");
    await proofs.proofOf(cards[1]!, draw);
    assert.equal(drawn.length, 4, "B was drawn again");
  });

  test("a failed drawing is not kept: the next ask draws again", async () => {
    const proofs = createProofCache();
    let calls = 0;
    const failingOnce = async (card: CardContent) => {
      calls++;
      if (calls === 1) throw new Error("render pool busy");
      return { front_png: card.headline, back_png: "back" };
    };
    await assert.rejects(proofs.proofOf(CARD, failingOnce), /render pool busy/);
    assert.equal((await proofs.proofOf(CARD, failingOnce)).front_png, CARD.headline);
    assert.equal(calls, 2);
  });
});
