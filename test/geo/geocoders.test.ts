import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { sql } from "../../src/db/database.ts";
import { createCensusGeocoder, parseCsvLine } from "../../src/geo/census.ts";
import { GeocoderFailedError, GeocoderUnavailableError } from "../../src/geo/geocoder.ts";
import { createGeocoder } from "../../src/geo/index.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createNominatimGeocoder } from "../../src/geo/nominatim.ts";
import { openTestDatabase } from "../helpers/harness.ts";
import {
  censusOneLine,
  type FakeGeocoderServer,
  nominatimPlace,
  refusedUrl,
  startFakeGeocoder,
} from "./fake-geocoder.ts";

const remote = (baseUrl: string, overrides: { timeoutMs?: number; concurrency?: number } = {}) => ({
  baseUrl,
  timeoutMs: overrides.timeoutMs ?? 2000,
  concurrency: overrides.concurrency ?? 4,
  userAgent: "porchlight-test",
});

describe("local geocoder", () => {
  const local = createLocalGeocoder();

  it("places an address with a ZIP at its ZIP centroid, precision postcode", async () => {
    const result = await local.geocode("123 N Main St #4 Springfield IL 62701-1234");
    assert.ok(result.found);
    assert.equal(result.precision, "postcode");
    assert.ok(Math.abs(result.lat - 39.8) < 0.2 && Math.abs(result.lng + 89.65) < 0.2);
    assert.equal(result.parts.zip, "62701");
    assert.equal(result.parts.street, "123 N MAIN ST #4");
  });

  it("places an address without ZIP at its city centroid, precision locality", async () => {
    const result = await local.geocode("12 Lake Shore Drive, Chicago IL");
    assert.ok(result.found);
    assert.equal(result.precision, "locality");
    assert.ok(Math.abs(result.lat - 41.85) < 0.3);
  });

  it("never claims rooftop or street precision", async () => {
    const results = await local.geocodeMany([
      "1600 Pennsylvania Ave NW, Washington, DC 20500",
      "350 5th Ave New York NY 10118",
      "4 Oak Rd Austin TX",
    ]);
    for (const result of results) {
      assert.ok(result.found);
      assert.ok(result.precision === "postcode" || result.precision === "locality");
    }
  });

  it("answers not found for an address it cannot place", async () => {
    assert.deepEqual(await local.geocode("the old mill behind the church"), { found: false });
    assert.deepEqual(await local.geocode("1 Main St, Nowhere, ZZ 00000"), { found: false });
  });
});

describe("nominatim geocoder against a fake Nominatim on loopback", () => {
  let fake: FakeGeocoderServer;
  before(async () => {
    fake = await startFakeGeocoder(() => ({ status: 200, body: [] }));
  });
  after(() => fake.close());

  it("sends the documented query and maps a house to rooftop precision", async () => {
    fake.setHandler(() => ({
      status: 200,
      body: [
        nominatimPlace(39.80171, -89.64371, "building", {
          house_number: "123",
          road: "North Main Street",
          city: "Springfield",
          postcode: "62701",
          "ISO3166-2-lvl4": "US-IL",
        }),
      ],
    }));
    const geocoder = createNominatimGeocoder(remote(`${fake.url}/`));
    const result = await geocoder.geocode("123 North Main Street Apt 4, Springfield, IL 62701");
    const request = fake.requests.at(-1)!;
    assert.equal(request.path, "/search");
    assert.equal(request.query.get("q"), "123 North Main Street Apt 4, Springfield, IL 62701");
    assert.equal(request.query.get("format"), "jsonv2");
    assert.equal(request.query.get("addressdetails"), "1");
    assert.equal(request.query.get("limit"), "1");
    assert.equal(request.query.get("countrycodes"), "us");
    assert.deepEqual(result, {
      found: true,
      lat: 39.80171,
      lng: -89.64371,
      precision: "rooftop",
      parts: {
        street: "123 N MAIN ST #4",
        city: "SPRINGFIELD",
        state: "IL",
        zip: "62701",
        country: "US",
      },
    });
  });

  it("maps addresstype road to street, postcode to postcode, a city to locality", async () => {
    const geocoder = createNominatimGeocoder(remote(fake.url));
    for (const [addresstype, precision] of [
      ["road", "street"],
      ["postcode", "postcode"],
      ["city", "locality"],
      ["house", "rooftop"],
    ] as const) {
      fake.setHandler(() => ({ status: 200, body: [nominatimPlace(40, -75, addresstype)] }));
      const result = await geocoder.geocode("1 Main St, Somewhere, PA 19103");
      assert.ok(result.found);
      assert.equal(result.precision, precision, addresstype);
    }
  });

  it("completes missing locality parts from the answer", async () => {
    fake.setHandler(() => ({
      status: 200,
      body: [
        nominatimPlace(40, -75, "building", {
          city: "Philadelphia",
          postcode: "19103-1111",
          "ISO3166-2-lvl4": "US-PA",
        }),
      ],
    }));
    const result = await createNominatimGeocoder(remote(fake.url)).geocode("1 Main St");
    assert.ok(result.found);
    assert.deepEqual(result.parts, {
      street: "1 MAIN ST",
      city: "PHILADELPHIA",
      state: "PA",
      zip: "19103",
      country: "US",
    });
  });

  it("answers not found on an empty list", async () => {
    fake.setHandler(() => ({ status: 200, body: [] }));
    assert.deepEqual(await createNominatimGeocoder(remote(fake.url)).geocode("nowhere"), { found: false });
  });

  it("throws GeocoderFailedError on a 5xx or a body that is not the expected JSON", async () => {
    const geocoder = createNominatimGeocoder(remote(fake.url));
    fake.setHandler(() => ({ status: 500, body: { error: "boom" } }));
    await assert.rejects(geocoder.geocode("1 Main St"), GeocoderFailedError);
    fake.setHandler(() => ({ status: 200, body: "<html>", contentType: "text/html" }));
    await assert.rejects(geocoder.geocode("1 Main St"), GeocoderFailedError);
    fake.setHandler(() => ({ status: 200, body: { not: "a list" } }));
    await assert.rejects(geocoder.geocode("1 Main St"), GeocoderFailedError);
  });

  it("throws GeocoderUnavailableError when throttled, timing out, or refused", async () => {
    fake.setHandler(() => ({ status: 429, body: [] }));
    await assert.rejects(
      createNominatimGeocoder(remote(fake.url)).geocode("1 Main St"),
      GeocoderUnavailableError,
    );
    fake.setHandler(() => "hang");
    await assert.rejects(
      createNominatimGeocoder(remote(fake.url, { timeoutMs: 150 })).geocode("1 Main St"),
      GeocoderUnavailableError,
    );
    await assert.rejects(
      createNominatimGeocoder(remote(await refusedUrl())).geocode("1 Main St"),
      GeocoderUnavailableError,
    );
  });

  it("keeps at most GEOCODER_CONCURRENCY requests in flight and answers in input order", async () => {
    const local = await startFakeGeocoder(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const n = Number(/^(\d+)/.exec(request.query.get("q") ?? "")?.[1]);
      return { status: 200, body: [nominatimPlace(40 + n / 1000, -75, "building")] };
    });
    try {
      const addresses = Array.from({ length: 30 }, (_, n) => `${n} Main St, Philadelphia, PA 19103`);
      const results = await createNominatimGeocoder(remote(local.url, { concurrency: 3 })).geocodeMany(
        addresses,
      );
      assert.equal(local.requests.length, 30);
      assert.ok(local.maxInFlight <= 3, `max in flight ${local.maxInFlight}`);
      assert.ok(local.maxInFlight >= 2, "requests ran concurrently");
      results.forEach((result, n) => {
        assert.ok(result.found);
        assert.equal(result.lat, 40 + n / 1000);
      });
    } finally {
      await local.close();
    }
  });
});

describe("census geocoder against a fake census API on loopback", () => {
  let fake: FakeGeocoderServer;
  before(async () => {
    fake = await startFakeGeocoder(() => ({ status: 200, body: censusOneLine() }));
  });
  after(() => fake.close());

  it("geocodes one address through the one-line endpoint at street precision", async () => {
    fake.setHandler(() => ({
      status: 200,
      body: censusOneLine({
        lat: 39.8017,
        lng: -89.6437,
        matchedAddress: "123 N MAIN ST, SPRINGFIELD, IL, 62701",
      }),
    }));
    const result = await createCensusGeocoder(remote(fake.url)).geocode("123 N Main St, Springfield IL");
    const request = fake.requests.at(-1)!;
    assert.equal(request.path, "/locations/onelineaddress");
    assert.equal(request.query.get("benchmark"), "Public_AR_Current");
    assert.equal(request.query.get("format"), "json");
    assert.ok(result.found);
    assert.equal(result.precision, "street");
    assert.equal(result.lat, 39.8017);
    assert.equal(result.lng, -89.6437);
    assert.equal(result.parts.zip, "62701");
  });

  it("answers not found when the census has no match", async () => {
    fake.setHandler(() => ({ status: 200, body: censusOneLine() }));
    assert.deepEqual(await createCensusGeocoder(remote(fake.url)).geocode("nowhere"), { found: false });
  });

  it("sends many addresses through the batch API and maps Match / No_Match / Tie by id", async () => {
    fake.requests.length = 0;
    fake.setHandler((request) => {
      // The census echoes each line's id; the street number tells the fake which answer to give.
      const lines = [...request.body.matchAll(/^"(\d+)","(\d+) /gm)].map(([, id, street]) => {
        const n = Number(street);
        if (n % 3 === 0) {
          return `"${id}","in","Match","Exact","${n} MAIN ST, PHILADELPHIA, PA, 19103","-75.1,${39 + n / 100}","1","L"`;
        }
        return n % 3 === 1 ? `"${id}","in","No_Match"` : `"${id}","in","Tie"`;
      });
      return { status: 200, body: lines.reverse().join("\n"), contentType: "text/csv" };
    });
    const addresses = Array.from({ length: 1200 }, (_, n) => `${n} Main St, Philadelphia, PA 19103`);
    const results = await createCensusGeocoder(remote(fake.url)).geocodeMany(addresses);
    assert.equal(fake.requests.length, 2, "1200 addresses in two batch requests of at most 1000");
    assert.ok(fake.requests.every((request) => request.path === "/locations/addressbatch"));
    assert.match(fake.requests[0]!.body, /name="benchmark"\r\n\r\nPublic_AR_Current/);
    results.forEach((result, n) => {
      if (n % 3 === 0) {
        assert.ok(result.found);
        assert.equal(result.lat, 39 + n / 100);
        assert.equal(result.precision, "street");
      } else assert.deepEqual(result, { found: false });
    });
  });

  it("types batch and one-line failures", async () => {
    const geocoder = createCensusGeocoder(remote(fake.url));
    fake.setHandler(() => ({ status: 400, body: { errors: ["bad"], status: "400" } }));
    await assert.rejects(geocoder.geocode("1 Main St"), GeocoderFailedError);
    fake.setHandler(() => ({ status: 502, body: "bad gateway", contentType: "text/plain" }));
    await assert.rejects(geocoder.geocodeMany(["1 Main St", "2 Main St"]), GeocoderFailedError);
    fake.setHandler(() => ({ status: 200, body: `"77","in","No_Match"`, contentType: "text/csv" }));
    await assert.rejects(geocoder.geocodeMany(["1 Main St", "2 Main St"]), GeocoderFailedError);
    await assert.rejects(
      createCensusGeocoder(remote(await refusedUrl())).geocodeMany(["1 Main St", "2 Main St"]),
      GeocoderUnavailableError,
    );
  });

  it("reads quoted CSV fields with commas and doubled quotes", () => {
    assert.deepEqual(parseCsvLine(`"1","12 ""A"" St, X","Match",,"-75.1,39.2"`), [
      "1",
      '12 "A" St, X',
      "Match",
      "",
      "-75.1,39.2",
    ]);
  });
});

describe("geocode cache", () => {
  let fake: FakeGeocoderServer;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  before(async () => {
    fake = await startFakeGeocoder(() => ({ status: 200, body: [] }));
    database = await openTestDatabase();
  });
  after(async () => {
    await fake.close();
    await database.drop();
  });

  const nominatim = () =>
    createGeocoder(
      {
        geocoder: "nominatim",
        geocoderUrl: fake.url,
        geocoderConcurrency: 4,
        geocoderTimeoutMs: 2000,
        publicBaseUrl: "http://porchlight.test",
      },
      { db: database.database.db, logger: pino({ level: "silent" }) },
    );

  it("asks the geocoder once per normalized address, hits and misses alike", async () => {
    fake.requests.length = 0;
    fake.setHandler((request) =>
      /Elm/.test(request.query.get("q") ?? "")
        ? { status: 200, body: [] }
        : { status: 200, body: [nominatimPlace(39.8, -89.6, "building")] },
    );
    const geocoder = nominatim();
    const first = await geocoder.geocodeMany([
      "123 North Main Street Apt 4, Springfield, IL 62701",
      "123 N Main St #4 Springfield IL 62701-1234",
      "9 Elm St, Springfield, IL 62701",
    ]);
    assert.equal(fake.requests.length, 2, "two distinct keys, two requests");
    assert.ok(first[0]!.found && first[1]!.found);
    assert.deepEqual(first[2], { found: false });

    const again = await nominatim().geocode("123 n. main st., apt 4, springfield il 62701");
    assert.deepEqual(again, first[0]);
    assert.deepEqual(await nominatim().geocode("9 ELM STREET SPRINGFIELD IL 62701"), { found: false });
    assert.equal(fake.requests.length, 2, "answered from geocode_cache");
    const rows = await database.database.db.execute(sql`SELECT count(*)::int AS n FROM geocode_cache`);
    assert.equal((rows as unknown as { rows: { n: number }[] }).rows[0]!.n, 2);
  });

  it("never caches an error", async () => {
    fake.requests.length = 0;
    fake.setHandler(() => ({ status: 500, body: {} }));
    await assert.rejects(nominatim().geocode("1 Oak Rd, Austin TX 78701"), GeocoderFailedError);
    fake.setHandler(() => ({ status: 200, body: [nominatimPlace(30.27, -97.74, "road")] }));
    const result = await nominatim().geocode("1 Oak Rd, Austin TX 78701");
    assert.ok(result.found);
    assert.equal(result.precision, "street");
    assert.equal(fake.requests.length, 2);
  });

  it("uses the local adapter without a cache when GEOCODER=local", () => {
    const local = createGeocoder(
      {
        geocoder: "local",
        geocoderUrl: undefined,
        geocoderConcurrency: 4,
        geocoderTimeoutMs: 2000,
        publicBaseUrl: "http://porchlight.test",
      },
      { db: database.database.db, logger: pino({ level: "silent" }) },
    );
    assert.equal(local.provider, "local");
  });
});
