import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { composeAddress, normalizeAddress, parseUsAddress } from "../../src/domain/address.ts";
import { sameHome } from "../../src/domain/same-home.ts";

/** The key of an address given in parts (a CRM's street, city, state and ZIP fields). */
const keyOfParts = (street: string, city: string, state: string, zip = "") =>
  normalizeAddress(composeAddress({ street, city, state, zip }));

/**
 * A street without a street type ("Broadway", "Via Roma", "Esplanade") followed by a town whose
 * last word is a street-type word ("Long Beach", "Saratoga Springs"): the town is the town, not
 * the end of the street (`100 BROADWAY LONG BCH`), when a comma sets it off or it is the ZIP's own.
 */
describe("a town whose last word is a street type, after a street without one", () => {
  const homes: [written: string[], parts: [string, string, string, string?], key: string][] = [
    [
      [
        "100 Broadway, Long Beach, CA 90802",
        "100 Broadway Long Beach CA 90802",
        "100 Broadway, Long Beach CA 90802",
      ],
      ["100 Broadway", "Long Beach", "CA", "90802"],
      "100 BROADWAY, LONG BEACH CA 90802",
    ],
    [
      ["50 Broadway, Saratoga Springs, NY 12866", "50 Broadway Saratoga Springs NY 12866"],
      ["50 Broadway", "Saratoga Springs", "NY", "12866"],
      "50 BROADWAY, SARATOGA SPRINGS NY 12866",
    ],
    [
      ["10 Via Roma, Newport Beach, CA 92660", "10 Via Roma Newport Beach CA 92660"],
      ["10 Via Roma", "Newport Beach", "CA", "92660"],
      "10 VIA ROMA, NEWPORT BEACH CA 92660",
    ],
    [
      ["15 Esplanade, Redondo Beach, CA 90277", "15 Esplanade Redondo Beach CA 90277"],
      ["15 Esplanade", "Redondo Beach", "CA", "90277"],
      "15 ESPLANADE, REDONDO BEACH CA 90277",
    ],
    [
      ["7 Via Roma, Newport Beach CA", "7 Via Roma, Newport Beach, CA", "7 Via Roma Newport Beach CA"],
      ["7 Via Roma", "Newport Beach", "CA"],
      "7 VIA ROMA, NEWPORT BEACH CA",
    ],
    [
      [
        "20 Calle Ocho, Coral Gables, FL 33134",
        "20 Calle Ocho, Coral Gables FL 33134",
        "20 Calle Ocho Coral Gables FL 33134",
      ],
      ["20 Calle Ocho", "Coral Gables", "FL", "33134"],
      "20 CALLE OCHO, CORAL GABLES FL 33134",
    ],
  ];

  it("keys the home as its parts do, with the comma or without", () => {
    for (const [written, parts, key] of homes) {
      assert.equal(keyOfParts(...parts), key, parts.join("|"));
      for (const text of written) assert.equal(normalizeAddress(text), key, text);
    }
  });

  it("reads the town set off by a comma as the town, with or without a state and ZIP", () => {
    assert.deepEqual(parseUsAddress("100 Broadway, Long Beach, CA"), {
      street: "100 BROADWAY",
      city: "LONG BEACH",
      state: "CA",
      zip: "",
      country: "US",
    });
    assert.equal(normalizeAddress("100 Broadway, Long Beach 90802"), "100 BROADWAY, LONG BEACH CA 90802");
  });

  it("keeps the readings that were right", () => {
    const unchanged: [string, string][] = [
      ["100 Broadway, New York, NY 10006", "100 BROADWAY, NEW YORK NY 10006"],
      ["9 Bowery, New York, NY 10002", "9 BOWERY, NEW YORK NY 10002"],
      ["100 Main St, Long Beach, CA 90802", "100 MAIN ST, LONG BEACH CA 90802"],
      ["12 Kings Hwy, Park Ridge, IL 60068", "12 KINGS HWY, PARK RIDGE IL 60068"],
      ["1 Ocean Front Walk, Venice, CA 90291", "1 OCEAN FRONT WALK, VENICE CA 90291"],
    ];
    for (const [written, key] of unchanged) assert.equal(normalizeAddress(written), key, written);
    // No town written: the last word is the street's type, as before.
    assert.equal(normalizeAddress("12 Main Street, TX"), "12 MAIN ST, TX");
  });

  it("reads words after a street's own type as the street's, keeping the town set off by a comma", () => {
    // A CRM's line 1 with a note after the street: the same home as the street alone, in its town
    // (and still the home stored before as `12 MAIN ST, IL 62701`: same street and ZIP).
    for (const written of [
      "12 Main Street Garage, Springfield, IL 62701",
      "12 Main Street Upstairs, Springfield, IL 62701",
      "12 Main St Back, Springfield, IL 62701",
    ]) {
      assert.equal(normalizeAddress(written), "12 MAIN ST, SPRINGFIELD IL 62701", written);
    }
    assert.equal(
      normalizeAddress("12 Main Street Rear House, Springfield, IL 62701"),
      normalizeAddress("12 Main St Rear House, Springfield, IL 62701"),
    );
    assert.equal(
      normalizeAddress("12 Main Street Apt 4 Rear, Springfield, IL 62701"),
      "12 MAIN ST #4, SPRINGFIELD IL 62701",
    );
    assert.ok(
      sameHome(normalizeAddress("12 Main Street Garage, Springfield, IL 62701"), "12 MAIN ST, IL 62701"),
    );
  });

  it("keeps a town the writer set off whole, whatever it holds", () => {
    assert.equal(
      normalizeAddress("20 Calle, Ocho Coral Gables FL 33134"),
      "20 CALLE, OCHO CORAL GABLES FL 33134",
    );
  });
});
