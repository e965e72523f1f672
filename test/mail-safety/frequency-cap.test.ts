import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { isHeldOut } from "../../src/domain/holdout-group.ts";
import { waitForEarlierCard } from "../../src/mail-safety/piece-checks.ts";
import { admin, createAutomation } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { EVENT_TYPE, orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";

const DAY_MS = 86_400_000;
const OTHER_EVENT = "job.scheduled";
const home = (street: string) => ({
  street,
  city: "Springfield",
  state: "IL",
  zip: "62704",
  client_name: "Ann Lee",
});

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
    for (const spelling of spellings) {
      const again = await queuePiece(ctx, org, spelling);
      await runPipeline(ctx, local);
      const skipped = await pieceOf(again.id);
      assert.equal(skipped.status, "skipped", JSON.stringify(spelling));
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

  test("a home written with its neighborhood's name, then with its ZIP's town, is one home to the cap", async () => {
    const org = await orgWithAutomation(ctx);
    const first = await queuePiece(ctx, org, {
      street: "6801 Hollywood Blvd",
      city: "Hollywood",
      state: "CA",
      zip: "90028",
    });
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "mailed");
    clock.advance(DAY_MS);
    const again = await queuePiece(ctx, org, {
      street: "6801 Hollywood Boulevard",
      city: "Los Angeles",
      state: "CA",
      zip: "90028",
    });
    const elsewhere = await queuePiece(ctx, org, {
      street: "6801 Hollywood Blvd",
      city: "San Diego",
      state: "CA",
      zip: "92101",
    });
    await runPipeline(ctx, local);
    const skipped = await pieceOf(again.id);
    assert.equal(skipped.status, "skipped", skipped.status_reason);
    assert.equal(skipped.earlier_piece_id, first.id);
    assert.equal((await pieceOf(elsewhere.id)).status, "mailed", "the same street in another town");
  });

  test("of two pieces queued at once for one home by two automations, exactly one prints", async () => {
    const org = await orgWithAutomation(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Same trigger",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
    });
    await queuePiece(ctx, org, { street: "77 Oak St", city: "Springfield", state: "IL", zip: "62704" });
    await runPipeline(ctx, local);
    // A piece whose job met the other still undecided waits for it (the tests below).
    clock.advance(5 * 60_000);
    await runPipeline(ctx, local);
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
    const statuses = listed.body.campaigns
      .flatMap((campaign: { pieces: { status: string }[] }) => campaign.pieces)
      .map((piece: { status: string }) => piece.status)
      .sort();
    assert.deepEqual(statuses, ["mailed", "skipped"]);
  });

  test("two automations' cards of one event worked at once by two workers: the home gets one card", async () => {
    const org = await orgWithAutomation(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Same trigger, second worker",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
    });
    const homes = ["1 Twin Rd", "2 Twin Rd", "3 Twin Rd", "4 Twin Rd", "5 Twin Rd", "6 Twin Rd"];
    for (const street of homes) await queuePiece(ctx, org, home(street));
    // Two workers side by side (each claims its own jobs), a minute apart each round.
    for (let round = 0; round < 8; round++) {
      clock.advance(60_000);
      await Promise.all([runPipeline(ctx, local), runPipeline(ctx, local)]);
    }
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
    const pieces = listed.body.campaigns.flatMap(
      (campaign: { pieces: { status: string; address: string }[] }) => campaign.pieces,
    );
    for (const street of homes) {
      const statuses = pieces
        .filter((piece: { address: string }) => piece.address.startsWith(street))
        .map((piece: { status: string }) => piece.status)
        .sort();
      assert.deepEqual(statuses, ["mailed", "skipped"], `${street}: one card, whichever job ran first`);
    }
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

  // An earlier card still undecided (queued, not yet through its own rules) is waited for, not
  // yielded to: it may never be mailed (found by a black-box probe: a held-out first card left the
  // home with no card at all).
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
    const waiting = await pieceOf(second.id);
    assert.equal(waiting.status, "queued", "not skipped for a card that is not decided yet");
    assert.equal(waiting.earlier_piece_id, null);

    await release(first.id);
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "held_out");
    clock.advance(waitForEarlierCard(new Date(0), clock.now()));
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(second.id)).status, "mailed", "the held-out card is not mail");
  });

  test("the waiting card is skipped, naming the earlier one, once that one is mailed", async () => {
    const { org, streets } = await twoAutomations();
    const first = await queuePiece(ctx, org, home(streets.mailed));
    await holdJobOf(first.id);
    clock.advance(1_000);
    const second = await queuePiece(ctx, org, home(streets.mailed), { eventType: OTHER_EVENT });

    await runPipeline(ctx, local);
    assert.equal((await pieceOf(second.id)).status, "queued");
    await release(first.id);
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "mailed");
    clock.advance(waitForEarlierCard(new Date(0), clock.now()));
    await runPipeline(ctx, local);
    const skipped = await pieceOf(second.id);
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
