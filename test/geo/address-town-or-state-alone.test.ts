import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeAddress } from "../../src/domain/address.ts";

/**
 * An address written with a state but neither a ZIP nor a town the table knows after the street:
 * "2 Ave of the Americas, NY" (a name opening with a street type) and "100 Main St West Springfield
 * MA" (a town whose first word is a direction). Each keys as the home a person means, the same as
 * its other writings.
 */
describe("a street name that opens with a street type, before a state alone", () => {
  it("keys every writing as the street, in the state (it was 2 AVE, OF THE AMERICAS NY)", () => {
    for (const written of [
      "2 Ave of the Americas, NY",
      "2 Avenue of the Americas, NY",
      "2 Ave of the Americas NY",
      "2 Avenue of the Americas NY",
      "2 Ave. of the Americas, NY",
      "2 Av of the Americas, New York",
    ]) {
      assert.equal(normalizeAddress(written), "2 AVENUE OF THE AMERICAS, NY", written);
    }
    assert.equal(normalizeAddress("100 Ave A, NY"), "100 AVENUE A, NY");
    assert.equal(normalizeAddress("300 Blvd of the Allies PA"), "300 BOULEVARD OF THE ALLIES, PA");
    assert.equal(normalizeAddress("5 Via Lido, CA"), "5 VIA LIDO, CA");
  });

  it("keys as the same street as with the ZIP", () => {
    const withZip = normalizeAddress("2 Ave of the Americas, NY 10036");
    assert.equal(withZip, "2 AVENUE OF THE AMERICAS, NY 10036");
    assert.equal(`${normalizeAddress("2 Ave of the Americas, NY")} 10036`, withZip);
  });

  it("keeps a town the state has, a town set off by a comma, and a street's own type", () => {
    const unchanged: [string, string][] = [
      ["10 Loop Springfield IL", "10 LOOP, SPRINGFIELD IL"],
      ["10 Park Chicago IL", "10 PARK, CHICAGO IL"],
      ["10 Park, Foo, IL", "10 PARK, FOO IL"],
      ["2 Ave of the Americas, New York, NY", "2 AVENUE OF THE AMERICAS, NEW YORK NY"],
      ["2 Ave of the Americas New York NY", "2 AVENUE OF THE AMERICAS, NEW YORK NY"],
      ["10 Park Ave, IL", "10 PARK AVE, IL"],
      ["12 Main Street, TX", "12 MAIN ST, TX"],
      ["10 Ct Center TX", "10 CT, CENTER TX"],
      ["12 Oak St Center TX", "12 OAK ST, CENTER TX"],
      ["10 Park Row NY", "10 PARK ROW, NY"],
    ];
    for (const [written, key] of unchanged) assert.equal(normalizeAddress(written), key, written);
  });
});

describe("a town whose first word is a direction, after a street's type, without a ZIP", () => {
  it("reads the town of the state, not a direction of the street (it was 100 MAIN ST W, SPRINGFIELD MA)", () => {
    for (const written of [
      "100 Main St West Springfield MA",
      "100 Main Street West Springfield MA",
      "100 Main St West Springfield, MA",
      "100 Main St, West Springfield, MA",
    ]) {
      assert.equal(normalizeAddress(written), "100 MAIN ST, WEST SPRINGFIELD MA", written);
    }
    assert.equal(normalizeAddress("100 Main St East Orange NJ"), "100 MAIN ST, EAST ORANGE NJ");
    assert.equal(normalizeAddress("100 Main St North Adams MA"), "100 MAIN ST, NORTH ADAMS MA");
    assert.equal(
      normalizeAddress("100 Main St West Springfield MA 01089"),
      "100 MAIN ST, WEST SPRINGFIELD MA 01089",
    );
  });

  it("keeps the direction the street's where a comma sets it off, it is abbreviated, or the town is none", () => {
    const unchanged: [string, string][] = [
      ["100 Main St W, Springfield MA", "100 MAIN ST W, SPRINGFIELD MA"],
      ["100 Main St West, Springfield MA", "100 MAIN ST W, SPRINGFIELD MA"],
      ["100 Main St W Springfield MA", "100 MAIN ST W, SPRINGFIELD MA"],
      ["100 Main St West Foo MA", "100 MAIN ST W, FOO MA"],
      // No West Springfield in Illinois: Main St West, Springfield.
      ["100 Main St West Springfield IL", "100 MAIN ST W, SPRINGFIELD IL"],
      ["100 Main St W West Springfield MA", "100 MAIN ST W, WEST SPRINGFIELD MA"],
      // The ZIP decides: 01103 is Springfield's.
      ["100 Main St West Springfield MA 01103", "100 MAIN ST W, SPRINGFIELD MA 01103"],
      ["100 Main St, Springfield, MA", "100 MAIN ST, SPRINGFIELD MA"],
      ["100 Broadway Garage, Long Beach, CA", "100 BROADWAY GARAGE, LONG BEACH CA"],
    ];
    for (const [written, key] of unchanged) assert.equal(normalizeAddress(written), key, written);
  });
});
