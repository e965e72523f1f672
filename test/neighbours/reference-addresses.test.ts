import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import type { Database } from "../../src/db/database.ts";
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
  nearestHomes,
  ownHomeKeys,
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
      : statementSink(database, 500);
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
});
