import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "../app-api/helpers.ts";
import { admin, call } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";

const followUp = (delayDays: number, headline: string) => ({
  delay_days: delayDays,
  template: { headline, message: "Hi {{client_name}}, still thinking about {{street}}? Scan the code." },
});

type StoppedBecause = Record<"lead" | "won_deal" | "opt_out" | "customer" | "returned", number>;
interface Counts {
  stopped_because_home_answered: number;
  not_sent: number;
  stopped_because: StoppedBecause;
}

/**
 * s54 #7: the automation list said every stopped follow-up "stopped because the home answered",
 * also one whose home the contractor added as a customer by hand. Each stop keeps what stopped it,
 * in all and per step, so the app can say it.
 */
describe(`what stopped each follow-up, in all and per step (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-11-30T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };
  let street = 0;
  const nextHome = (client_name: string) => ({
    street: `${300 + ++street} Reason St`,
    city: "Springfield",
    state: "IL",
    zip: "62704",
    client_name,
  });
  const addressOf = (home: ReturnType<typeof nextHome>) =>
    `${home.street}, ${home.city}, ${home.state} ${home.zip}`;

  before(async () => {
    ctx = await createAppTestContext({ clock });
  });
  after(async () => ctx.close());

  async function followUpCardsOf(owner: SignedInUser, automationId: string) {
    const one = await owner.browser.request("GET", `/app/api/v1/automations/${automationId}`);
    assert.equal(one.status, 200, one.text);
    return one.body.follow_up_cards as Counts & { by_step: (Counts & { delay_days: number })[] };
  }

  test("a lead, a won deal and a customer added by hand in the app are three reasons, not three answers", async () => {
    const org = await orgWithAutomation(ctx, { steps: [followUp(14, "Two weeks on")] });
    const owner = await inviteAndAccept(ctx, org.orgId, "owner@reasons.example", "owner", "Olive Owner");
    const homer = nextHome("Homer");
    const marge = nextHome("Marge");
    const carl = nextHome("Carl");
    const first = await queuePiece(ctx, org, homer);
    await queuePiece(ctx, org, marge);
    await runPipeline(ctx, local);
    // Carl's first card waits for approval, its follow-up already written: he is added as a customer
    // by hand before anyone approves it, so neither card is ever mailed.
    const safety = `/automations/${org.automationId}/mail-safety`;
    assert.equal((await admin(ctx, "PATCH", safety, { approval_required: true })).status, 200);
    await queuePiece(ctx, org, carl);
    await runPipeline(ctx, local);
    const carlsCards = await queryRows<{ status: string; sequence_step: number | null }>(
      ctx.database.db,
      sql`SELECT status, sequence_step FROM mail_pieces
          WHERE org_id = ${org.orgId}::uuid AND address LIKE ${`${carl.street}%`} ORDER BY sequence_step NULLS FIRST`,
    );
    assert.deepEqual(
      carlsCards.map((card) => card.status),
      ["awaiting_approval", "scheduled"],
    );

    const answers = [
      await call(ctx, "POST", `/l/${first.token}`, {
        body: { first_name: "Homer", last_name: "Simpson", email: "homer@example.com" },
      }),
      await call(ctx, "POST", "/api/v1/conversions", {
        key: org.key,
        body: { address: addressOf(marge), deal_amount: 4250.25 },
      }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [201, 200],
      answers.map((answer) => answer.text).join("\n"),
    );
    const added = await owner.browser.request("POST", "/app/api/v1/customers", {
      body: { address: addressOf(carl) },
    });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.stopped_cards, 2, "Carl's first card and its follow-up");

    const cards = await followUpCardsOf(owner, org.automationId);
    const expected: StoppedBecause = { lead: 1, won_deal: 1, opt_out: 0, customer: 1, returned: 0 };
    assert.deepEqual(cards.stopped_because, expected, JSON.stringify(cards));
    assert.equal(cards.stopped_because_home_answered, 3);
    assert.equal(cards.not_sent, 0);
    assert.equal(cards.by_step.length, 1);
    assert.equal(cards.by_step[0]!.delay_days, 14);
    assert.deepEqual(cards.by_step[0]!.stopped_because, expected, "the step says the same reasons");
  });
});
