import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import type { Database } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import {
  type AddressSink,
  loadAddressFile,
  postgresCopySink,
  statementSink,
} from "../../src/neighbours/load-addresses.ts";
import {
  countReferenceAddresses,
  distanceM,
  findReferenceHome,
  insertReferenceAddresses,
  nearestHomes,
  numberedAddressKey,
  ownHomeKeys,
  type ReferenceAddress,
  referenceAddressOf,
} from "../../src/neighbours/reference-addresses.ts";
import { csvLineOf, syntheticCsvLines, syntheticHome } from "../../src/neighbours/synthetic-neighbourhood.ts";
import { databaseLabel, openTestDatabase, TEST_DATABASE_URL } from "../helpers/harness.ts";

const dir = mkdtempSync(path.join(tmpdir(), "porchlight-addresses-test-"));
const writeCsv = (name: string, text: string | Buffer) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe(`reference addresses (${databaseLabel})`, () => {
  let database: Database;
  let schema: string | undefined;
  let drop: () => Promise<void>;
  // The loader's way on this database: COPY on PostgreSQL, batched statements on PGlite.
  const sink = async (): Promise<AddressSink> =>
    TEST_DATABASE_URL
      ? postgresCopySink(TEST_DATABASE_URL, { ...(schema ? { searchPath: schema } : {}), batchSize: 500 })
      : statementSink(database, { batchSize: 500 });
  const load = async (file: string) => {
    const target = await sink();
    try {
      return await loadAddressFile(file, { sink: target });
    } finally {
      await target.close();
    }
  };

  before(async () => {
    ({ database, schema, drop } = await openTestDatabase());
  });
  after(async () => drop());

  test("loads a file, rejects bad rows with their reasons, and a second load adds nothing", async () => {
    const good = [...syntheticCsvLines(1200)].join("");
    const bad = [
      "abc,39.77,1,Main St,,Springfield,,IL,62704", // longitude not a number
      "-89.6,95,1,Main St,,Springfield,,IL,62704", // latitude out of range
      "-89.6,39.7,,Main St,,Springfield,,IL,62704", // no house number
      "-89.6,39.7,12,,,Springfield,,IL,62704", // no street
      "-89.6,39.7,12,Main St,,,,IL,", // no city, no ZIP
      '-89.6,39.7,12,"Main St,,Springfield,,IL,62704', // an unterminated quote swallows the rest
    ].join("\n");
    const file = writeCsv("mixed.csv", `${good}${csvLineOf(syntheticHome(5))}\n${bad}\n`);
    const first = await load(file);
    assert.equal(first.added, 1200);
    assert.equal(first.duplicates, 1, "a repeated line is one home");
    assert.deepEqual(first.rejectedByReason, {
      "bad coordinates": 2,
      "no house number": 1,
      "no street": 1,
      "no city or ZIP": 1,
      "malformed CSV line": 1,
    });
    assert.equal(first.rows, 1207);
    assert.equal(await countReferenceAddresses(database.db), 1200);

    const second = await load(file);
    assert.equal(second.added, 0);
    assert.equal(second.duplicates, 1201);
    assert.equal(await countReferenceAddresses(database.db), 1200);
  });

  test("reads a gzipped file, whatever its name", async () => {
    const lines = [...syntheticCsvLines(1500)].join("");
    const report = await load(writeCsv("county.csv.data", gzipSync(lines)));
    assert.equal(report.rows, 1500);
    assert.equal(report.added, 300, "the first 1200 homes are already loaded");
    assert.equal(report.rejected, 0);
  });

  test("keys a home with the suppression key, so a CRM's spelling finds it", async () => {
    const home = await findReferenceHome(database.db, "742 EVERGREEN TER, SPRINGFIELD IL");
    assert.equal(home?.normalizedAddress, "742 EVERGREEN TER, SPRINGFIELD IL 62704");
    const verdict = referenceAddressOf({ ...syntheticHome(42), UNIT: "Apt 4" });
    assert.ok("address" in verdict);
    assert.equal(verdict.address.normalizedAddress, "742 EVERGREEN TER #4, SPRINGFIELD IL 62704");
  });

  test("the per-street memo gives the key function's key for every number of a street", () => {
    const numbers = fc.oneof(
      fc.integer({ min: 1, max: 999_999 }).map(String),
      fc.integer({ min: 1, max: 99 }).map(String),
      fc.constantFrom("12 1/2", "12A", "N123W456", "0", "007", "12-14", "1/2", "99999", "10001", "62704"),
    );
    const streets = fc.constantFrom(
      "Evergreen Terrace",
      "N Main St",
      "Main St NW",
      "North Main Street",
      "S.W. 1st Avenue",
      "1st Ave",
      "Avenue of the Americas",
      "Broadway",
      "Rue de la Paix",
      "State Highway 9",
      "County Road 12",
      "Route 66",
      "St Louis Street",
      "Peñasco Road",
      "Way",
      "East",
      "Apt",
      "Street",
    );
    const units = fc.constantFrom(
      "",
      "Apt 4",
      "#4",
      "Unit B",
      "Rear",
      "Ste 200",
      "Apt 12 1/2",
      "Lot 7",
      "Fl 3",
    );
    const localities = fc.constantFrom(
      ", Springfield, IL 62704",
      ", Springfield, IL",
      ", Springfield",
      ", IL 62704",
      ", 62704",
      ", New York, NY 10001",
      ", New York 10001",
      ", St. Louis, MO 63101",
      ", Long Island City, NY 11101",
      ", Washington 20500",
      ", San José, CA 95112",
      ", Rancho Santa Margarita, CA 92688-1234",
      ", Chicago 60601",
    );
    fc.assert(
      fc.property(
        fc.array(numbers, { minLength: 2, maxLength: 6 }),
        streets,
        units,
        localities,
        (numbersOnStreet, street, unit, locality) => {
          const rest = ` ${[street, unit].filter(Boolean).join(" ")}${locality}`;
          for (const number of numbersOnStreet) {
            assert.equal(numberedAddressKey(number, rest), normalizeAddress(number + rest), number + rest);
          }
        },
      ),
      { numRuns: 400 },
    );
    // Every home of the generated neighbourhood, as the loader keys it.
    for (let index = 0; index < 3000; index += 7) {
      const home = syntheticHome(index);
      const verdict = referenceAddressOf(home);
      assert.ok("address" in verdict);
      const line = `${home.NUMBER} ${home.STREET}, ${home.CITY}, ${home.REGION} ${home.POSTCODE}`;
      assert.equal(verdict.address.normalizedAddress, normalizeAddress(line));
    }
  });

  test("the nearest query equals a brute-force ranking of every home", async () => {
    const homes = Array.from({ length: 1500 }, (_, index) => {
      const verdict = referenceAddressOf(syntheticHome(index));
      assert.ok("address" in verdict);
      return verdict.address;
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: homes.length - 1 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 20, max: 900 }).map((metres) => metres + 0.37),
        fc.double({ min: -0.002, max: 0.002, noNaN: true }),
        async (origin, count, radiusM, jitter) => {
          const centre = homes[origin]!;
          const latitude = centre.latitude + jitter;
          const longitude = centre.longitude - jitter;
          const excludeKeys = ownHomeKeys(centre.normalizedAddress);
          const found = await nearestHomes(database.db, { latitude, longitude, count, radiusM, excludeKeys });
          const expected = homes
            .filter((home) => !excludeKeys.includes(home.normalizedAddress))
            .map((home) => ({
              home,
              distance: distanceM(latitude, longitude, home.latitude, home.longitude),
            }))
            .filter((entry) => entry.distance <= radiusM)
            .sort(
              (a, b) =>
                a.distance - b.distance || (a.home.normalizedAddress < b.home.normalizedAddress ? -1 : 1),
            )
            .slice(0, count);
          // Distances equal to the float's last bits may order differently in SQL: compare by distance.
          assert.equal(found.length, expected.length);
          found.forEach((home, index) => {
            assert.ok(Math.abs(home.distanceM - expected[index]!.distance) < 1e-6);
          });
          assert.ok(!found.some((home) => excludeKeys.includes(home.normalizedAddress)));
        },
      ),
      { numRuns: 60 },
    );
  });

  test("the nearest query is exact at other latitudes and at the radius's edge", async () => {
    // Homes scattered around points from the equator to the Arctic (far from the generated grid).
    const centres = [
      { latitude: 0.5, longitude: 10, street: "Alder Street" },
      { latitude: -33.9, longitude: 18.4, street: "Beech Street" },
      { latitude: 60.2, longitude: 24.9, street: "Cypress Street" },
      { latitude: 71, longitude: 25.8, street: "Dogwood Street" },
    ];
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const metresPerDegree = (Math.PI / 180) * 6_371_008.8;
    const groups = centres.map((centre) => {
      const cosine = Math.cos((centre.latitude * Math.PI) / 180);
      const points = Array.from({ length: 400 }, () => ({
        latitude: centre.latitude + ((random() - 0.5) * 1600) / metresPerDegree,
        longitude: centre.longitude + ((random() - 0.5) * 1600) / (metresPerDegree * cosine),
      }));
      // Exactly 300 m north, south, east and west of the centre (the box's edges).
      const dLat = 300 / metresPerDegree;
      const dLon = (Math.asin(Math.sin(300 / 6_371_008.8) / cosine) * 180) / Math.PI;
      points.push(
        { latitude: centre.latitude + dLat, longitude: centre.longitude },
        { latitude: centre.latitude - dLat, longitude: centre.longitude },
        { latitude: centre.latitude, longitude: centre.longitude + dLon },
        { latitude: centre.latitude, longitude: centre.longitude - dLon },
      );
      return points.map((point, index): ReferenceAddress => {
        const verdict = referenceAddressOf({
          LON: point.longitude.toFixed(9),
          LAT: point.latitude.toFixed(9),
          NUMBER: String(index + 1),
          STREET: centre.street,
          CITY: "Testville",
          REGION: "IL",
          POSTCODE: "62704",
        });
        assert.ok("address" in verdict);
        return verdict.address;
      });
    });
    for (const homes of groups) await insertReferenceAddresses(database, homes);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: centres.length - 1 }),
        fc.option(fc.integer({ min: 0, max: 399 }), { nil: undefined }),
        fc.integer({ min: 0, max: 403 }),
        fc.integer({ min: 1, max: 80 }),
        fc.constantFrom(-1e-4, 1e-4),
        async (group, from, edge, count, delta) => {
          const homes = groups[group]!;
          // From the centre or from a home; the radius just inside or outside another home.
          const origin = from === undefined ? centres[group]! : homes[from]!;
          const { latitude, longitude } = origin;
          const radiusM =
            Math.max(distanceM(latitude, longitude, homes[edge]!.latitude, homes[edge]!.longitude), 1) +
            delta;
          const found = await nearestHomes(database.db, {
            latitude,
            longitude,
            count,
            radiusM,
            excludeKeys: [],
          });
          const expected = homes
            .map((home) => distanceM(latitude, longitude, home.latitude, home.longitude))
            .filter((distance) => distance <= radiusM)
            .sort((a, b) => a - b)
            .slice(0, count);
          assert.equal(found.length, expected.length);
          found.forEach((home, index) => {
            assert.ok(Math.abs(home.distanceM - expected[index]!) < 1e-6);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  test("the nearest query reads more when homes nearer in degrees are farther on the ground", async () => {
    // At 60° N a degree of longitude is half one of latitude: homes 25-45 m due north and south
    // come before, in degrees, homes 20 m due east, which are nearer on the ground. The first read
    // holds only the north-south homes; the answer must still be the eastern ones first.
    const centre = { latitude: 60.5, longitude: 30 };
    const metresPerDegree = (Math.PI / 180) * 6_371_008.8;
    const cosine = Math.cos((centre.latitude * Math.PI) / 180);
    const points = [
      ...Array.from({ length: 80 }, (_, index) => 25 + index * 0.25).flatMap((metres) => [
        { latitude: centre.latitude + metres / metresPerDegree, longitude: centre.longitude },
        { latitude: centre.latitude - metres / metresPerDegree, longitude: centre.longitude },
      ]),
      ...Array.from({ length: 6 }, (_, index) => ({
        latitude: centre.latitude + (index - 2.5) / metresPerDegree,
        longitude: centre.longitude + 20 / (metresPerDegree * cosine),
      })),
    ];
    const homes = points.map((point, index): ReferenceAddress => {
      const verdict = referenceAddressOf({
        LON: point.longitude.toFixed(9),
        LAT: point.latitude.toFixed(9),
        NUMBER: String(index + 1),
        STREET: "Elm Street",
        CITY: "Northville",
        REGION: "IL",
        POSTCODE: "62704",
      });
      assert.ok("address" in verdict);
      return verdict.address;
    });
    await insertReferenceAddresses(database, homes);
    for (const count of [1, 3, 6, 7, 12, 40]) {
      const found = await nearestHomes(database.db, { ...centre, count, radiusM: 60, excludeKeys: [] });
      const expected = homes
        .map((home) => distanceM(centre.latitude, centre.longitude, home.latitude, home.longitude))
        .sort((a, b) => a - b)
        .slice(0, count);
      assert.deepEqual(
        found.map((home) => Math.round(home.distanceM * 1000)),
        expected.map((distance) => Math.round(distance * 1000)),
        `nearest ${count}`,
      );
    }
  });
});
