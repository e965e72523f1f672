import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeAddress, parseUsAddress } from "../../src/domain/address.ts";
import { sameHome } from "../../src/domain/same-home.ts";

const AMERICAS = "2 AVENUE OF THE AMERICAS, NEW YORK NY 10036";

/**
 * A street type opening a street's name ("Avenue of the Americas", "Avenue A", "Boulevard of the
 * Allies", "Mount Vernon", "Highway 61") is a word of the name, spelled in full (Publication 28),
 * however it is written; and the words after it are the street's, not the town.
 */
describe("a street name that opens with a street type", () => {
  it("keys every spelling of Avenue of the Americas alike", () => {
    for (const written of [
      "2 Avenue of the Americas, New York, NY 10036",
      "2 Ave of the Americas, New York NY 10036",
      "2 Ave. of the Americas, New York, NY 10036",
      "2 Av of the Americas, New York, NY 10036-1234",
      "2 avenue of the americas, new york, ny 10036",
      "2 AVE OF THE AMERICAS NEW YORK NY 10036",
      "2 Ave of the Americas, New York 10036",
    ]) {
      assert.equal(normalizeAddress(written), AMERICAS, written);
    }
  });

  it("reads the words after the type as the street's, not as the town (2 AVE, OF THE AMERICAS NY)", () => {
    assert.deepEqual(parseUsAddress("2 Ave of the Americas, NY 10036"), {
      street: "2 AVENUE OF THE AMERICAS",
      city: "",
      state: "NY",
      zip: "10036",
      country: "US",
    });
    assert.equal(normalizeAddress("2 Ave of the Americas NY 10036"), "2 AVENUE OF THE AMERICAS, NY 10036");
    assert.equal(normalizeAddress("2 Ave of the Americas, 10036"), "2 AVENUE OF THE AMERICAS, NY 10036");
    assert.equal(normalizeAddress("100 Avenue A, NY 10009"), "100 AVENUE A, NY 10009");
    assert.equal(normalizeAddress("100 Ave A NY 10009"), "100 AVENUE A, NY 10009");
    assert.equal(
      normalizeAddress("300 Blvd of the Allies, PA 15222"),
      "300 BOULEVARD OF THE ALLIES, PA 15222",
    );
    // A word of another language that is also a type abbreviation stays as written, in the street.
    assert.equal(normalizeAddress("5 Via Lido, CA 92663"), "5 VIA LIDO, CA 92663");
  });

  it("matches the forms with and without the town as one home", () => {
    const full = normalizeAddress("2 Avenue of the Americas, New York, NY 10036");
    for (const written of ["2 Ave of the Americas, NY 10036", "2 Ave of the Americas NY 10036"]) {
      assert.ok(sameHome(normalizeAddress(written), full), written);
    }
    assert.ok(
      sameHome(
        normalizeAddress("1500 Ave J, NY 11230"),
        normalizeAddress("1500 Avenue J, Brooklyn, NY 11230"),
      ),
    );
  });

  it("spells out the other types that open names, whatever abbreviation is written", () => {
    const same: [string, string][] = [
      ["100 Ave A, New York, NY 10009", "100 Avenue A, New York, NY 10009"],
      ["100 N Av B, New York, NY 10009", "100 North Avenue B, New York, NY 10009"],
      ["300 Blvd of the Allies, Pittsburgh, PA 15222", "300 Boulevard of the Allies, Pittsburgh, PA 15222"],
      ["100 Mt Vernon St, Boston, MA 02108", "100 Mount Vernon Street, Boston, MA 02108"],
      ["100 Ft Washington Ave, New York, NY 10032", "100 Fort Washington Avenue, New York, NY 10032"],
      ["100 Pt Loma Blvd, San Diego, CA 92107", "100 Point Loma Boulevard, San Diego, CA 92107"],
      ["100 Hwy 61, Hibbing, MN 55746", "100 Highway 61, Hibbing, MN 55746"],
      ["100 Rte 9, Poughkeepsie, NY 12601", "100 Route 9, Poughkeepsie, NY 12601"],
    ];
    for (const [abbreviated, full] of same) {
      assert.equal(normalizeAddress(abbreviated), normalizeAddress(full), abbreviated);
    }
    assert.equal(
      normalizeAddress("100 Mt Vernon St, Boston, MA 02108"),
      "100 MOUNT VERNON ST, BOSTON MA 02108",
    );
    assert.equal(normalizeAddress("100 Hwy 61, Hibbing, MN 55746"), "100 HIGHWAY 61, HIBBING MN 55746");
  });

  it("leaves a first word that means something else, a name that is one word, and the street's own type", () => {
    const unchanged: [string, string][] = [
      ["100 St Charles Ave, New Orleans, LA 70130", "100 ST CHARLES AVE, NEW ORLEANS LA 70130"],
      [
        "100 Dr Martin Luther King Jr Blvd, Tampa, FL 33602",
        "100 DR MARTIN LUTHER KING JR BLVD, TAMPA FL 33602",
      ],
      ["1200 La Jolla Blvd, La Jolla, CA 92037", "1200 LA JOLLA BLVD, LA JOLLA CA 92037"],
      ["10 Via Roma, Irvine, CA 92618", "10 VIA ROMA, IRVINE CA 92618"],
      ["10 Rue Royale, New Orleans, LA 70130", "10 RUE ROYALE, NEW ORLEANS LA 70130"],
      ["100 Calle Sol, San Juan, PR 00901", "100 CALLE SOL, SAN JUAN PR 00901"],
      ["100 Camino Real, Palo Alto, CA 94301", "100 CAMINO REAL, PALO ALTO CA 94301"],
      ["100 Centre Pointe Dr, Springfield, IL 62704", "100 CENTRE POINTE DR, SPRINGFIELD IL 62704"],
      ["100 Park Ave, New York, NY 10017", "100 PARK AVE, NEW YORK NY 10017"],
      ["100 Circle Dr, Springfield, IL 62704", "100 CIRCLE DR, SPRINGFIELD IL 62704"],
      ["350 Fifth Avenue, New York, NY 10118", "350 5TH AVE, NEW YORK NY 10118"],
      ["77 Mount Vernon Place, Baltimore, MD 21202", "77 MOUNT VERNON PL, BALTIMORE MD 21202"],
    ];
    for (const [written, key] of unchanged) assert.equal(normalizeAddress(written), key, written);
    // A street named only by a type keeps its town when the town is one.
    assert.equal(normalizeAddress("10 Loop Springfield IL 62704"), "10 LOOP, SPRINGFIELD IL 62704");
  });

  it("keeps different streets apart", () => {
    assert.notEqual(normalizeAddress("100 Avenue A, NY 10009"), normalizeAddress("100 Avenue B, NY 10009"));
    assert.notEqual(
      normalizeAddress("2 Avenue of the Americas, New York, NY 10036"),
      normalizeAddress("2 Americas Ave, New York, NY 10036"),
    );
  });
});
