import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { admin, createAutomation } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { EVENT_TYPE, orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";

const DAY_MS = 86_400_000;

describe(`mail safety: the frequency cap per home (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };

  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  const pieceOf = async (id: string) => {
    const piece = await admin(ctx, "GET", `/pieces/${id}`);
    assert.equal(piece.status, 200, piece.text);
    return piece.body;
  };

  test("a second card to the same home within 30 days, from another automation, is skipped naming the first", async () => {
    const org = await orgWithAutomation(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Second automation",
      trigger: { type: "custom_api", event_type: "job.scheduled" },
    });
    const first = await queuePiece(ctx, org);
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "mailed");

    clock.advance(29 * DAY_MS);
    // The same home written with a lowercase street: one normalized address key.
    const second = await queuePiece(ctx, org, {
      street: "412 maple ave",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    await runPipeline(ctx, local);
    const skipped = await pieceOf(second.id);
    assert.equal(skipped.status, "skipped");
    assert.equal(skipped.earlier_piece_id, first.id);
    assert.match(
      skipped.status_reason,
      /^the home got a card within the last 30 days \(mailed \w{3} \d+, \d{4}\)$/,
    );

    clock.advance(2 * DAY_MS);
    const third = await queuePiece(ctx, org);
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(third.id)).status, "mailed", "31 days after the first card");
  });

  test("the same home written without its city or its ZIP is the same home to the cap, as to customer suppression", async () => {
    const org = await orgWithAutomation(ctx);
    const first = await queuePiece(ctx, org, {
      street: "1100 Larch St",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "mailed");
    clock.advance(DAY_MS);
    const spellings: Record<string, string>[] = [
      { street: "1100 Larch Street", zip: "62704" },
      { street: "1100 Larch St.", city: "Springfield", state: "IL" },
    ];
    for (const home of spellings) {
      const again = await queuePiece(ctx, org, home);
      await runPipeline(ctx, local);
      const skipped = await pieceOf(again.id);
      assert.equal(skipped.status, "skipped", JSON.stringify(home));
      assert.equal(skipped.earlier_piece_id, first.id);
    }
    const neighbour = await queuePiece(ctx, org, {
      street: "1102 Larch St",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(neighbour.id)).status, "mailed", "the house next door is another home");
  });

  test("of two pieces queued at once for one home by two automations, exactly one prints", async () => {
    const org = await orgWithAutomation(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Same trigger",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
    });
    await queuePiece(ctx, org, { street: "77 Oak St", city: "Springfield", state: "IL", zip: "62704" });
    await runPipeline(ctx, local);
    // A piece whose job met the other still undecided waits for it (frequency-cap-undecided.test.ts).
    clock.advance(5 * 60_000);
    await runPipeline(ctx, local);
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
    const statuses = listed.body.campaigns
      .flatMap((campaign: { pieces: { status: string }[] }) => campaign.pieces)
      .map((piece: { status: string }) => piece.status)
      .sort();
    assert.deepEqual(statuses, ["mailed", "skipped"]);
  });

  test("the window is set per org through the operator API; 0 turns the cap off", async () => {
    const org = await orgWithAutomation(ctx);
    const defaults = await admin(ctx, "GET", `/orgs/${org.orgId}/mail-safety`);
    assert.equal(defaults.status, 200, defaults.text);
    assert.equal(defaults.body.frequency_cap_days, 30);

    const invalid = await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { frequency_cap_days: -1 });
    assert.equal(invalid.status, 422);
    const off = await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { frequency_cap_days: 0 });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.frequency_cap_days, 0);

    const first = await queuePiece(ctx, org, {
      street: "5 Elm St",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    await runPipeline(ctx, local);
    clock.advance(60_000);
    const second = await queuePiece(ctx, org, {
      street: "5 Elm St",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "mailed");
    assert.equal((await pieceOf(second.id)).status, "mailed", "the cap is off");

    const week = await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { frequency_cap_days: 7 });
    assert.equal(week.body.frequency_cap_days, 7);
    clock.advance(6 * DAY_MS);
    const third = await queuePiece(ctx, org, {
      street: "5 Elm St",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    await runPipeline(ctx, local);
    const skipped = await pieceOf(third.id);
    assert.equal(skipped.status, "skipped");
    assert.equal(skipped.earlier_piece_id, second.id, "the latest card to the home is named");

    const missing = await admin(ctx, "GET", "/orgs/00000000-0000-4000-8000-000000000000/mail-safety");
    assert.equal(missing.status, 404);
  });
});
