import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import sharp from "sharp";
import { templateOverflow } from "../../src/render/card-fit.ts";
import { cardTextLines } from "../../src/render/card-text-lines.ts";
import { exampleCard } from "../../src/render/example-card.ts";
import { renderSidePng, renderSidePngs } from "../../src/render/render.ts";
import { createRenderPool } from "../../src/render/renderer.ts";
import { DEFAULT_TEMPLATE, resolveTemplate } from "../../src/render/template.ts";

const cardFor = exampleCard;

describe("a card's sides drawn one at a time", () => {
  it("draws each side as the pair draws it, at the asked width or resolution", async () => {
    const card = cardFor("12 Elm St");
    for (const resolution of [{ width: 320 }, { dpi: 150 }]) {
      const both = await renderSidePngs(card, resolution);
      for (const side of ["front", "back"] as const) {
        const alone = await renderSidePng(card, side, resolution);
        assert.deepEqual(alone, both[side], `${side} at ${JSON.stringify(resolution)}`);
      }
    }
    assert.equal((await sharp(await renderSidePng(card, "front", { width: 320 })).metadata()).width, 320);
    assert.equal((await sharp(await renderSidePng(card, "back", { dpi: 150 })).metadata()).width, 938);
  });

  it("draws a later card with its own street, not a scaled picture or sign of an earlier one", async () => {
    const first = await renderSidePng(cardFor("1 Oak Ave"), "front", { width: 320 });
    const second = await renderSidePng(cardFor("2 Pine Rd"), "front", { width: 320 });
    assert.notDeepEqual(first, second);
  });

  describe("the render pool", () => {
    const pool = createRenderPool({ threads: 1 });
    after(() => pool.close());

    it("warms a thread without waiting, and draws with it afterwards", async () => {
      pool.warm();
      pool.warm();
      const front = await pool.side(cardFor("3 Birch Ln"), "front", { width: 320 });
      assert.deepEqual(front, await renderSidePng(cardFor("3 Birch Ln"), "front", { width: 320 }));
    });

    it("draws both sides with each side's lines of text, as laid out on the API's thread", async () => {
      const card = cardFor("4 Cedar Ct");
      const sides = await pool.sides(card, { width: 320 });
      assert.deepEqual(sides.text, cardTextLines(card));
      assert.ok(
        sides.text.front.some((line) => line.length > 0),
        "the front has text",
      );
      assert.deepEqual(sides.front, await renderSidePng(card, "front", { width: 320 }));
    });

    it("checks a template's fit on a render thread with the same rule", async () => {
      const template = resolveTemplate(DEFAULT_TEMPLATE);
      const sender = {
        name: "Bright Roofing",
        phone: "555-0100",
        website: null,
        returnAddressLines: [],
        offer: null,
      };
      const long = { ...template, headline: `${"A very long headline ".repeat(12)}{{client_name}}` };
      const fits = await pool.fit(template, sender);
      const cut = await pool.fit(long, sender);
      assert.deepEqual(fits, []);
      assert.deepEqual(cut, templateOverflow(long, sender));
      assert.equal(cut[0]?.field, "headline");
      assert.ok(cut[0]!.fitting < cut[0]!.characters, JSON.stringify(cut));
    });
  });
});
