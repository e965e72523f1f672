import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { splitPieceAddress } from "../../src/leads/address-split.ts";

const oneLine = (address: string) => {
  const split = splitPieceAddress({ address, street: null, city: null, state: null, zip: null });
  return [split.street, split.city, split.state, split.postal_code];
};

describe("a lead's address fields from a one-line piece address", () => {
  it("keeps the street as written, with its unit wherever the unit was written", () => {
    assert.deepEqual(oneLine("742 Evergreen Terrace"), ["742 Evergreen Terrace", "", "", ""]);
    assert.deepEqual(oneLine("742 Evergreen Terrace Springfield IL 62704"), [
      "742 Evergreen Terrace",
      "Springfield",
      "IL",
      "62704",
    ]);
    assert.deepEqual(oneLine("Apt 5, 10 Main St, Springfield, IL 62704"), [
      "10 Main St Apt 5",
      "Springfield",
      "IL",
      "62704",
    ]);
    assert.deepEqual(oneLine("10 Main St, Apt 5, Springfield, IL 62704"), [
      "10 Main St Apt 5",
      "Springfield",
      "IL",
      "62704",
    ]);
    assert.deepEqual(oneLine("10 Springfield Rd, Springfield, IL 62704"), [
      "10 Springfield Rd",
      "Springfield",
      "IL",
      "62704",
    ]);
  });

  it("reads a locality without a state, and no city where the street type was read as one", () => {
    assert.deepEqual(oneLine("Unit 5, 10 Main St, Smalltown 99999"), [
      "10 Main St Unit 5",
      "Smalltown",
      "",
      "99999",
    ]);
    // The street type is not the city; the ZIP names it.
    assert.deepEqual(oneLine("12 Main Street, TX 73301"), ["12 Main Street", "Austin", "TX", "73301"]);
  });

  it("spells the city as the address does, accents included", () => {
    assert.deepEqual(oneLine("5 Rue Dr, São Paulo, TX 75001"), ["5 Rue Dr", "São Paulo", "TX", "75001"]);
  });

  it("fills a missing city and state from the ZIP", () => {
    assert.deepEqual(oneLine("5 Oak St, 62704"), ["5 Oak St", "Springfield", "IL", "62704"]);
    const split = splitPieceAddress({
      address: "5 Oak St, 62704",
      street: "5 Oak St",
      city: null,
      state: null,
      zip: "62704",
    });
    assert.deepEqual([split.city, split.state], ["Springfield", "IL"]);
  });

  it("prefers the parts stored with the piece", () => {
    const split = splitPieceAddress({ address: "x", street: "1 A St", city: "B", state: "TX", zip: null });
    assert.deepEqual([split.street, split.city, split.state, split.postal_code], ["1 A St", "B", "TX", ""]);
  });
});
