import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { home, orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const FOLLOW_UP_IN_14_DAYS = {
  delay_days: 14,
  template: { headline: "Two weeks on, {{street}}", message: "Hi {{client_name}}, still thinking about it?" },
};

/**
 * The automation list's card counts read as Overview's and Revenue's do: an automation whose four
 * events each made a card and a follow-up due in 14 days, two of those cards approved and printed,
 * one cancelled and one awaiting approval, sent 2 to print and has 1 waiting, not "8 queued".
 */
describe(`app API: the automation list's cards this month (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  let owner: SignedInUser;
  const printLocally = { printProvider: "local" as const, dataDir: tempDataDir() };

  before(async () => {
    ctx = await createAppTestContext();
    org = await orgWithAutomation(ctx, { steps: [FOLLOW_UP_IN_14_DAYS] });
    owner = await inviteAndAccept(ctx, org.orgId, "owner-counts@example.com", "owner", "Olive Owner");
  });
  after(async () => {
    await ctx.close();
  });

  test("follow-ups scheduled for later and cancelled cards are neither sent nor waiting; the count matches Overview and Revenue", async () => {
    const safety = await owner.browser.request(
      "PATCH",
      `/app/api/v1/automations/${org.automationId}/safety`,
      {
        body: { approval_required: true, auto_approve_after: null },
      },
    );
    assert.equal(safety.status, 200, safety.text);
    const approvedA = await queuePiece(ctx, org, home("1 Count St"));
    const approvedB = await queuePiece(ctx, org, home("2 Count St"));
    const cancelled = await queuePiece(ctx, org, home("3 Count St"));
    await queuePiece(ctx, org, home("4 Count St"));
    await runPipeline(ctx, printLocally);
    const approved = await owner.browser.request("POST", "/app/api/v1/approvals/approve", {
      body: { piece_ids: [approvedA.id, approvedB.id] },
    });
    assert.deepEqual(new Set(approved.body.piece_ids), new Set([approvedA.id, approvedB.id]), approved.text);
    const cancel = await owner.browser.request("POST", `/app/api/v1/pieces/${cancelled.id}/cancel`);
    assert.equal(cancel.status, 200, cancel.text);
    await runPipeline(ctx, printLocally);

    // The scene the tester counted 8 in: 4 first cards and 4 follow-ups, all made this month.
    const statuses = await queryRows<{ status: string; follow_up: boolean; pieces: number }>(
      ctx.database.db,
      sql`SELECT status, sequence_step IS NOT NULL AS follow_up, count(*)::int AS pieces FROM mail_pieces
          WHERE org_id = ${org.orgId}::uuid GROUP BY 1, 2 ORDER BY 2, 1`,
    );
    const firstCards = statuses.filter((row) => !row.follow_up);
    assert.deepEqual(
      firstCards.map((row) => [row.status, row.pieces]),
      [
        ["awaiting_approval", 1],
        ["cancelled", 1],
        ["mailed", 2],
      ],
    );
    const followUps = statuses.filter((row) => row.follow_up);
    assert.equal(
      followUps.reduce((sum, row) => sum + row.pieces, 0),
      4,
      "each first card has its follow-up",
    );
    assert.ok(
      followUps.some((row) => row.status === "scheduled"),
      "follow-ups wait for their day (14 days after the first card)",
    );

    const list = await owner.browser.request("GET", "/app/api/v1/automations");
    assert.equal(list.status, 200, list.text);
    const [automation] = list.body.automations;
    assert.equal(automation.cards_sent_to_print_this_month, 2, "the two approved cards, not 8");
    assert.equal(
      automation.cards_waiting,
      1,
      "the card awaiting approval; scheduled follow-ups are not waiting",
    );
    assert.equal("cards_this_month" in automation, false, "the old count, which read as 8, is gone");
    const one = await owner.browser.request("GET", `/app/api/v1/automations/${org.automationId}`);
    assert.deepEqual([one.body.cards_sent_to_print_this_month, one.body.cards_waiting], [2, 1]);

    // Overview's mail safety ("2 cards sent to print") and Revenue ("2 cards mailed") say the same.
    const overview = await owner.browser.request("GET", "/app/api/v1/mail-safety");
    const used = overview.body.automations.find(
      (entry: { automation_id: string }) => entry.automation_id === org.automationId,
    );
    assert.equal(used.cards, 2);
    assert.equal(overview.body.awaiting_approval, 1);
    const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
    const row = revenue.body.by_automation.find(
      (entry: { automation_id: string }) => entry.automation_id === org.automationId,
    );
    assert.equal(row.cards_mailed, 2);
  });
});
