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

  it("keeps the route's number and the state before a state alone: Highway 61 and Highway 55 are two roads (both were 100 HIGHWAY)", () => {
    const keys = [
      "100 Highway 61 MN",
      "100 Highway 55 MN",
      "100 County Road 12 IL",
      "100 County Road 14 IL",
      "100 County Road JJ WI",
      "100 State Route 9A OH",
      "100 US Hwy 1 FL",
      "100 Route 66 IL",
      "100 Highway 61 Apt 4 MN",
      "100 N Highway 61 MN",
    ].map(normalizeAddress);
    assert.deepEqual(keys, [
      "100 HIGHWAY 61, MN",
      "100 HIGHWAY 55, MN",
      "100 COUNTY ROAD 12, IL",
      "100 COUNTY ROAD 14, IL",
      "100 COUNTY ROAD JJ, WI",
      "100 STATE ROUTE 9A, OH",
      "100 US HIGHWAY 1, FL",
      "100 ROUTE 66, IL",
      "100 HIGHWAY 61 #4, MN",
      "100 N HIGHWAY 61, MN",
    ]);
  });

  it("keys every writing of a road before a state alone alike: Hwy or Highway, comma or not, the state's code or name", () => {
    for (const written of [
      "100 Highway 61 MN",
      "100 Highway 61, MN",
      "100 Hwy 61 MN",
      "100 Hwy 61, MN",
      "100 Hwy. 61 MN",
      "100 Highway 61 Minnesota",
      "100 Highway 61, Minnesota",
    ]) {
      assert.equal(normalizeAddress(written), "100 HIGHWAY 61, MN", written);
    }
    for (const written of ["100 US Highway 1, FL", "100 US Hwy 1 FL", "100 US Hwy 1, Florida"]) {
      assert.equal(normalizeAddress(written), "100 US HIGHWAY 1, FL", written);
    }
    for (const written of ["100 County Road 12 IL", "100 County Rd 12, IL", "100 County Rd 12 Illinois"]) {
      assert.equal(normalizeAddress(written), "100 COUNTY ROAD 12, IL", written);
    }
    // A state code that is also a street type (Court, Lane) is the state after a route's number.
    assert.equal(normalizeAddress("100 Hwy 61 CT"), "100 HIGHWAY 61, CT");
    assert.equal(normalizeAddress("100 County Road 12 LA"), "100 COUNTY ROAD 12, LA");
  });

  it("leaves a road before a state with a town or a ZIP, or with a direction after its number, as it was", () => {
    const unchanged: [string, string][] = [
      ["100 Highway 61, St Paul, MN", "100 HIGHWAY 61, SAINT PAUL MN"],
      ["100 Highway 61 MN 55101", "100 HIGHWAY 61, MN 55101"],
      ["100 Highway 61 N MN", "100 HIGHWAY 61, N MN"],
      ["7 Main St W IL", "7 MAIN ST, W IL"],
      ["2 Ave of the Americas, NY", "2 AVENUE OF THE AMERICAS, NY"],
      ["100 Avenue B NY", "100 AVENUE B, NY"],
    ];
    for (const [written, key] of unchanged) assert.equal(normalizeAddress(written), key, written);
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
