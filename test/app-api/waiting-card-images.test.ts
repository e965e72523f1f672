/**
 * Mail's thumbnails of waiting cards are drawn ahead (issue 41): a card that starts to wait queues
 * its organization's sweep, which keeps its front thumbnail with the key of the card it drew; the
 * list then reads it from the database, until the profile changes what the card prints.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { fixedClock } from "../../src/clock.ts";
import { queryOne, queryRows, sql } from "../../src/db/database.ts";
import { keepPieceImage } from "../../src/pieces/piece-images.ts";
import { admin } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { home, orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const SWEEP_DELAY_MS = 10_000;

describe(`app API: waiting cards' thumbnails drawn ahead (${databaseLabel})`, () => {
  const clock = fixedClock(new Date());
  const dataDir = tempDataDir();
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  let owner: SignedInUser;
  let pieces: { id: string }[];
  /** Sides the renderer drew, for the app's routes and the test's pipeline runs alike. */
  let draws = 0;
  /** When set, the renderer fails every side it is asked for. */
  let rendererDown = false;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true, clock });
    const side = ctx.renderer.side.bind(ctx.renderer);
    ctx.renderer.side = async (...args) => {
      if (rendererDown) throw new Error("the render pool is down");
      draws++;
      return side(...args);
    };
    org = await orgWithAutomation(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-waiting@example.com", "owner");
    const approval = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      approval_required: true,
    });
    assert.equal(approval.status, 200, approval.text);
    pieces = [];
    for (const street of ["101 Oak St", "102 Oak St", "103 Oak St"]) {
      pieces.push(await queuePiece(ctx, org, home(street)));
    }
  });
  after(() => ctx.close());

  // One job at a time: on PostgreSQL, writers at the same instant may each queue a sweep (the
  // pending check cannot see another's uncommitted one; see insertJobUnlessPending). Run one after
  // another, as here, a burst's cards queue exactly one.
  const run = () =>
    runPipeline(ctx, { dataDir, printProvider: "local" }, ctx.database.db, undefined, { batchSize: 1 });
  const thumbnail = (pieceId: string) =>
    ctx.app.inject({
      method: "GET",
      url: `/app/api/v1/pieces/${pieceId}/proof/front.png?size=thumbnail`,
      headers: { cookie: [...owner.browser.cookies].map(([n, v]) => `${n}=${v}`).join("; ") },
    });
  const kept = async (pieceId: string, image = "front_thumbnail") => {
    const row = await queryOne<{ png: string; card_key: string | null }>(
      ctx.database.db,
      sql`SELECT encode(png, 'base64') AS png, card_key FROM piece_images
           WHERE org_id = ${org.orgId}::uuid AND piece_id = ${pieceId}::uuid AND image = ${image}`,
    );
    return row && { png: Buffer.from(row.png, "base64"), cardKey: row.card_key };
  };
  const sweeps = (status: string) =>
    queryRows<{ id: string }>(
      ctx.database.db,
      sql`SELECT id FROM jobs WHERE kind = 'draw_waiting_cards' AND org_id = ${org.orgId}::uuid
            AND status = ${status}`,
    );
  const proofsCounted = async () =>
    (await ctx.limiter.hit("app-piece-proofs", org.orgId, 1_000_000, 60)).count;

  test("cards that start to wait queue one sweep for their organization, which keeps their thumbnails", async () => {
    await run();
    for (const piece of pieces) {
      assert.equal((await admin(ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    }
    assert.equal((await sweeps("pending")).length, 1, "three cards, one sweep");
    assert.equal(await kept(pieces[0]!.id), undefined, "the sweep waits for the burst to end");

    clock.advance(SWEEP_DELAY_MS);
    const before = draws;
    await run();
    assert.equal((await sweeps("done")).length, 1);
    assert.equal(draws - before, 3, "one drawing per waiting card");
    for (const piece of pieces) {
      const image = await kept(piece.id);
      assert.ok(image, `piece ${piece.id}'s thumbnail is kept`);
      assert.match(image.cardKey ?? "", /^[0-9a-f]{64}$/);
      assert.equal((await sharp(image.png).metadata()).width, 320);
    }
  });

  test("the list reads a kept thumbnail: no drawing, no rate limit spent", async () => {
    const counted = await proofsCounted();
    const before = draws;
    for (const piece of pieces) {
      const answer = await thumbnail(piece.id);
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers["cache-control"], "private, max-age=60");
      assert.deepEqual(answer.rawPayload, (await kept(piece.id))!.png);
    }
    assert.equal(draws, before, "nothing drawn");
    assert.equal(await proofsCounted(), counted + 1, "no card image counted against the limit");
  });

  test("a profile change draws a new image on the next look, kept with its new key, and queues a sweep", async () => {
    const [first] = pieces;
    const old = (await kept(first!.id))!;
    const oldKeys = await Promise.all(pieces.map(async (piece) => (await kept(piece.id))!.cardKey));
    const changed = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Harbor Exteriors", brand_color: "#b91c1c" },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await sweeps("pending")).length, 1);

    let before = draws;
    const answer = await thumbnail(first!.id);
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.headers["cache-control"], "private, max-age=60");
    assert.notDeepEqual(answer.rawPayload, old.png, "the card shows the new profile");
    assert.equal(draws - before, 1);
    const now = (await kept(first!.id))!;
    assert.notEqual(now.cardKey, old.cardKey);
    assert.deepEqual(now.png, answer.rawPayload, "what was drawn is what is kept");
    const again = await thumbnail(first!.id);
    assert.deepEqual(again.rawPayload, answer.rawPayload);
    assert.equal(draws - before, 1, "the second look reads it");

    // The sweep draws the others again, not the one the list drew already.
    clock.advance(SWEEP_DELAY_MS);
    before = draws;
    await run();
    assert.equal(draws - before, 2);
    assert.equal((await kept(first!.id))!.cardKey, now.cardKey);
    for (const [i, piece] of pieces.entries()) {
      assert.notEqual(
        (await kept(piece.id))!.cardKey,
        oldKeys[i],
        `piece ${i} is drawn with the new profile`,
      );
    }
  });

  test("concurrent looks at an image being drawn all get it; concurrent keeps never fail", async () => {
    const [, second] = pieces;
    const changed = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { brand_color: "#0f766e" },
    });
    assert.equal(changed.status, 200, changed.text);
    const before = draws;
    const answers = await Promise.all(Array.from({ length: 8 }, () => thumbnail(second!.id)));
    for (const answer of answers) {
      assert.equal(answer.statusCode, 200);
      assert.deepEqual(answer.rawPayload, answers[0]!.rawPayload);
    }
    assert.equal(draws - before, 1, "one drawing shared");
    assert.deepEqual((await kept(second!.id))!.png, answers[0]!.rawPayload);

    // Two API processes drawing the same image at once: both keep it, neither fails.
    const image = { orgId: org.orgId, pieceId: second!.id, side: "back", size: "full" } as const;
    const png = answers[0]!.rawPayload;
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => keepPieceImage(ctx.database.db, image, png, `k${i}`)),
    );
    assert.match((await kept(second!.id, "back"))!.cardKey ?? "", /^k[0-3]$/);
  });

  test("a printed card's image is final: kept without a key, immutable, the same after a profile change", async () => {
    const [, , third] = pieces;
    // Drawn ahead (the sweep after the last profile change), then approved and printed.
    clock.advance(SWEEP_DELAY_MS);
    await run();
    const waiting = (await kept(third!.id))!;
    const approved = await owner.browser.request("POST", `/app/api/v1/pieces/${third!.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    await run();
    assert.equal((await admin(ctx, "GET", `/pieces/${third!.id}`)).body.status, "mailed");

    let before = draws;
    const printed = await thumbnail(third!.id);
    assert.equal(printed.statusCode, 200);
    assert.equal(printed.headers["cache-control"], "private, max-age=31536000, immutable");
    assert.deepEqual(printed.rawPayload, waiting.png, "the image drawn ahead is the printed card's");
    assert.equal(draws, before, "nothing drawn");
    assert.equal((await kept(third!.id))!.cardKey, null, "final");

    const changed = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Someone Else Roofing" },
    });
    assert.equal(changed.status, 200, changed.text);
    before = draws;
    const later = await thumbnail(third!.id);
    assert.equal(later.headers["cache-control"], "private, max-age=31536000, immutable");
    assert.deepEqual(later.rawPayload, waiting.png);
    assert.equal(draws, before);
  });

  test("a sweep that cannot draw leaves the card waiting as it was, and the list draws it", async () => {
    const piece = await queuePiece(ctx, org, home("104 Oak St"));
    await run();
    assert.equal((await admin(ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    rendererDown = true;
    clock.advance(SWEEP_DELAY_MS);
    try {
      await run();
    } finally {
      rendererDown = false;
    }
    assert.equal((await sweeps("pending")).length, 0);
    assert.equal((await sweeps("failed")).length, 0, "a card not drawn ahead is no failure");
    assert.equal(await kept(piece.id), undefined);
    assert.equal((await admin(ctx, "GET", `/pieces/${piece.id}`)).body.status, "awaiting_approval");
    const answer = await thumbnail(piece.id);
    assert.equal(answer.statusCode, 200);
    assert.deepEqual((await kept(piece.id))!.png, answer.rawPayload);
  });
});
