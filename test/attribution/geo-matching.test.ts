import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  conversion,
  type FakeNominatim,
  nominatimGeocoder,
  placePiece,
  startFakeNominatim,
  trackingLead,
} from "./helpers.ts";

const DEAL = "400 W Capitol Ave, Springfield, IL 62701";
// The same house, written as the mail file had it (a different normalized key).
const MAILED = "400 West Capitol Avenue Rear House, Springfield, IL 62701";
const BASE = { lat: 39.8, lng: -89.65 };
/** Degrees of latitude per meter. */
const M = 1 / 111_320;

describe(`geo attribution with a Nominatim-format geocoder on loopback (${databaseLabel})`, () => {
  let ctx: TestContext;
  let wide: TestContext;
  let fake: FakeNominatim;
  const clock = fixedClock("2026-06-30T12:00:00Z");
  before(async () => {
    fake = await startFakeNominatim();
    ctx = await createTestContext({ clock, geocoder: nominatimGeocoder(fake.url) });
    wide = await createTestContext({
      clock,
      geocoder: nominatimGeocoder(fake.url),
      config: { attributionGeoRadiusMeters: 100 },
    });
  });
  after(async () => {
    await ctx.close();
    await wide.close();
    await fake.close();
  });

  async function mailAt(
    target: TestContext,
    orgId: string,
    address: string,
    mailedAt: string,
    point?: object,
  ) {
    const mailing = await recordMailing(target, orgId, [{ address, mailed_at: mailedAt }]);
    if (point) await placePiece(target, mailing.pieces[0]!.id, point as never);
    return mailing;
  }

  it("matches by point when both are rooftop within 30 m: method geo, confidence high", async () => {
    fake.answers.set(DEAL, { ...BASE, addresstype: "house" });
    const org = await createOrg(ctx);
    const mailing = await mailAt(ctx, org.orgId, MAILED, "2026-05-01T00:00:00Z", {
      lat: BASE.lat + 20 * M,
      lng: BASE.lng,
      precision: "rooftop",
    });
    const response = await conversion(ctx, org.key, { address: DEAL });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.campaign_id, mailing.campaign_id);
    assert.equal(response.body.match_method, "geo");
    assert.equal(response.body.match_confidence, "high");
    assert.ok(fake.requests.includes(DEAL));
  });

  it("answers medium confidence when a point is only street-precise", async () => {
    const address = "401 W Capitol Ave, Springfield, IL 62701";
    fake.answers.set(address, { ...BASE, addresstype: "road" });
    const org = await createOrg(ctx);
    await mailAt(ctx, org.orgId, MAILED, "2026-05-01T00:00:00Z", { ...BASE, precision: "rooftop" });
    const response = await conversion(ctx, org.key, { address });
    assert.equal(response.body.match_method, "geo");
    assert.equal(response.body.match_confidence, "medium");
  });

  it("ignores pieces beyond the radius, and postcode or locality points", async () => {
    fake.answers.set(DEAL, { ...BASE, addresstype: "house" });
    const org = await createOrg(ctx);
    await mailAt(ctx, org.orgId, MAILED, "2026-05-01T00:00:00Z", {
      lat: BASE.lat + 45 * M,
      lng: BASE.lng,
      precision: "rooftop",
    });
    await mailAt(ctx, org.orgId, "1 Centroid Rd, Springfield, IL 62701", "2026-05-02T00:00:00Z", {
      ...BASE,
      precision: "postcode",
    });
    assert.deepEqual((await conversion(ctx, org.key, { address: DEAL })).body, { matched: false });
  });

  it("uses the configured radius", async () => {
    fake.answers.set(DEAL, { ...BASE, addresstype: "house" });
    const org = await createOrg(wide);
    await mailAt(wide, org.orgId, MAILED, "2026-05-01T00:00:00Z", {
      lat: BASE.lat,
      lng: BASE.lng + (80 * M) / Math.cos((BASE.lat * Math.PI) / 180),
      precision: "rooftop",
    });
    const response = await conversion(wide, org.key, { address: DEAL });
    assert.equal(response.body.match_method, "geo");
  });

  it("geo decides before the address: its latest candidate wins even if an address match is later", async () => {
    fake.answers.set(DEAL, { ...BASE, addresstype: "house" });
    const org = await createOrg(ctx);
    const near = await mailAt(ctx, org.orgId, MAILED, "2026-03-01T00:00:00Z", {
      ...BASE,
      precision: "rooftop",
    });
    const nearer = await mailAt(ctx, org.orgId, MAILED, "2026-04-01T00:00:00Z", {
      lat: BASE.lat + 5 * M,
      lng: BASE.lng,
      precision: "street",
    });
    await mailAt(ctx, org.orgId, DEAL, "2026-05-01T00:00:00Z");
    const response = await conversion(ctx, org.key, { address: DEAL });
    assert.equal(response.body.match_method, "geo");
    assert.equal(response.body.campaign_id, nearer.campaign_id);
    assert.notEqual(response.body.campaign_id, near.campaign_id);
  });

  it("falls back to the normalized address while a piece has no point yet", async () => {
    fake.answers.set(DEAL, { ...BASE, addresstype: "house" });
    const org = await createOrg(ctx);
    const mailing = await mailAt(
      ctx,
      org.orgId,
      "400 West Capitol Avenue, Springfield, IL 62701",
      "2026-05-01T00:00:00Z",
    );
    const response = await conversion(ctx, org.key, { address: DEAL });
    assert.equal(response.body.campaign_id, mailing.campaign_id);
    assert.equal(response.body.match_method, "address");
  });

  it("falls back to the normalized address when the geocoder errs or finds nothing", async () => {
    const failing = "402 W Capitol Ave, Springfield, IL 62701";
    const unknown = "403 W Capitol Ave, Springfield, IL 62701";
    fake.answers.set(failing, "error");
    fake.answers.set(unknown, "empty");
    const org = await createOrg(ctx);
    const a = await mailAt(ctx, org.orgId, failing, "2026-05-01T00:00:00Z", {
      ...BASE,
      precision: "rooftop",
    });
    const b = await mailAt(ctx, org.orgId, unknown, "2026-05-01T00:00:00Z", {
      ...BASE,
      precision: "rooftop",
    });
    const erred = await conversion(ctx, org.key, { address: failing });
    assert.equal(erred.status, 200, erred.text);
    assert.equal(erred.body.campaign_id, a.campaign_id);
    assert.equal(erred.body.match_method, "address");
    const missing = await trackingLead(ctx, org.key, { address: unknown, email: "x@example.com" });
    assert.equal(missing.body.campaign_id, b.campaign_id);
  });

  it("falls back to the normalized address when the geocoder is unreachable", async () => {
    const down = await startFakeNominatim();
    await down.close();
    const offline = await createTestContext({ clock, geocoder: nominatimGeocoder(down.url, 500) });
    try {
      const org = await createOrg(offline);
      const mailing = await mailAt(offline, org.orgId, DEAL, "2026-05-01T00:00:00Z");
      const response = await conversion(offline, org.key, { address: DEAL });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.campaign_id, mailing.campaign_id);
    } finally {
      await offline.close();
    }
  });

  it("never matches another organization's piece at the same point", async () => {
    fake.answers.set(DEAL, { ...BASE, addresstype: "house" });
    const mailer = await createOrg(ctx);
    const other = await createOrg(ctx);
    await mailAt(ctx, mailer.orgId, DEAL, "2026-05-01T00:00:00Z", { ...BASE, precision: "rooftop" });
    assert.deepEqual((await conversion(ctx, other.key, { address: DEAL })).body, { matched: false });
  });
});
