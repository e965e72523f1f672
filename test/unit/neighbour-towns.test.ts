import assert from "node:assert/strict";
import { describe, test } from "node:test";
import zipcodes from "zipcodes";
import {
  checkAddressOffline,
  offlineAddressProblems,
  type VerificationLevel,
  writtenAddressOf,
} from "../../src/domain/deliverable-address.ts";
import { isNeighbourTown, NEIGHBOUR_TOWN_MILES } from "../../src/domain/neighbour-towns.ts";
import { zipPlaces } from "../../src/domain/zip-places.ts";

const check = (line: string, level: VerificationLevel) =>
  checkAddressOffline(writtenAddressOf(line, {}), level);

/** The city's name on its neighbourhoods' ZIPs, each of which the ZIP table names otherwise. */
const CITY_FOR_ITS_NEIGHBOURHOOD: [line: string, zipPlace: string][] = [
  ["12 Oak St, Boston, MA 02134", "Allston"],
  ["12 Oak St, Boston, MA 02135", "Brighton"],
  ["12 Oak St, Boston, MA 02124", "Dorchester Center"],
  ["12 Oak St, Boston, MA 02136", "Hyde Park"],
  ["12 Oak St, Boston, MA 02137", "Readville"],
  ["500 Court St, New York, NY 11231", "Brooklyn"],
  ["3000 Surf Ave, New York, NY 11224", "Brooklyn"],
  ["12 Oak St, New York, NY 10451", "Bronx"],
  ["12 Oak St, New York, NY 11432", "Jamaica"],
  ["12 Oak St, Los Angeles, CA 91401", "Van Nuys"],
  ["12 Oak St, Los Angeles, CA 91403", "Sherman Oaks"],
  ["12 Oak St, Houston, TX 77373", "Spring"],
];

/** A known town of the ZIP's state far from the ZIP: a wrong address. */
const FAR_TOWNS: [line: string, words: string][] = [
  ["12 Oak St, Chicago, IL 62704", "ZIP 62704 is in Springfield, not Chicago"],
  ["12 Oak St, Springfield, IL 60601", "ZIP 60601 is in Chicago, not Springfield"],
  ["100 Main St, Austin, TX 75201", "ZIP 75201 is in Dallas, not Austin"],
  ["12 Oak St, Boston, MA 01103", "ZIP 01103 is in Springfield, not Boston"],
  // Just beyond the distance: Staten Island's south shore (18 mi), Los Angeles's outer Valley (10.3).
  ["12 Oak St, New York, NY 10307", "ZIP 10307 is in Staten Island, not New York"],
  ["12 Oak St, Los Angeles, CA 91324", "ZIP 91324 is in Northridge, not Los Angeles"],
];

const EARTH_RADIUS_MILES = 3958.8;
function milesBetween(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
) {
  const r = (degrees: number) => (degrees * Math.PI) / 180;
  const h =
    Math.sin(r(b.latitude - a.latitude) / 2) ** 2 +
    Math.cos(r(a.latitude)) * Math.cos(r(b.latitude)) * Math.sin(r(b.longitude - a.longitude) / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.sqrt(h));
}

describe("a known town written beside its ZIP (the city's name for its neighbourhoods' ZIPs)", () => {
  test("passes at normal (the default) and relaxed; strict still wants the ZIP's own place", () => {
    for (const [line, zipPlace] of CITY_FOR_ITS_NEIGHBOURHOOD) {
      const zip = line.slice(-5);
      assert.equal(zipPlaces.lookup(zip)?.city, zipPlace, `the table names ${zip} ${zipPlace}`);
      assert.deepEqual(check(line, "normal"), { deliverable: true }, line);
      assert.deepEqual(check(line, "relaxed"), { deliverable: true }, line);
      const city = line.split(", ")[1];
      assert.deepEqual(check(line, "strict"), {
        deliverable: false,
        reason: `ZIP ${zip} is in ${zipPlace}, not ${city}`,
      });
    }
    // Hollywood's 90028 is Los Angeles's own in the table: it passed already, and still does.
    for (const level of ["strict", "normal", "relaxed"] as const) {
      assert.deepEqual(check("6801 Hollywood Blvd, Los Angeles, CA 90028", level), { deliverable: true });
    }
  });

  test("a far known town still fails at normal and strict, in the same words; relaxed lets the ZIP decide", () => {
    for (const [line, words] of FAR_TOWNS) {
      for (const level of ["normal", "strict"] as const) {
        assert.deepEqual(check(line, level), { deliverable: false, reason: words }, `${line} at ${level}`);
      }
      assert.deepEqual(check(line, "relaxed"), { deliverable: true }, line);
    }
    assert.deepEqual(
      offlineAddressProblems({ street: "12 Oak St", city: "Chicago", state: "IL", zip: "62704" }, "normal"),
      [{ part: "zip", words: "ZIP 62704 is in Springfield, not Chicago" }],
      "the ZIP is the part to correct",
    );
  });

  test("the ZIP's state still decides first: a neighbour across a state line is refused", () => {
    // Jersey City's 07302 is 1.7 mi from a New York ZIP, but in NJ.
    assert.deepEqual(check("12 Oak St, New York, NY 07302", "normal"), {
      deliverable: false,
      reason: "ZIP 07302 is in NJ, not NY",
    });
  });

  test("a neighbour is a town with a ZIP centroid within the distance, as the whole table measures it", () => {
    assert.equal(NEIGHBOUR_TOWN_MILES, 10);
    // Every ZIP of these states against towns big and small, near and far, by a plain nearest distance.
    const towns: [string, string][] = [
      ["Boston", "MA"],
      ["Cambridge", "MA"],
      ["Springfield", "MA"],
      ["New York", "NY"],
      ["Brooklyn", "NY"],
      ["Buffalo", "NY"],
      ["Los Angeles", "CA"],
      ["San Francisco", "CA"],
      ["Anchorage", "AK"],
      ["Adak", "AK"],
      ["Honolulu", "HI"],
    ];
    let near = 0;
    let far = 0;
    for (const [town, state] of towns) {
      const own = zipPlaces.lookupByName(town, state);
      assert.ok(own.length > 0, `${town}, ${state} is in the table`);
      for (const place of Object.values(zipcodes.codes).filter((code) => code.state === state)) {
        const nearest = Math.min(...own.map((ownPlace) => milesBetween(place, ownPlace)));
        const expected = nearest <= NEIGHBOUR_TOWN_MILES;
        assert.equal(isNeighbourTown(town, place), expected, `${town} and ${place.zip} (${nearest} mi)`);
        if (expected) near++;
        else far++;
      }
    }
    assert.ok(near > 300 && far > 3000, `${near} near, ${far} far`);
  });

  test("a ZIP without a centroid (the military's, at 0,0 in the table) is near no town", () => {
    const apo = zipPlaces.lookup("09002")!;
    assert.deepEqual([apo.latitude, apo.longitude], [0, 0]);
    assert.equal(isNeighbourTown("Dpo", apo), false);
    assert.equal(check("Unit 2050 Box 4190, Dpo, AE 09002", "normal").deliverable, false);
  });

  test("is cheap enough for every card and every CSV row: 100,000 checks of the biggest towns well within a second", () => {
    const [brooklyn, springfield] = [zipPlaces.lookup("11224")!, zipPlaces.lookup("62704")!];
    isNeighbourTown("Houston", springfield);
    const started = performance.now();
    for (let index = 0; index < 25_000; index++) {
      isNeighbourTown("New York", brooklyn);
      isNeighbourTown("Houston", springfield);
      isNeighbourTown("Chicago", springfield);
      isNeighbourTown("Los Angeles", brooklyn);
    }
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1000, `${elapsed.toFixed(0)} ms`);
  });
});
