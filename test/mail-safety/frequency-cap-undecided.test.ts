/**
 * The frequency cap against an earlier card that is still undecided (queued, not yet through its
 * own rules): the later card waits for it rather than yielding to a card that may never be mailed
 * (held out, undeliverable, suppressed). Found by a black-box probe: of two automations' cards to
 * one home, a held-out first card left the home with none.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { isHeldOut } from "../../src/domain/holdout-group.ts";
import { waitForEarlierCard } from "../../src/mail-safety/piece-checks.ts";
import { admin, createAutomation } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";

const OTHER_EVENT = "job.scheduled";
const home = (street: string) => ({
  street,
  city: "Springfield",
  state: "IL",
  zip: "62704",
  client_name: "Ann Lee",
});

describe(`mail safety: the frequency cap waits for an undecided earlier card (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };

  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  const statusOf = async (id: string) => {
    const piece = await admin(ctx, "GET", `/pieces/${id}`);
    assert.equal(piece.status, 200, piece.text);
    return piece.body as { status: string; earlier_piece_id: string | null; status_reason: string | null };
  };
  /** Keeps a queued piece's job from running until `release` (the earlier card, still undecided). */
  const holdJobOf = (pieceId: string) =>
    ctx.database.db.execute(
      sql`UPDATE jobs SET run_at = now() + interval '1 day' WHERE payload->>'piece_id' = ${pieceId}`,
    );
  const release = (pieceId: string) =>
    ctx.database.db.execute(
      sql`UPDATE jobs SET run_at = ${clock.now().toISOString()}::timestamptz WHERE payload->>'piece_id' = ${pieceId} AND status = 'pending'`,
    );

  /** An org whose first automation holds out half its homes, a second automation on another event, and a street of each group. */
  async function twoAutomations() {
    const org = await orgWithAutomation(ctx, { holdout_percent: 50 });
    await createAutomation(ctx, org.orgId, {
      name: "Thank-you cards",
      trigger: { type: "custom_api", event_type: OTHER_EVENT },
    });
    const streets = { heldOut: "", mailed: "" };
    for (let number = 100; !streets.heldOut || !streets.mailed; number++) {
      const street = `${number} Walnut St`;
      const key = normalizeAddress(`${street}, Springfield, IL 62704`);
      if (isHeldOut(org.automationId, 50, key)) streets.heldOut ||= street;
      else streets.mailed ||= street;
    }
    return { org, streets };
  }

  test("a card that met an undecided earlier card waits, and goes when that one is held out", async () => {
    const { org, streets } = await twoAutomations();
    const first = await queuePiece(ctx, org, home(streets.heldOut));
    await holdJobOf(first.id);
    clock.advance(1_000);
    const second = await queuePiece(ctx, org, home(streets.heldOut), { eventType: OTHER_EVENT });

    await runPipeline(ctx, local);
    const waiting = await statusOf(second.id);
    assert.equal(waiting.status, "queued", "not skipped for a card that is not decided yet");
    assert.equal(waiting.earlier_piece_id, null);

    await release(first.id);
    await runPipeline(ctx, local);
    assert.equal((await statusOf(first.id)).status, "held_out");
    clock.advance(waitForEarlierCard(new Date(0), clock.now()));
    await runPipeline(ctx, local);
    assert.equal((await statusOf(second.id)).status, "mailed", "the held-out card is not mail");
  });

  test("the waiting card is skipped, naming the earlier one, once that one is mailed", async () => {
    const { org, streets } = await twoAutomations();
    const first = await queuePiece(ctx, org, home(streets.mailed));
    await holdJobOf(first.id);
    clock.advance(1_000);
    const second = await queuePiece(ctx, org, home(streets.mailed), { eventType: OTHER_EVENT });

    await runPipeline(ctx, local);
    assert.equal((await statusOf(second.id)).status, "queued");
    await release(first.id);
    await runPipeline(ctx, local);
    assert.equal((await statusOf(first.id)).status, "mailed");
    clock.advance(waitForEarlierCard(new Date(0), clock.now()));
    await runPipeline(ctx, local);
    const skipped = await statusOf(second.id);
    assert.equal(skipped.status, "skipped");
    assert.equal(skipped.earlier_piece_id, first.id);
    assert.match(skipped.status_reason ?? "", /^the home got a card within the last 30 days \(mailed /);
  });

  test("the wait grows with the earlier card's own wait, from 5 seconds to 5 minutes", () => {
    const now = new Date("2026-03-02T15:00:00.000Z");
    const queuedAgo = (ms: number) => waitForEarlierCard(new Date(now.getTime() - ms), now);
    assert.equal(queuedAgo(0), 5_000);
    assert.equal(queuedAgo(60_000), 60_000);
    assert.equal(queuedAgo(3_600_000), 300_000);
  });
});
