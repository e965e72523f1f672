/**
 * Mail's first page shows every card but a queued one with its thumbnail, so the draw-ahead sweep
 * covers them all (issue 41): a card stopped for good before print (a registered customer's) and a
 * first card's scheduled follow-ups are drawn and kept before anyone looks, then served without a
 * drawing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { admin, call } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { home, queuePiece } from "../pipeline/helpers.ts";
import { cardImagesContext } from "./card-images-helpers.ts";

const followUp = (delayDays: number, headline: string) => ({
  delay_days: delayDays,
  template: { headline, message: "Hi {{client_name}}, still thinking about {{street}}? Scan the code." },
});

describe(`app API: Mail's other cards' thumbnails drawn ahead (${databaseLabel})`, () => {
  let images: Awaited<ReturnType<typeof cardImagesContext>>;

  before(async () => {
    images = await cardImagesContext("owner-listed@example.com");
  });
  after(() => images.ctx.close());

  const statusOf = async (pieceId: string) =>
    (await admin(images.ctx, "GET", `/pieces/${pieceId}`)).body.status;

  /** Looks at each card's thumbnail as the list does; answers the sides drawn for those looks. */
  async function drawsToLookAt(pieceIds: string[]) {
    const before = images.renderer.draws;
    for (const id of pieceIds) assert.equal((await images.thumbnail(id)).statusCode, 200);
    return images.renderer.draws - before;
  }

  test("a card stopped before print (a registered customer's) is drawn ahead and kept with its key", async () => {
    const registered = await call(images.ctx, "POST", "/api/v1/customers/webhook", {
      key: images.org.key,
      body: { address: "301 Pine St, Springfield, IL 62704" },
    });
    assert.equal(registered.status, 200, registered.text);
    const piece = await queuePiece(images.ctx, images.org, home("301 Pine St"));

    assert.equal(await images.runThenSweep(), 1, "the sweep drew the stopped card");
    assert.equal(await statusOf(piece.id), "suppressed");
    const kept = await images.kept(piece.id);
    assert.ok(kept, "its thumbnail is kept");
    assert.notEqual(kept.cardKey, null, "with the key of what it was drawn from: never printed, never final");
    assert.equal(await drawsToLookAt([piece.id]), 0, "the list's look draws nothing");
  });

  test("a first card's scheduled follow-ups are drawn ahead with it", async () => {
    const steps = await admin(images.ctx, "PATCH", `/automations/${images.org.automationId}`, {
      steps: [followUp(30, "Still here for {{street}}"), followUp(14, "Two weeks on, {{street}}")],
    });
    assert.equal(steps.status, 200, steps.text);
    const first = await queuePiece(images.ctx, images.org, home("302 Pine St"));

    const printedBefore = images.renderer.printThumbnails;
    assert.equal(await images.runThenSweep(), 2, "the sweep draws the two follow-ups");
    assert.equal(
      images.renderer.printThumbnails - printedBefore,
      1,
      "the first card's, with its print files",
    );
    assert.equal(await statusOf(first.id), "mailed");
    const followUps = await queryRows<{ id: string; status: string }>(
      images.ctx.database.db,
      sql`SELECT id, status FROM mail_pieces WHERE org_id = ${images.org.orgId}::uuid
            AND sequence_first_piece_id = ${first.id}::uuid ORDER BY sequence_step`,
    );
    assert.deepEqual(
      followUps.map((piece) => piece.status),
      ["scheduled", "scheduled"],
    );
    assert.equal((await images.kept(first.id))?.cardKey, null, "the printed card's is final");
    for (const piece of followUps) {
      const kept = await images.kept(piece.id);
      assert.ok(kept?.cardKey, `follow-up ${piece.id}'s thumbnail is kept with its key`);
    }
    assert.equal(await drawsToLookAt([first.id, ...followUps.map((piece) => piece.id)]), 0);
  });
});
