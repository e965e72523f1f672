/**
 * Mail's thumbnails of waiting cards are drawn ahead (issue 41): a card that starts to wait queues
 * its organization's sweep, which keeps its front thumbnail with the key of the card it drew; the
 * list then reads it from the database, until the profile changes what the card prints.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { keepPieceImage } from "../../src/pieces/piece-images.ts";
import { THUMBNAIL_WIDTH } from "../../src/pieces/piece-proof.ts";
import { admin } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { home, queuePiece } from "../pipeline/helpers.ts";
import { cardImagesContext, SWEEP_DELAY_MS } from "./card-images-helpers.ts";

describe(`app API: waiting cards' thumbnails drawn ahead (${databaseLabel})`, () => {
  let images: Awaited<ReturnType<typeof cardImagesContext>>;
  let pieces: { id: string }[];

  before(async () => {
    images = await cardImagesContext("owner-waiting@example.com");
    await images.requireApproval();
    pieces = [];
    for (const street of ["101 Oak St", "102 Oak St", "103 Oak St"]) {
      pieces.push(await queuePiece(images.ctx, images.org, home(street)));
    }
  });
  after(() => images.ctx.close());

  test("cards that start to wait queue one sweep for their organization, which keeps their thumbnails", async () => {
    await images.run();
    for (const piece of pieces) {
      assert.equal((await admin(images.ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    }
    assert.equal((await images.sweeps("pending")).length, 1, "three cards, one sweep");
    assert.equal(await images.kept(pieces[0]!.id), undefined, "the sweep waits for the burst to end");

    images.clock.advance(SWEEP_DELAY_MS);
    const before = images.renderer.draws;
    await images.run();
    assert.equal((await images.sweeps("done")).length, 1);
    assert.equal(images.renderer.draws - before, 3, "one drawing per waiting card");
    for (const piece of pieces) {
      const image = await images.kept(piece.id);
      assert.ok(image, `piece ${piece.id}'s thumbnail is kept`);
      assert.match(image.cardKey ?? "", /^[0-9a-f]{64}$/);
      assert.equal((await sharp(image.bytes).metadata()).width, THUMBNAIL_WIDTH);
    }
  });

  test("the list reads a kept thumbnail: no drawing, no rate limit spent", async () => {
    const counted = await images.proofsCounted();
    const before = images.renderer.draws;
    for (const piece of pieces) {
      const answer = await images.thumbnail(piece.id);
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers["cache-control"], "private, max-age=60");
      assert.deepEqual(answer.rawPayload, (await images.kept(piece.id))!.bytes);
    }
    assert.equal(images.renderer.draws, before, "nothing drawn");
    assert.equal(await images.proofsCounted(), counted + 1, "no card image counted against the limit");
  });

  test("a profile change draws a new image on the next look, kept with its new key, and queues a sweep", async () => {
    const [first] = pieces;
    const old = (await images.kept(first!.id))!;
    const oldKeys = await Promise.all(pieces.map(async (piece) => (await images.kept(piece.id))!.cardKey));
    const changed = await images.owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Harbor Exteriors", brand_color: "#b91c1c" },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await images.sweeps("pending")).length, 1);

    let before = images.renderer.draws;
    const answer = await images.thumbnail(first!.id);
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.headers["cache-control"], "private, max-age=60");
    assert.notDeepEqual(answer.rawPayload, old.bytes, "the card shows the new profile");
    assert.equal(images.renderer.draws - before, 1);
    const now = (await images.kept(first!.id))!;
    assert.notEqual(now.cardKey, old.cardKey);
    assert.deepEqual(now.bytes, answer.rawPayload, "what was drawn is what is kept");
    const again = await images.thumbnail(first!.id);
    assert.deepEqual(again.rawPayload, answer.rawPayload);
    assert.equal(images.renderer.draws - before, 1, "the second look reads it");

    // The sweep draws the others again, not the one the list drew already.
    images.clock.advance(SWEEP_DELAY_MS);
    before = images.renderer.draws;
    await images.run();
    assert.equal(images.renderer.draws - before, 2);
    assert.equal((await images.kept(first!.id))!.cardKey, now.cardKey);
    for (const [i, piece] of pieces.entries()) {
      assert.notEqual(
        (await images.kept(piece.id))!.cardKey,
        oldKeys[i],
        `piece ${i} is drawn with the new profile`,
      );
    }
  });

  test("concurrent looks at an image being drawn all get it; concurrent keeps never fail", async () => {
    const [, second] = pieces;
    const changed = await images.owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { brand_color: "#0f766e" },
    });
    assert.equal(changed.status, 200, changed.text);
    const before = images.renderer.draws;
    const answers = await Promise.all(Array.from({ length: 8 }, () => images.thumbnail(second!.id)));
    for (const answer of answers) {
      assert.equal(answer.statusCode, 200);
      assert.deepEqual(answer.rawPayload, answers[0]!.rawPayload);
    }
    assert.equal(images.renderer.draws - before, 1, "one drawing shared");
    assert.deepEqual((await images.kept(second!.id))!.bytes, answers[0]!.rawPayload);

    // Two API processes drawing the same image at once: both keep it, neither fails.
    const image = { orgId: images.org.orgId, pieceId: second!.id, side: "back", size: "full" } as const;
    const png = answers[0]!.rawPayload;
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => keepPieceImage(images.ctx.database.db, image, png, `k${i}`)),
    );
    assert.match((await images.kept(second!.id, "back"))!.cardKey ?? "", /^k[0-3]$/);
  });

  test("a printed card's image is final: kept without a key, immutable, the same after a profile change", async () => {
    const [, , third] = pieces;
    // Drawn ahead (the sweep after the last profile change), then approved and printed.
    images.clock.advance(SWEEP_DELAY_MS);
    await images.run();
    const waiting = (await images.kept(third!.id))!;
    const approved = await images.owner.browser.request("POST", `/app/api/v1/pieces/${third!.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    await images.run();
    assert.equal((await admin(images.ctx, "GET", `/pieces/${third!.id}`)).body.status, "mailed");

    let before = images.renderer.draws;
    const printed = await images.thumbnail(third!.id);
    assert.equal(printed.statusCode, 200);
    assert.equal(printed.headers["cache-control"], "private, max-age=31536000, immutable");
    assert.deepEqual(printed.rawPayload, waiting.bytes, "the image drawn ahead is the printed card's");
    assert.equal(images.renderer.draws, before, "nothing drawn");
    assert.equal((await images.kept(third!.id))!.cardKey, null, "final");

    const changed = await images.owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Someone Else Roofing" },
    });
    assert.equal(changed.status, 200, changed.text);
    before = images.renderer.draws;
    const later = await images.thumbnail(third!.id);
    assert.equal(later.headers["cache-control"], "private, max-age=31536000, immutable");
    assert.deepEqual(later.rawPayload, waiting.bytes);
    assert.equal(images.renderer.draws, before);
  });

  test("a sweep that cannot draw leaves the card waiting as it was, and the list draws it", async () => {
    const piece = await queuePiece(images.ctx, images.org, home("104 Oak St"));
    await images.run();
    assert.equal((await admin(images.ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    images.renderer.down = true;
    images.clock.advance(SWEEP_DELAY_MS);
    try {
      await images.run();
    } finally {
      images.renderer.down = false;
    }
    assert.equal((await images.sweeps("pending")).length, 0);
    assert.equal((await images.sweeps("failed")).length, 0, "a card not drawn ahead is no failure");
    assert.equal(await images.kept(piece.id), undefined);
    assert.equal((await admin(images.ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    const answer = await images.thumbnail(piece.id);
    assert.equal(answer.statusCode, 200);
    assert.deepEqual((await images.kept(piece.id))!.bytes, answer.rawPayload);
  });
});
