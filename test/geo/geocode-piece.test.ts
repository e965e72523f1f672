import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { queryOne, sql } from "../../src/db/database.ts";
import { GeocoderUnavailableError } from "../../src/geo/geocoder.ts";
import { createNominatimGeocoder } from "../../src/geo/nominatim.ts";
import { geocodePieceHandler } from "../../src/pieces/process-piece.ts";
import { createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { type FakeGeocoderServer, nominatimPlace, startFakeGeocoder } from "./fake-geocoder.ts";

describe(`the geocode_piece job (${databaseLabel})`, () => {
  let ctx: TestContext;
  let fake: FakeGeocoderServer;
  before(async () => {
    fake = await startFakeGeocoder((request) =>
      /Nowhere/.test(request.query.get("q") ?? "")
        ? { status: 200, body: [] }
        : { status: 200, body: [nominatimPlace(39.80171, -89.64371, "building")] },
    );
    ctx = await createTestContext();
  });
  after(async () => {
    await ctx.close();
    await fake.close();
  });

  const geocoder = () =>
    createNominatimGeocoder({ baseUrl: fake.url, timeoutMs: 1000, concurrency: 2, userAgent: "test" });
  /** Runs the geocode_piece job for one piece, as a worker would. */
  const geocodeJob = (orgId: string, pieceId: string) =>
    geocodePieceHandler({ db: ctx.database.db, geocoder: geocoder(), logger: pino({ level: "silent" }) }).run(
      { org_id: orgId, piece_id: pieceId },
      { jobId: randomUUID(), orgId, attempt: 1, signal: new AbortController().signal },
    );
  const point = (orgId: string, pieceId: string) =>
    queryOne<{ latitude: number | null; longitude: number | null; geo_precision: string | null }>(
      ctx.database.db,
      sql`SELECT latitude, longitude, geo_precision FROM mail_pieces WHERE org_id = ${orgId} AND id = ${pieceId}`,
    );

  it("fills a mailed piece's latitude, longitude and precision", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [{ address: "123 N Main St, Springfield IL 62701" }]);
    const pieceId = mailing.pieces[0]!.id;
    await geocodeJob(org.orgId, pieceId);
    assert.deepEqual(await point(org.orgId, pieceId), {
      latitude: 39.80171,
      longitude: -89.64371,
      geo_precision: "rooftop",
    });
  });

  it("leaves the point empty when the address is not found, and ignores another org's piece", async () => {
    const org = await createOrg(ctx);
    const other = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [{ address: "1 Nowhere Rd, Springfield IL 62701" }]);
    const pieceId = mailing.pieces[0]!.id;
    await geocodeJob(org.orgId, pieceId);
    assert.deepEqual(await point(org.orgId, pieceId), {
      latitude: null,
      longitude: null,
      geo_precision: "not_found",
    });
    // Another org naming this piece finds nothing to geocode.
    fake.setHandler(() => ({ status: 200, body: [nominatimPlace(1, 2, "building")] }));
    await geocodeJob(other.orgId, pieceId);
    assert.equal((await point(org.orgId, pieceId))?.latitude, null);
  });

  it("lets a geocoder outage propagate so the job retries", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [{ address: "5 Elm St, Springfield IL 62701" }]);
    fake.setHandler(() => ({ status: 429, body: [] }));
    await assert.rejects(geocodeJob(org.orgId, mailing.pieces[0]!.id), GeocoderUnavailableError);
  });
});
