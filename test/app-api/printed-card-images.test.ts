/**
 * A printed card's list thumbnail is drawn with its print files (issue 41): kept final (no key) in
 * the transaction that records the hand-over to the printer, before anyone looks; the list then
 * reads it from the database, and the browser keeps it for good. Nothing draws it again.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import sharp from "sharp";
import { sql } from "../../src/db/database.ts";
import { createJobCatalog, handleJob } from "../../src/jobs/job-kind.ts";
import { drawCardImagesJob } from "../../src/jobs/kinds.ts";
import { claimJobs, enqueueJob } from "../../src/jobs/queue.ts";
import { THUMBNAIL_WIDTH } from "../../src/pieces/piece-proof.ts";
import { admin } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { home, queuePiece } from "../pipeline/helpers.ts";
import { cardImagesContext, SWEEP_DELAY_MS } from "./card-images-helpers.ts";

const PRINTED_CARD_CACHING = "private, max-age=31536000, immutable";

describe(`app API: printed cards' thumbnails drawn ahead (${databaseLabel})`, () => {
  let images: Awaited<ReturnType<typeof cardImagesContext>>;
  let printed: { id: string }[];

  before(async () => {
    images = await cardImagesContext("owner-printed@example.com");
    printed = [];
    for (const street of ["201 Elm St", "202 Elm St", "203 Elm St"]) {
      printed.push(await queuePiece(images.ctx, images.org, home(street)));
    }
  });
  after(() => images.ctx.close());

  const statusOf = async (pieceId: string) =>
    (await admin(images.ctx, "GET", `/pieces/${pieceId}`)).body.status;

  test("cards printed are kept with their thumbnails and previews, drawn with their print files; no sweep is queued for them", async () => {
    await images.run();
    assert.equal(images.renderer.printThumbnails, 3, "one thumbnail drawn with each card's print files");
    assert.equal(images.renderer.printPreviews, 6, "and both sides' previews");
    assert.equal(images.renderer.draws, 0, "no card composed again to draw them");
    for (const piece of printed) {
      assert.equal(await statusOf(piece.id), "mailed");
      const image = await images.kept(piece.id);
      assert.ok(image, `piece ${piece.id}'s thumbnail is kept`);
      assert.equal(image.cardKey, null, "final");
      assert.equal((await sharp(image.bytes).metadata()).width, THUMBNAIL_WIDTH);
      for (const side of ["front", "back"]) {
        const preview = await images.kept(piece.id, side);
        assert.ok(preview, `piece ${piece.id}'s ${side} preview is kept`);
        assert.equal(preview.cardKey, null, "final");
        assert.match(gunzipSync(preview.bytes).toString("utf8"), /^<svg /);
      }
    }
    assert.equal(
      (await images.sweeps("pending")).length,
      0,
      "no sweep: every card printed kept its thumbnail, and none has follow-ups to draw ahead",
    );
  });

  test("the list serves a printed card's thumbnail drawn ahead as immutable: no drawing, no rate limit spent", async () => {
    const counted = await images.proofsCounted();
    const before = images.renderer.draws;
    for (const piece of printed) {
      const answer = await images.thumbnail(piece.id);
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers["cache-control"], PRINTED_CARD_CACHING);
      assert.deepEqual(answer.rawPayload, (await images.kept(piece.id))!.bytes);
    }
    assert.equal(images.renderer.draws, before, "nothing drawn");
    assert.equal(await images.proofsCounted(), counted + 1, "no card image counted against the limit");
  });

  test("a printed card's page serves the previews drawn with its print files, gzipped as kept: no drawing", async () => {
    const before = images.renderer.draws;
    for (const piece of printed) {
      const page = await images.owner.browser.request("GET", `/app/api/v1/pieces/${piece.id}`);
      for (const [side, url] of [
        ["front", page.body.front_url],
        ["back", page.body.back_url],
      ] as const) {
        const answer = await images.look(url);
        assert.equal(answer.statusCode, 200);
        assert.equal(answer.headers["content-type"], "image/svg+xml");
        assert.equal(answer.headers["cache-control"], PRINTED_CARD_CACHING);
        assert.deepEqual(answer.rawPayload, (await images.kept(piece.id, side))!.bytes);
      }
    }
    assert.equal(images.renderer.draws, before, "nothing drawn");
  });

  test("a later card is drawn at its print; final images are never drawn again", async () => {
    const finals = await Promise.all(printed.map(async (piece) => (await images.kept(piece.id))!.bytes));
    const piece = await queuePiece(images.ctx, images.org, home("204 Elm St"));
    const printedBefore = images.renderer.printThumbnails;
    assert.equal(await images.runThenSweep(), 0, "the sweep draws nothing");
    assert.equal(
      images.renderer.printThumbnails - printedBefore,
      1,
      "the new card only, with its print files",
    );
    assert.equal(await statusOf(piece.id), "mailed");
    assert.equal((await images.kept(piece.id))!.cardKey, null);
    for (const [i, earlier] of printed.entries()) {
      assert.deepEqual(
        (await images.kept(earlier.id))!.bytes,
        finals[i],
        `piece ${i}'s final image is untouched`,
      );
    }
  });

  test("a profile change queues a sweep that leaves printed cards as they were printed", async () => {
    const finals = await Promise.all(printed.map(async (piece) => (await images.kept(piece.id))!.bytes));
    const changed = await images.owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Harbor Exteriors", brand_color: "#b91c1c" },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await images.sweeps("pending")).length, 1);
    assert.equal(await images.runThenSweep(), 0, "nothing drawn");
    for (const [i, piece] of printed.entries()) {
      const image = (await images.kept(piece.id))!;
      assert.equal(image.cardKey, null);
      assert.deepEqual(image.bytes, finals[i]);
    }
  });

  test("a card whose thumbnail could not be drawn with its print files is printed all the same; the sweep draws it", async () => {
    images.renderer.printImagesDown = true;
    const piece = await queuePiece(images.ctx, images.org, home("206 Elm St"));
    try {
      await images.run();
    } finally {
      images.renderer.printImagesDown = false;
    }
    assert.equal(await statusOf(piece.id), "mailed");
    assert.equal(await images.kept(piece.id), undefined, "nothing kept");
    assert.equal((await images.sweeps("pending")).length, 1, "the receipt queued the sweep");
    images.clock.advance(SWEEP_DELAY_MS);
    const before = images.renderer.draws;
    await images.run();
    assert.equal(images.renderer.draws - before, 1, "the sweep drew it");
    assert.equal((await images.kept(piece.id))!.cardKey, null, "final");
  });

  test("a waiting card drawn ahead and looked at, then printed, has those images made final at print, not drawn again", async () => {
    await images.requireApproval();
    const piece = await queuePiece(images.ctx, images.org, home("205 Elm St"));
    assert.equal(await images.runThenSweep(), 1, "the waiting card is drawn ahead");
    assert.equal(await statusOf(piece.id), "awaiting_approval");
    const waiting = (await images.kept(piece.id))!;
    assert.match(waiting.cardKey ?? "", /^[0-9a-f]{64}$/);
    // The approver looks at its front on the approvals screen.
    const queue = await images.owner.browser.request("GET", "/app/api/v1/approvals");
    const card = queue.body.pieces.find((listed: { id: string }) => listed.id === piece.id);
    assert.equal((await images.look(card.front_url)).statusCode, 200);
    const waitingFront = (await images.kept(piece.id, "front"))!;
    assert.equal(waitingFront.cardKey, waiting.cardKey, "kept with the card's key, as its thumbnail");

    const approved = await images.owner.browser.request("POST", `/app/api/v1/pieces/${piece.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    const printedBefore = images.renderer.printThumbnails;
    const previewsBefore = images.renderer.printPreviews;
    await images.run();
    assert.equal(await statusOf(piece.id), "mailed");
    assert.equal(
      images.renderer.printThumbnails,
      printedBefore,
      "the card printed is the one drawn: not drawn with its print files",
    );
    assert.equal(
      images.renderer.printPreviews - previewsBefore,
      1,
      "only the back's preview, never looked at",
    );
    assert.equal((await images.kept(piece.id))!.cardKey, null, "made final after the print's receipt");
    const printedFront = (await images.kept(piece.id, "front"))!;
    assert.equal(printedFront.cardKey, null, "the front looked at, made final");
    assert.deepEqual(printedFront.bytes, waitingFront.bytes);
    assert.equal((await images.kept(piece.id, "back"))!.cardKey, null, "the back drawn with the print files");
    assert.equal(await images.runThenSweep(), 0, "nor by the sweep");
    const final = (await images.kept(piece.id))!;
    assert.equal(final.cardKey, null, "final");
    assert.deepEqual(final.bytes, waiting.bytes);

    const before = images.renderer.draws;
    const answer = await images.thumbnail(piece.id);
    assert.equal(answer.headers["cache-control"], PRINTED_CARD_CACHING);
    assert.deepEqual(answer.rawPayload, waiting.bytes);
    assert.equal(images.renderer.draws, before);
  });

  test("a waiting card whose kept drawing is replaced while it prints is left to the sweep, which draws it final", async () => {
    const piece = await queuePiece(images.ctx, images.org, home("207 Elm St"));
    assert.equal(await images.runThenSweep(), 1, "the waiting card is drawn ahead");
    const approved = await images.owner.browser.request("POST", `/app/api/v1/pieces/${piece.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    // Someone's look draws it again (another key) after the print read the kept one's key.
    images.renderer.whilePrinting = () =>
      images.ctx.database.db
        .execute(
          sql`UPDATE piece_images SET card_key = ${"f".repeat(64)}
               WHERE org_id = ${images.org.orgId}::uuid AND piece_id = ${piece.id}::uuid`,
        )
        .then(() => undefined);
    try {
      await images.run();
    } finally {
      images.renderer.whilePrinting = undefined;
    }
    assert.equal(await statusOf(piece.id), "mailed");
    assert.equal(
      (await images.kept(piece.id))!.cardKey,
      "f".repeat(64),
      "not made final: not the card printed",
    );
    assert.equal((await images.sweeps("pending")).length, 1, "the sweep is queued instead");
    images.clock.advance(SWEEP_DELAY_MS);
    const before = images.renderer.draws;
    await images.run();
    assert.equal(images.renderer.draws - before, 1, "the sweep drew the card as printed");
    assert.equal((await images.kept(piece.id))!.cardKey, null, "final");
  });

  test("an organization's sweeps never run at once: two queued at the same instant run one after the other", async () => {
    const db = images.ctx.database.db;
    const now = images.clock.now();
    for (let i = 0; i < 2; i++) {
      await enqueueJob(db, drawCardImagesJob, { org_id: images.org.orgId }, { orgId: images.org.orgId, now });
    }
    const catalog = createJobCatalog([handleJob(drawCardImagesJob, async () => undefined)]);
    assert.equal((await claimJobs(db, catalog, now, 10)).length, 1, "one runs");
    assert.equal((await claimJobs(db, catalog, now, 10)).length, 0, "the other waits for it");
    assert.equal((await images.sweeps("pending")).length, 1);
  });
});
