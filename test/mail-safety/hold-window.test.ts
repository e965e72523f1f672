import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { admin } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { home, orgWithAutomation, queuePiece, runPipeline, startFakeLob } from "../pipeline/helpers.ts";

const HOUR_MS = 3_600_000;
describe(`mail safety: the hold window and cancelling (${databaseLabel})`, () => {
  let ctx: TestContext;
  let lob: Awaited<ReturnType<typeof startFakeLob>>;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");

  before(async () => {
    ctx = await createTestContext({ clock });
    lob = await startFakeLob();
  });
  after(async () => {
    await lob.close();
    await ctx.close();
  });

  const run = () => runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
  const pieceOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body;

  async function heldAutomation(minutes: number) {
    const org = await orgWithAutomation(ctx);
    const set = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      hold_minutes: minutes,
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.hold_minutes, minutes);
    return org;
  }

  test("pieces wait out the hold window; a cancelled one never reaches Lob and has no landing page", async () => {
    const org = await heldAutomation(120);
    const kept = await queuePiece(ctx, org, home("1 Held Way"));
    clock.advance(1000);
    const cancelled = await queuePiece(ctx, org, home("2 Held Way"));
    const before = lob.requests.length;
    await run();
    assert.equal(lob.requests.length, before, "nothing prints during the hold window");
    const held = await pieceOf(kept.id);
    assert.equal(held.status, "held");
    assert.equal(held.hold_until, new Date(clock.now().getTime() + 2 * HOUR_MS).toISOString());
    assert.match(
      held.status_reason,
      /^held for the automation's 2-hour hold window, until \w{3}, \w{3} \d+, \d{4}, \d\d:\d\d UTC; it can be cancelled until then$/,
    );
    const waiting = await admin(ctx, "GET", `/automations/${org.automationId}/waiting-pieces?status=held`);
    assert.deepEqual(
      waiting.body.pieces.map((piece: { id: string }) => piece.id),
      [kept.id, cancelled.id],
    );

    clock.advance(HOUR_MS);
    const cancel = await admin(ctx, "POST", `/pieces/${cancelled.id}/cancel`, {
      actor: "dana@bright.example",
    });
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(cancel.body.status, "cancelled");
    assert.equal(cancel.body.cancelled_by, "dana@bright.example");
    assert.equal(cancel.body.cancelled_at, clock.now().toISOString());

    clock.advance(HOUR_MS);
    await run();
    const sent = lob.requests.slice(before).map((request) => request.idempotencyKey);
    assert.deepEqual(sent, [kept.id], "only the kept piece printed, once its window ended");
    assert.equal((await pieceOf(kept.id)).status, "submitted");
    assert.equal((await pieceOf(cancelled.id)).status, "cancelled");
    assert.equal((await ctx.app.inject({ method: "GET", url: `/l/${cancelled.token}` })).statusCode, 404);

    const tooLate = await admin(ctx, "POST", `/pieces/${kept.id}/cancel`);
    assert.equal(tooLate.status, 409);
    assert.equal(tooLate.body.code ?? tooLate.body.error, "not_cancellable", tooLate.text);
  });

  test("every held piece of an automation is cancelled at once, and none prints", async () => {
    const org = await heldAutomation(30);
    const pieces = [
      await queuePiece(ctx, org, home("3 Held Way")),
      await queuePiece(ctx, org, home("4 Held Way")),
    ];
    const before = lob.requests.length;
    await run();
    const cancelled = await admin(ctx, "POST", `/automations/${org.automationId}/waiting-pieces/cancel`, {
      actor: "ops",
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.deepEqual(new Set(cancelled.body.piece_ids), new Set(pieces.map((piece) => piece.id)));
    clock.advance(HOUR_MS);
    await run();
    assert.equal(lob.requests.length, before);
    for (const piece of pieces) {
      const view = await pieceOf(piece.id);
      assert.equal(view.status, "cancelled");
      assert.equal(view.cancelled_by, "ops");
    }
  });

  test("without a hold window (the default) a piece prints at once", async () => {
    const org = await orgWithAutomation(ctx);
    const settings = await admin(ctx, "GET", `/automations/${org.automationId}/mail-safety`);
    assert.equal(settings.body.hold_minutes, 0);
    const piece = await queuePiece(ctx, org, home("5 Held Way"));
    await run();
    assert.equal((await pieceOf(piece.id)).status, "submitted");
  });
});
