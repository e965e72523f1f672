/**
 * The card text the builder starts a new automation, a neighbour card, a follow-up and a mailing
 * with fits its card for a demanding profile: a long business name, a logo, a two-line return
 * address and the longest offer Settings accepts (it refuses one the card's two offer lines cannot
 * hold). The builder's is the server's own default. (Its first default, with three merge fields,
 * did not fit beside any offer: the first automation could not be saved as offered.)
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { NEIGHBOUR_DEFAULT_TEMPLATE } from "../../src/neighbours/audience.ts";
import { templateOverflow } from "../../src/render/card-fit.ts";
import type { CardSender } from "../../src/render/compose.ts";
import { DEFAULT_TEMPLATE, resolveTemplate } from "../../src/render/template.ts";
import { NEIGHBOUR_TEMPLATE } from "../../web/src/modules/automations/audience.ts";
import { newFollowUp } from "../../web/src/modules/automations/follow-ups.ts";
import { DEFAULT_CARD_TEXT } from "../../web/src/modules/automations/form-model.ts";
import { MAILING_CARD_TEXT } from "../../web/src/modules/customers/mailing-text.ts";

const logo = await sharp({ create: { width: 400, height: 200, channels: 3, background: "#345678" } })
  .png()
  .toBuffer();
const fitsFor = (text: { headline: string; message: string }, sender: CardSender) =>
  templateOverflow(resolveTemplate({ ...text, offer: null }), sender);

const BASE_PROFILE: CardSender = {
  name: "Ridgeline Roofing & Gutter Company of Greater Austin",
  phone: "(512) 555-0100",
  website: "ridgelineroofing.example",
  returnAddressLines: ["400 Industrial Way Suite 200", "Austin, TX 78702"],
  offer: null,
  logo: { png: new Uint8Array(logo), width: 400, height: 200 },
};

/** The longest offer of these words that the card's offer lines hold: the most room Settings lets an offer take. */
function longestAcceptedOffer(): string {
  const words =
    "Free gutter check and 10% off any roof repair or full replacement booked before the end of this month".split(
      " ",
    );
  let offer = words[0]!;
  for (const word of words.slice(1)) {
    const longer = `${offer} ${word}`;
    const cut = fitsFor(DEFAULT_TEMPLATE, { ...BASE_PROFILE, offer: longer }).some(
      (fit) => fit.field === "offer",
    );
    if (cut) break;
    offer = longer;
  }
  return offer;
}

const PROFILE: CardSender = { ...BASE_PROFILE, offer: longestAcceptedOffer() };

describe("the builder's default card text", () => {
  it("is the server's default, for a record's home and for neighbours", () => {
    assert.deepEqual(DEFAULT_CARD_TEXT, {
      headline: DEFAULT_TEMPLATE.headline,
      message: DEFAULT_TEMPLATE.message,
    });
    assert.deepEqual(NEIGHBOUR_TEMPLATE, NEIGHBOUR_DEFAULT_TEMPLATE);
  });

  it("fits a 4x6 card with a long name, a logo, a two-line return address and the longest offer Settings takes, and without them", () => {
    assert.ok(PROFILE.offer!.length > 50, `the offer fills its two lines: ${PROFILE.offer}`);
    const followUps = [0, 1, 2].map((index) => newFollowUp(0, index));
    assert.equal(
      new Set(followUps.map((row) => row.headline)).size,
      3,
      "each follow-up starts with its own words",
    );
    for (const [what, text] of [
      ["a record's home", DEFAULT_CARD_TEXT],
      ["neighbours", NEIGHBOUR_TEMPLATE],
      ...followUps.map(
        ({ headline, message }, index) => [`follow-up ${index + 1}`, { headline, message }] as const,
      ),
      ["a mailing", MAILING_CARD_TEXT],
    ] as const) {
      for (const sender of [PROFILE, { ...PROFILE, logo: undefined }, { ...PROFILE, offer: null }]) {
        assert.deepEqual(
          fitsFor(text, sender),
          [],
          `${what}, ${sender.logo ? "logo" : "no logo"}, offer ${sender.offer}`,
        );
      }
    }
  });
});
