import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeAddress } from "../../src/domain/address.ts";
import { keyParts, keysOfSameHome, sameHome } from "../../src/domain/same-home.ts";

const same = (a: string, b: string) => sameHome(normalizeAddress(a), normalizeAddress(b));

describe("same home across address keys with more or less locality", () => {
  it("reads a key's street, city, state and ZIP", () => {
    assert.deepEqual(keyParts("10 MAIN ST #5, ST LOUIS MO 63101"), {
      street: "10 MAIN ST #5",
      city: "ST LOUIS",
      state: "MO",
      zip: "63101",
    });
    assert.deepEqual(keyParts("10 MAIN ST"), { street: "10 MAIN ST", city: "", state: "", zip: "" });
  });

  it("matches when one key lacks the ZIP or the city and the rest agrees", () => {
    assert.ok(same("2004 Pine Rd, Springfield, IL", "2004 Pine Road, Springfield, IL 62704"));
    assert.ok(same("2005 Birch Blvd, 62704", "2005 Birch Boulevard, Springfield, IL 62704"));
    assert.ok(same("1 A St, Austin TX 78701", "1 A Street, Austin, TX 78701"));
    // A missing city is read from the other's ZIP: 62704 is Springfield, IL.
    assert.ok(same("2004 Pine Rd, Springfield, IL", "2004 Pine Rd, 62704"));
    // ...but a ZIP's city never contradicts the city written (Hollywood's ZIPs are Los Angeles').
    assert.ok(same("10 Main St, Hollywood, CA 90028", "10 Main St, CA 90028"));
  });

  it("lists every key the same home can be stored under, for an index lookup", () => {
    assert.deepEqual(keysOfSameHome(normalizeAddress("600 Touch Ln, 62704")).sort(), [
      "600 TOUCH LN, IL 62704",
      "600 TOUCH LN, SPRINGFIELD IL",
      "600 TOUCH LN, SPRINGFIELD IL 62704",
    ]);
    const fromCity = keysOfSameHome(normalizeAddress("600 Touch Ln, Springfield, IL"));
    assert.ok(fromCity.includes("600 TOUCH LN, SPRINGFIELD IL 62704"));
    assert.ok(fromCity.includes("600 TOUCH LN, IL 62704"));
    assert.ok(fromCity.length <= 401, "bounded by the ZIPs of one city");
    assert.deepEqual(keysOfSameHome("600 TOUCH LN"), ["600 TOUCH LN"]);
  });

  it("never matches another town, another unit, or a street with nothing in common", () => {
    assert.ok(!same("10 Main St, 62704", "10 Main St, Chicago IL 60601"));
    assert.ok(!same("10 Main St, Springfield IL", "10 Main St, Springfield MO"));
    assert.ok(!same("10 Main St Apt 5, Springfield IL 62704", "10 Main St, Springfield IL 62704"));
    assert.ok(!same("10 Main St", "10 Main St, Springfield IL 62704"));
    assert.ok(!same("10 Main St, IL", "10 Main St, Springfield IL 62704"));
    assert.ok(!same("2004 Pine Rd, Chicago, IL", "2004 Pine Rd, 62704"));
  });
});
