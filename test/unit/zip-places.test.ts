import assert from "node:assert/strict";
import { describe, it } from "node:test";
import zipcodes from "zipcodes";
import { zipPlaces } from "../../src/domain/zip-places.ts";

describe("the ZIP table read from the zipcodes package's data as JSON", () => {
  it("answers every code exactly as the package does", () => {
    const codes = Object.keys(zipcodes.codes);
    assert.ok(codes.length > 40_000);
    const different = codes.filter(
      (code) => JSON.stringify(zipPlaces.lookup(code)) !== JSON.stringify(zipcodes.lookup(code)),
    );
    assert.deepEqual(different, []);
  });

  it("answers Canadian postal codes by their first three characters, and unknown codes with nothing", () => {
    for (const code of ["T2P 1J9", "M5V 2T6", "00000", "", "ABCDE", "__proto__", "1234"]) {
      assert.deepEqual(zipPlaces.lookup(code), zipcodes.lookup(code), code);
    }
    assert.equal(zipPlaces.lookup("T2P 1J9")?.country, "Canada");
  });

  it("finds a city's codes by state abbreviation or full name, in any case, as the package does", () => {
    const cities: [string, string][] = [
      ["Springfield", "IL"],
      ["springfield", "Illinois"],
      ["New York", "NY"],
      ["Boise", "id"],
      ["Calgary", "AB"],
      ["Nowhere", "IL"],
      ["Springfield", "ZZ"],
    ];
    for (const [city, state] of cities) {
      assert.deepEqual(
        zipPlaces.lookupByName(city, state),
        zipcodes.lookupByName(city, state),
        `${city}, ${state}`,
      );
    }
    assert.ok(zipPlaces.lookupByName("Springfield", "IL").length > 10);
  });
});
