import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeAddress, parseUsAddress } from "../../src/domain/address.ts";
import { withOrdinalsInFigures } from "../../src/domain/street-ordinals.ts";

describe("a numbered street written in words or in figures", () => {
  it("keys as one home", () => {
    const oneHome: [string, string][] = [
      ["12 Fifth Avenue, New York, NY 10011", "12 5th Ave, New York, NY 10011"],
      ["7 W Twenty-First Street, New York, NY 10010", "7 W 21st St, New York, NY 10010"],
      ["7 W Twenty First St, New York, NY 10010", "7 West 21st Street, New York, NY 10010"],
      ["100 First St NE, Washington, DC 20002", "100 1st St NE, Washington, DC 20002"],
      ["40 Second Ave Apt 3, Springfield, IL 62704", "40 2nd Ave #3, Springfield, IL 62704"],
      ["5 Eleventh St, Springfield, IL 62704", "5 11th St, Springfield, IL 62704"],
      ["5 Twelfth St, Springfield, IL 62704", "5 12th St, Springfield, IL 62704"],
      ["5 Ninetieth St, Springfield, IL 62704", "5 90th St, Springfield, IL 62704"],
      ["40 One Hundred Twenty-Fifth St, New York, NY 10027", "40 125th St, New York, NY 10027"],
    ];
    for (const [words, figures] of oneHome)
      assert.equal(normalizeAddress(words), normalizeAddress(figures), words);
    assert.equal(normalizeAddress("12 Fifth Avenue, New York, NY 10011"), "12 5TH AVE, NEW YORK NY 10011");
  });

  it("writes each ordinal with its own suffix", () => {
    const figures = [
      "FIRST",
      "SECOND",
      "THIRD",
      "FOURTH",
      "ELEVENTH",
      "TWELFTH",
      "THIRTEENTH",
      "TWENTIETH",
    ].map((word) => withOrdinalsInFigures(`1 ${word} ST`));
    assert.deepEqual(figures, [
      "1 1ST ST",
      "1 2ND ST",
      "1 3RD ST",
      "1 4TH ST",
      "1 11TH ST",
      "1 12TH ST",
      "1 13TH ST",
      "1 20TH ST",
    ]);
    assert.equal(withOrdinalsInFigures("1 TWENTY-SECOND ST"), "1 22ND ST");
    assert.equal(withOrdinalsInFigures("1 ONE HUNDRED ELEVENTH ST"), "1 111TH ST");
    assert.equal(withOrdinalsInFigures("1 HUNDREDTH ST"), "1 100TH ST");
  });

  it("keeps other streets, units and the parts read as written", () => {
    assert.equal(withOrdinalsInFigures("3 FIFER LN"), "3 FIFER LN");
    assert.equal(withOrdinalsInFigures("3 TWENTY OAKS DR"), "3 TWENTY OAKS DR");
    assert.equal(withOrdinalsInFigures("3 MAIN ST #FIFTH"), "3 MAIN ST #FIFTH");
    assert.notEqual(
      normalizeAddress("12 Fifth Ave, New York, NY 10011"),
      normalizeAddress("12 Sixth Ave, New York, NY 10011"),
    );
    // The card prints the street as written: only the key has it in figures.
    assert.equal(parseUsAddress("12 Fifth Avenue, New York, NY 10011").street, "12 FIFTH AVE");
  });
});
