/**
 * A kept thumbnail of a waiting card is checked against what the card is drawn from without fetching
 * its home's picture (issue 41): with a paid imagery provider (Street View here, a fake on loopback), a
 * look at Mail's list costs no call to it; a card drawn with the placeholder because the provider
 * failed is shown but not kept, so the next look tries the provider again.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { queryOne, sql } from "../../src/db/database.ts";
import { THUMBNAIL_WIDTH } from "../../src/pieces/piece-proof.ts";
import { admin } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { home, queuePiece } from "../pipeline/helpers.ts";
import { cardImagesContext, SWEEP_DELAY_MS } from "./card-images-helpers.ts";

/**
 * An imagery provider on loopback, Google's Street View Static API or Mapbox's Static Images API:
 * Street View's metadata "OK", and one picture for every home; each call counted; `down` answers 503.
 */
async function fakeImagery() {
  const picture = await sharp({ create: { width: 640, height: 460, channels: 3, background: "#2f6f4f" } })
    .jpeg()
    .toBuffer();
  const state = { calls: 0, down: false };
  const server: Server = createServer((request, response) => {
    state.calls++;
    if (state.down) return response.writeHead(503).end();
    if (request.url?.startsWith("/metadata")) {
      return response.writeHead(200, { "content-type": "application/json" }).end('{"status":"OK"}');
    }
    response.writeHead(200, { "content-type": "image/jpeg" }).end(picture);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`app API: kept card images and the imagery provider (${databaseLabel})`, () => {
  let streetView: Awaited<ReturnType<typeof fakeImagery>>;
  let images: Awaited<ReturnType<typeof cardImagesContext>>;
  let piece: { id: string };

  before(async () => {
    streetView = await fakeImagery();
    images = await cardImagesContext("owner-imagery@example.com", {
      homeImagery: "streetview",
      googleMapsApiKey: "test-key",
      streetViewBaseUrl: streetView.baseUrl,
    });
    await images.requireApproval();
    piece = await queuePiece(images.ctx, images.org, home("301 Birch St"));
  });
  after(async () => {
    await images.ctx.close();
    await streetView.close();
  });

  const changeProfile = async (brandColor: string) => {
    const changed = await images.owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { brand_color: brandColor },
    });
    assert.equal(changed.status, 200, changed.text);
  };

  test("the sweep fetches the home's picture once to draw it; looks at the kept thumbnail fetch nothing", async () => {
    const calls = streetView.state.calls;
    assert.equal(await images.runThenSweep(), 1);
    assert.equal((await admin(images.ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    assert.equal(
      streetView.state.calls - calls,
      2,
      "one picture (metadata, then the image) fetched to draw the card",
    );
    const kept = (await images.kept(piece.id))!;

    const before = { calls: streetView.state.calls, draws: images.renderer.draws };
    for (let look = 0; look < 3; look++) {
      const answer = await images.thumbnail(piece.id);
      assert.equal(answer.statusCode, 200);
      assert.deepEqual(answer.rawPayload, kept.bytes);
    }
    assert.equal(streetView.state.calls, before.calls, "no picture fetched for a kept thumbnail");
    assert.equal(images.renderer.draws, before.draws);

    images.clock.advance(SWEEP_DELAY_MS);
    await changeProfile("#1d4ed8");
    await images.run();
    images.clock.advance(SWEEP_DELAY_MS);
    const redrawn = streetView.state.calls;
    await images.run();
    assert.equal(
      streetView.state.calls - redrawn,
      2,
      "a profile change: drawn again, its picture fetched once",
    );
    assert.notEqual((await images.kept(piece.id))!.cardKey, kept.cardKey);
  });

  test("a card drawn with the placeholder while the provider is down is shown, not kept; the next look draws it", async () => {
    await changeProfile("#b45309");
    const stale = (await images.kept(piece.id))!;
    streetView.state.down = true;
    try {
      const answer = await images.thumbnail(piece.id);
      assert.equal(answer.statusCode, 200, "the list still shows the card");
      assert.equal((await sharp(answer.rawPayload).metadata()).width, THUMBNAIL_WIDTH);
    } finally {
      streetView.state.down = false;
    }
    assert.equal(
      (await images.kept(piece.id))!.cardKey,
      stale.cardKey,
      "the placeholder's image is not kept",
    );

    images.clock.advance(61_000); // past the route's sharing of a drawing in flight
    const calls = streetView.state.calls;
    const answer = await images.thumbnail(piece.id);
    assert.equal(answer.statusCode, 200);
    assert.equal(streetView.state.calls - calls, 2);
    const now = (await images.kept(piece.id))!;
    assert.notEqual(now.cardKey, stale.cardKey);
    assert.deepEqual(now.bytes, answer.rawPayload);
  });
});

describe(`app API: a card awaiting approval shows the picture it prints with (${databaseLabel})`, () => {
  let mapbox: Awaited<ReturnType<typeof fakeImagery>>;
  let images: Awaited<ReturnType<typeof cardImagesContext>>;

  before(async () => {
    mapbox = await fakeImagery();
    images = await cardImagesContext("owner-mapbox@example.com", {
      homeImagery: "mapbox",
      mapboxToken: "test-token",
      mapboxBaseUrl: mapbox.baseUrl,
    });
    await images.requireApproval();
  });
  after(async () => {
    await images.ctx.close();
    await mapbox.close();
  });

  test("located before it waits: its thumbnail is Mapbox's picture, and once approved and printed it is final as drawn", async () => {
    const piece = await queuePiece(images.ctx, images.org, home("401 Cedar St"));
    assert.equal(await images.runThenSweep(), 1);
    assert.equal((await admin(images.ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    const located = await queryOne<{ latitude: number | null }>(
      images.ctx.database.db,
      sql`SELECT latitude FROM mail_pieces WHERE id = ${piece.id}::uuid`,
    );
    assert.notEqual(located?.latitude, null, "geocoded before it waits");
    assert.equal(mapbox.state.calls, 1, "the thumbnail was drawn from Mapbox's picture, not the placeholder");
    const approvedImage = (await images.kept(piece.id))!;

    const approved = await images.owner.browser.request("POST", `/app/api/v1/pieces/${piece.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(
      await images.runThenSweep(),
      0,
      "the picture printed is the one approved: nothing drawn again",
    );
    assert.equal((await admin(images.ctx, "GET", `/pieces/${piece.id}`)).body.status, "mailed");
    const final = (await images.kept(piece.id))!;
    assert.equal(final.cardKey, null);
    assert.deepEqual(final.bytes, approvedImage.bytes);
  });
});
