import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { createAppTestContext, inviteAndAccept } from "../app-api/helpers.ts";
import { admin, call } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";

const DAY_MS = 86_400_000;
const followUp = (delayDays: number, headline: string) => ({
  delay_days: delayDays,
  template: { headline, message: "Hi {{client_name}}, still thinking about {{street}}? Scan the code." },
});

interface FollowUpCards {
  scheduled: number;
  waiting: number;
  sent_to_print: number;
  stopped_because_home_answered: number;
  not_sent: number;
  stopped_because: Record<string, number>;
  by_step: {
    delay_days: number;
    scheduled: number;
    sent_to_print: number;
    stopped_because_home_answered: number;
  }[];
}

describe(`an automation's follow-up cards, counted by what became of them (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-11-30T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };
  let street = 0;
  const nextHome = () => ({
    street: `${200 + ++street} Tally St`,
    city: "Springfield",
    state: "IL",
    zip: "62704",
    client_name: "Lee Answer",
  });

  before(async () => {
    ctx = await createAppTestContext({ clock });
  });
  after(async () => ctx.close());

  const printLocally = () => runPipeline(ctx, local);
  const addressOf = (home: ReturnType<typeof nextHome>) =>
    `${home.street}, ${home.city}, ${home.state} ${home.zip}`;

  async function followUpCardsOf(owner: Awaited<ReturnType<typeof inviteAndAccept>>, automationId: string) {
    const listed = await owner.browser.request("GET", "/app/api/v1/automations");
    assert.equal(listed.status, 200, listed.text);
    const automation = (listed.body.automations as { id: string; follow_up_cards: FollowUpCards }[]).find(
      (row) => row.id === automationId,
    );
    assert.ok(automation, "the automation is listed");
    const one = await owner.browser.request("GET", `/app/api/v1/automations/${automationId}`);
    assert.deepEqual(one.body.follow_up_cards, automation.follow_up_cards, "the list and the page agree");
    return automation.follow_up_cards;
  }

  /** The roll-up summed, and recounted from the pieces: the triggers never disagree with the rows. */
  async function assertRollUpMatchesRows(orgId: string) {
    const read = () =>
      queryRows<{ key: string; cards: string }>(
        ctx.database.db,
        sql`SELECT concat_ws('/', automation_id, step_delay, status, stopped_by) AS key, sum(cards)::text AS cards
            FROM follow_up_figures WHERE org_id = ${orgId}::uuid
            GROUP BY 1 HAVING sum(cards) <> 0 ORDER BY 1`,
      );
    const kept = await read();
    await ctx.database.db.execute(sql`SELECT rebuild_follow_up_figures(${orgId}::uuid)`);
    assert.deepEqual(kept, await read());
  }

  test("sent, waiting for their day and stopped because the home answered, per step and in all", async () => {
    const org = await orgWithAutomation(ctx, {
      steps: [followUp(14, "Two weeks on"), followUp(30, "A month on")],
    });
    const owner = await inviteAndAccept(ctx, org.orgId, "owner@tally.example", "owner", "Olive Owner");
    const empty = await followUpCardsOf(owner, org.automationId);
    assert.deepEqual(
      { ...empty, by_step: empty.by_step.map((step) => step.delay_days) },
      {
        scheduled: 0,
        waiting: 0,
        sent_to_print: 0,
        stopped_because_home_answered: 0,
        not_sent: 0,
        stopped_because: { lead: 0, won_deal: 0, opt_out: 0, customer: 0, returned: 0 },
        by_step: [14, 30],
      },
    );

    const homes = [nextHome(), nextHome(), nextHome(), nextHome()];
    const firsts = [];
    for (const home of homes) firsts.push(await queuePiece(ctx, org, home));
    await printLocally();
    const written = await followUpCardsOf(owner, org.automationId);
    assert.equal(written.scheduled, 8, "two follow-ups for each of four homes wait for their day");

    // Three homes answer at once: a lead from the first card, a won deal, a customer registration.
    const answered = await Promise.all([
      call(ctx, "POST", `/l/${firsts[0]!.token}`, {
        body: { first_name: "Lee", last_name: "Answer", email: "lee@example.com" },
      }),
      call(ctx, "POST", "/api/v1/conversions", {
        key: org.key,
        body: { address: addressOf(homes[1]!), deal_amount: 8000 },
      }),
      call(ctx, "POST", "/api/v1/customers/webhook", {
        key: org.key,
        body: { address: addressOf(homes[2]!) },
      }),
    ]);
    assert.deepEqual(
      answered.map((response) => response.status),
      [201, 200, 200],
      answered.map((response) => response.text).join("\n"),
    );

    clock.advance(14 * DAY_MS + 60_000);
    await printLocally();
    const after = await followUpCardsOf(owner, org.automationId);
    assert.equal(after.stopped_because_home_answered, 6, JSON.stringify(after));
    // A won deal also registers the home as a customer: the deal's reason is the one kept.
    assert.deepEqual(after.stopped_because, { lead: 2, won_deal: 2, opt_out: 0, customer: 2, returned: 0 });
    assert.equal(after.sent_to_print, 1, "the silent home's first follow-up went on its day");
    assert.equal(after.scheduled, 1, "its second waits for day 30");
    assert.deepEqual(
      after.by_step.map((step) => [
        step.delay_days,
        step.sent_to_print,
        step.scheduled,
        step.stopped_because_home_answered,
      ]),
      [
        [14, 1, 0, 3],
        [30, 0, 1, 3],
      ],
    );
    await assertRollUpMatchesRows(org.orgId);
  });

  test("a step removed stops its follow-ups as not sent, counted in the totals but no longer as a step", async () => {
    const org = await orgWithAutomation(ctx, {
      steps: [followUp(7, "A week on"), followUp(21, "Three weeks on")],
    });
    const owner = await inviteAndAccept(ctx, org.orgId, "owner@removed.example", "owner", "Olive Owner");
    await queuePiece(ctx, org, nextHome());
    await printLocally();
    const saved = await admin(ctx, "PATCH", `/automations/${org.automationId}`, {
      steps: [followUp(7, "A week on")],
    });
    assert.equal(saved.status, 200, saved.text);
    const cards = await followUpCardsOf(owner, org.automationId);
    assert.equal(cards.not_sent, 1, JSON.stringify(cards));
    assert.equal(cards.scheduled, 1);
    assert.equal(cards.stopped_because_home_answered, 0, "a removed step is not the home's answer");
    assert.deepEqual(
      cards.by_step.map((step) => [step.delay_days, step.scheduled]),
      [[7, 1]],
    );
    await assertRollUpMatchesRows(org.orgId);
  });

  test("turned off in the app, an automation's follow-ups still to go stop at once and count as not sent", async () => {
    const org = await orgWithAutomation(ctx, {
      steps: [followUp(7, "A week on"), followUp(21, "Three weeks on")],
    });
    const owner = await inviteAndAccept(ctx, org.orgId, "owner@off.example", "owner", "Olive Owner");
    await queuePiece(ctx, org, nextHome());
    await printLocally();
    const off = await owner.browser.request("PATCH", `/app/api/v1/automations/${org.automationId}`, {
      body: { enabled: false },
    });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.follow_up_cards.not_sent, 2, JSON.stringify(off.body.follow_up_cards));
    assert.equal(off.body.follow_up_cards.scheduled, 0);
    const cancelled = await owner.browser.request("GET", "/app/api/v1/pieces?status=cancelled");
    const reasons = (cancelled.body.pieces as { status_reason: string | null }[]).map(
      (piece) => piece.status_reason,
    );
    assert.equal(reasons.length, 2, JSON.stringify(reasons));
    for (const reason of reasons)
      assert.match(reason ?? "", /^Stopped: the automation was turned off on Dec 14$/);
    await assertRollUpMatchesRows(org.orgId);
  });
});
