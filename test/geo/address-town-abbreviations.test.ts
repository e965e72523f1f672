import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isTownOfState, normalizeAddress, zipsOfCity } from "../../src/domain/address.ts";
import { checkAddressOffline } from "../../src/domain/deliverable-address.ts";
import { keysOfSameHome, sameHome } from "../../src/domain/same-home.ts";
import { townKey } from "../../src/domain/town-names.ts";

/**
 * A town whose name opens with Saint, Fort or Mount is written abbreviated as often as not ("St
 * Paul", "Ft. Worth", "Mt Vernon"): every writing is one town, for the key, the ZIP table and the
 * deliverability check.
 */
describe("towns written with an abbreviated first word", () => {
  it("key every writing of one home alike, with the town spelled out", () => {
    const writings: [string[], string][] = [
      [
        [
          "12 Main St, St Paul, MN",
          "12 Main St, St. Paul, MN",
          "12 Main St, Saint Paul, MN",
          "12 Main St St Paul MN",
        ],
        "12 MAIN ST, SAINT PAUL MN",
      ],
      [
        ["12 Main St, St Paul, MN 55101", "12 Main St St Paul MN 55101", "12 main st, saint paul mn 55101"],
        "12 MAIN ST, SAINT PAUL MN 55101",
      ],
      [
        ["9 Elm Ave Ft Worth TX", "9 Elm Ave, Ft. Worth, TX", "9 Elm Ave, Fort Worth, TX"],
        "9 ELM AVE, FORT WORTH TX",
      ],
      [
        ["12 Main St Mt Vernon NY", "12 Main St, Mt Vernon, NY", "12 Main St, Mount Vernon, NY"],
        "12 MAIN ST, MOUNT VERNON NY",
      ],
      [["100 Highway 61 St Paul MN", "100 Highway 61, Saint Paul, MN"], "100 HIGHWAY 61, SAINT PAUL MN"],
      [["40 Oak St Ste 4 St Paul MN", "40 Oak St #4, Saint Paul, MN"], "40 OAK ST #4, SAINT PAUL MN"],
    ];
    for (const [texts, key] of writings) {
      for (const text of texts) assert.equal(normalizeAddress(text), key, text);
    }
  });

  it("reads Ste before a state or ZIP as Sainte when the state has such a town, else as a suite", () => {
    const writings: [string[], string][] = [
      [
        [
          "7 Elm Ave, Ste. Genevieve, MO 63670",
          "7 Elm Ave Ste Genevieve MO 63670",
          "7 Elm Ave Ste. Genevieve 63670",
          "7 Elm Ave, Sainte Genevieve, MO 63670",
        ],
        "7 ELM AVE, SAINTE GENEVIEVE MO 63670",
      ],
      [
        [
          "7 Elm Ave Ste Genevieve MO",
          "7 Elm Ave, Ste. Genevieve, Missouri",
          "7 Elm Ave Sainte Genevieve MO",
        ],
        "7 ELM AVE, SAINTE GENEVIEVE MO",
      ],
      [
        ["7 Elm Ave Ste 4 Ste Genevieve MO 63670", "7 Elm Ave, Ste 4, Ste Genevieve, MO 63670"],
        "7 ELM AVE #4, SAINTE GENEVIEVE MO 63670",
      ],
      [["7 Elm Ave, Ste Marie, IL 62459"], "7 ELM AVE, SAINTE MARIE IL 62459"],
    ];
    for (const [texts, key] of writings) {
      for (const text of texts) assert.equal(normalizeAddress(text), key, text);
    }
    const suites: [string, string][] = [
      ["12 Main St Ste 200 Springfield IL 62701", "12 MAIN ST #200, SPRINGFIELD IL 62701"],
      ["12 Main St Ste B, Springfield, IL 62701", "12 MAIN ST #B, SPRINGFIELD IL 62701"],
      // Illinois has no Sainte Genevieve: a suite called Genevieve, as before.
      ["12 Main St Ste Genevieve, IL 62701", "12 MAIN ST #GENEVIEVE, IL 62701"],
    ];
    for (const [text, key] of suites) assert.equal(normalizeAddress(text), key, text);
  });

  it("leaves a street's own Saint or Mount, a town of the state without one, and a town that is only the word", () => {
    const unchanged: [string, string][] = [
      ["5 St Paul St, Baltimore, MD 21202", "5 ST PAUL ST, BALTIMORE MD 21202"],
      ["5 St Charles Ave New Orleans LA", "5 ST CHARLES AVE, NEW ORLEANS LA"],
      ["5 Mt Vernon Ave Alexandria VA", "5 MOUNT VERNON AVE, ALEXANDRIA VA"],
      ["12 Main St Vernon NY", "12 MAIN ST, VERNON NY"],
      ["12 Main St Mt, Vernon NY", "12 MAIN ST MT, VERNON NY"],
      ["12 Main, Mt, NY", "12 MAIN, MT NY"],
      ["7 Main St W Springfield MA", "7 MAIN ST W, SPRINGFIELD MA"],
    ];
    for (const [text, key] of unchanged) assert.equal(normalizeAddress(text), key, text);
  });

  it("finds a town in the ZIP table however it is written, abbreviated there or not", () => {
    assert.equal(townKey("St. Paul"), "SAINTPAUL");
    assert.equal(townKey("Mc Lean"), townKey("McLean"));
    assert.equal(townKey("Winston Salem"), townKey("Winston-Salem"));
    assert.equal(townKey("Española"), "ESPANOLA");
    assert.ok(isTownOfState("St Paul", "MN"));
    assert.ok(isTownOfState("Ft Worth", "TX"));
    // The table writes these abbreviated: MT ZION IL, FT MITCHELL KY.
    assert.ok(isTownOfState("Mount Zion", "IL"));
    assert.ok(isTownOfState("Fort Mitchell", "KY"));
    assert.ok(zipsOfCity("SAINT PAUL", "MN", 200).includes("55101"));
    assert.deepEqual(zipsOfCity("Saint Paul", "Minnesota", 200), zipsOfCity("St Paul", "MN", 200));
    assert.equal(isTownOfState("St Nowhere", "MN"), false);
    for (const state of ["constructor", "__proto__", "toString", "XX"]) {
      assert.deepEqual(zipsOfCity("Saint Paul", state, 5), [], state);
    }
  });

  it("matches one home across writings, with and without its ZIP", () => {
    const withZip = normalizeAddress("12 Main St, St Paul, MN 55101");
    const withoutZip = normalizeAddress("12 Main St, Saint Paul, MN");
    assert.ok(sameHome(withZip, withoutZip));
    assert.ok(keysOfSameHome(withoutZip).includes(withZip));
    // The ZIP table's own abbreviation (55101 is SAINT PAUL; 62549 is MT ZION) reads alike.
    assert.ok(sameHome(normalizeAddress("3 Elm St, IL 62549"), normalizeAddress("3 Elm St, Mount Zion, IL")));
  });

  it("lets a card go to a town written either way (it was refused as no such town)", () => {
    const cases = [
      { street: "12 Main St", city: "St Paul", state: "MN" },
      { street: "12 Main St", city: "Ft. Worth", state: "TX" },
      { street: "12 Main St", city: "Española", state: "NM" },
    ];
    for (const address of cases) {
      assert.deepEqual(checkAddressOffline(address, "normal"), { deliverable: true }, address.city);
    }
    const strict = { street: "12 Main St", city: "St. Paul", state: "MN", zip: "55101" };
    assert.deepEqual(checkAddressOffline(strict, "strict"), { deliverable: true });
    const elsewhere = { street: "12 Main St", city: "St Cloud", state: "MN", zip: "55101" };
    assert.equal(checkAddressOffline(elsewhere, "normal").deliverable, false);
  });
});
