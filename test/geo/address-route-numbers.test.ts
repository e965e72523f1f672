import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeAddress } from "../../src/domain/address.ts";

/**
 * A road named by its number or letters after a street type ("County Road 12", "State Highway 7",
 * "County Road JJ"): the number names the road, so it stays in the key however the town is set
 * off, and the type before it keys alike abbreviated or in full.
 */
describe("a road named by a number after its type", () => {
  it("keeps the route's number: County Road 12 and County Road 14 are two roads (both were 100 COUNTY RD)", () => {
    const keys = [
      "100 County Road 12, Springfield, IL 62704",
      "100 County Road 14, Springfield, IL 62704",
      "100 County Road JJ, Springfield, IL 62704",
    ].map(normalizeAddress);
    assert.deepEqual(keys, [
      "100 COUNTY ROAD 12, SPRINGFIELD IL 62704",
      "100 COUNTY ROAD 14, SPRINGFIELD IL 62704",
      "100 COUNTY ROAD JJ, SPRINGFIELD IL 62704",
    ]);
    assert.equal(
      normalizeAddress("100 State Route 9A, Albany, NY 12203"),
      "100 STATE ROUTE 9A, ALBANY NY 12203",
    );
    assert.equal(
      normalizeAddress("100 Farm to Market Road 1960, Houston, TX 77090"),
      "100 FARM TO MARKET ROAD 1960, HOUSTON TX 77090",
    );
  });

  it("keys every writing of the road alike: the type abbreviated or not, the town with or without commas or ZIP", () => {
    for (const written of [
      "100 County Road 12, Springfield, IL 62704",
      "100 County Rd 12, Springfield, IL 62704",
      "100 County Rd. 12, Springfield, IL 62704",
      "100 County Road 12 Springfield IL 62704",
    ]) {
      assert.equal(normalizeAddress(written), "100 COUNTY ROAD 12, SPRINGFIELD IL 62704", written);
    }
    assert.equal(
      normalizeAddress("100 County Road 12, Springfield, IL"),
      "100 COUNTY ROAD 12, SPRINGFIELD IL",
    );
    for (const written of ["100 US Highway 1, Jupiter, FL 33477", "100 US Hwy 1, Jupiter, FL 33477"]) {
      assert.equal(normalizeAddress(written), "100 US HIGHWAY 1, JUPITER FL 33477", written);
    }
    for (const written of ["100 Highway 7, Springfield, IL 62704", "100 Hwy 7, Springfield, IL 62704"]) {
      assert.equal(normalizeAddress(written), "100 HIGHWAY 7, SPRINGFIELD IL 62704", written);
    }
  });

  it("still drops a note after a street's own type, and keeps a street's unit and direction", () => {
    const unchanged: [string, string][] = [
      ["12 Main Street Garage, Springfield, IL", "12 MAIN ST, SPRINGFIELD IL"],
      ["12 Main St Apt 2, Springfield, IL 62704", "12 MAIN ST #2, SPRINGFIELD IL 62704"],
      ["12 Main St N, Springfield, IL 62704", "12 MAIN ST N, SPRINGFIELD IL 62704"],
      ["5 Loop 410, San Antonio, TX 78209", "5 LOOP 410, SAN ANTONIO TX 78209"],
      ["100 Avenue B, New York, NY 10009", "100 AVENUE B, NEW YORK NY 10009"],
      ["12 CR 45, Springfield, IL 62704", "12 CR 45, SPRINGFIELD IL 62704"],
    ];
    for (const [written, key] of unchanged) assert.equal(normalizeAddress(written), key, written);
  });
});
