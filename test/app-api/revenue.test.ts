import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { conversionsCsv, listConversions } from "../../src/attribution/app-revenue.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { csvCell } from "../../src/domain/csv-cell.ts";
import { call, createOrg, recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

describe(`app API: Revenue (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let member: SignedInUser;
  let otherOwner: SignedInUser;
  const now = new Date();

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await createOrg(ctx);
    const owner = await inviteAndAccept(ctx, org.orgId, "owner-revenue@example.com", "owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-revenue@example.com", "member");
    const other = await createOrg(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "other-revenue@example.com", "owner");
    await owner.browser.request("PATCH", "/app/api/v1/organization", { body: { cost_per_card_cents: 100 } });
    const mailedAt = new Date(now.getTime() - 86_400_000).toISOString();
    await recordMailing(
      ctx,
      org.orgId,
      ["1 Pine St", "2 Pine St", "3 Pine St", "4 Pine St"].map((street) => ({
        address: `${street}, Springfield, IL 62704`,
        mailed_at: mailedAt,
      })),
      "Pine Street",
    );
    const won = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: {
        address: "1 Pine St, Springfield, IL 62704",
        deal_id: '=HYPERLINK("http://evil")',
        deal_name: 'Roof, "premium"',
        deal_amount: "12000",
        deal_date: now.toISOString().slice(0, 10),
      },
    });
    assert.equal(won.status, 200, won.text);
    assert.equal(won.body.matched, true, won.text);
  });
  after(() => ctx.close());

  test("by automation and by month: conversions, revenue, cards, cost, return, cost per won deal", async () => {
    const revenue = await member.browser.request("GET", "/app/api/v1/revenue");
    assert.equal(revenue.status, 200, revenue.text);
    const [mailing] = revenue.body.by_automation;
    assert.equal(mailing.automation_id, null);
    assert.equal(mailing.cards_mailed, 4);
    assert.equal(mailing.won_deals, 1);
    assert.equal(mailing.attributed_revenue, 12000);
    assert.equal(mailing.cost, 4);
    assert.equal(mailing.return_on_spend, 3000);
    assert.equal(mailing.cost_per_won_deal, 4);
    assert.equal(mailing.cost_per_lead, null, "no leads yet");
    assert.equal(revenue.body.by_month.length, 12);
    const totalRevenue = revenue.body.by_month.reduce(
      (sum: number, m: { attributed_revenue: number }) => sum + m.attributed_revenue,
      0,
    );
    assert.equal(totalRevenue, 12000);
    assert.equal(revenue.body.conversions.length, 1);
    assert.equal(revenue.body.conversions[0].amount, 12000);
    assert.equal(revenue.body.conversions[0].campaign_name, "Pine Street");
    assert.match(revenue.body.conversions[0].address, /1 Pine St/);
  });

  test("a new cost per card counts from the next card mailed: cards already mailed keep theirs, on every screen", async () => {
    const pricing = await createOrg(ctx);
    const owner = await inviteAndAccept(ctx, pricing.orgId, "owner-pricing@example.com", "owner");
    const setCost = async (cents: number) => {
      const set = await owner.browser.request("PATCH", "/app/api/v1/organization", {
        body: { cost_per_card_cents: cents },
      });
      assert.equal(set.status, 200, set.text);
    };
    const mailedAt = new Date(now.getTime() - 60_000).toISOString();
    const mail = (streets: string[], name: string) =>
      recordMailing(
        ctx,
        pricing.orgId,
        streets.map((street) => ({ address: `${street}, Springfield, IL 62704`, mailed_at: mailedAt })),
        name,
      );
    const costs = async () => {
      const [revenue, overview] = await Promise.all([
        owner.browser.request("GET", "/app/api/v1/revenue"),
        owner.browser.request("GET", "/app/api/v1/overview"),
      ]);
      return {
        byAutomation: revenue.body.by_automation.map((row: { cost: number | null }) => row.cost),
        thisMonth: revenue.body.by_month.at(-1).cost,
        overview: overview.body.this_month.cost,
      };
    };

    // Mailed before any cost was set: priced at the first cost set, and kept at it after.
    const unpriced = await mail(["1 Elm St", "2 Elm St"], "Before a price");
    assert.deepEqual(await costs(), { byAutomation: [null], thisMonth: null, overview: null });
    await setCost(85);
    assert.deepEqual(await costs(), { byAutomation: [1.7], thisMonth: 1.7, overview: 1.7 });
    await mail(["3 Elm St", "4 Elm St", "5 Elm St"], "At 85 cents");

    // A new price: the next cards cost it, the five already mailed keep 85 cents (two of them had
    // no price of their own: they keep the one the screens showed for them).
    await setCost(110);
    assert.deepEqual(await costs(), { byAutomation: [4.25], thisMonth: 4.25, overview: 4.25 });
    await mail(["6 Elm St", "7 Elm St"], "At 110 cents");
    assert.deepEqual(await costs(), { byAutomation: [6.45], thisMonth: 6.45, overview: 6.45 });

    // A card mailed by the pipeline later (mailed_at set on a row that had none) takes the price of its day.
    const db = ctx.database.db;
    await db.execute(
      sql`UPDATE mail_pieces SET mailed_at = NULL, cost_cents = NULL WHERE id = ${unpriced.pieces[0]!.id}::uuid`,
    );
    await db.execute(
      sql`UPDATE mail_pieces SET mailed_at = now() WHERE id = ${unpriced.pieces[0]!.id}::uuid`,
    );
    const [repriced] = await queryRows<{ cost_cents: number | null }>(
      db,
      sql`SELECT cost_cents FROM mail_pieces WHERE id = ${unpriced.pieces[0]!.id}::uuid`,
    );
    assert.equal(repriced?.cost_cents, 110);
    // 1 card without a price of its own (85), that one at 110, 3 at 85, 2 at 110.
    assert.deepEqual(await costs(), { byAutomation: [6.7], thisMonth: 6.7, overview: 6.7 });

    // Handed to the printer at one price and reported mailed (as Lob does, days later) after the
    // price changed: the price of the hand-over, which the monthly caps counted too.
    const second = unpriced.pieces[1]!.id;
    await db.execute(
      sql`UPDATE mail_pieces SET mailed_at = NULL, cost_cents = NULL WHERE id = ${second}::uuid`,
    );
    await db.execute(sql`UPDATE mail_pieces SET status = 'submitted' WHERE id = ${second}::uuid`);
    await setCost(130);
    await db.execute(
      sql`UPDATE mail_pieces SET status = 'mailed', mailed_at = now() WHERE id = ${second}::uuid`,
    );
    // Both first cards at 110 now, 3 at 85, 2 at 110.
    assert.deepEqual(await costs(), { byAutomation: [6.95], thisMonth: 6.95, overview: 6.95 });

    // Kept on write, the figures agree with a recount from the rows.
    await db.execute(sql`SELECT rebuild_monthly_mail_figures(${pricing.orgId}::uuid)`);
    assert.deepEqual(await costs(), { byAutomation: [6.95], thisMonth: 6.95, overview: 6.95 });
    const priced = await queryRows<{ cost_cents: number | null }>(
      db,
      sql`SELECT cost_cents FROM mail_pieces WHERE org_id = ${pricing.orgId}::uuid ORDER BY cost_cents NULLS FIRST`,
    );
    assert.deepEqual(
      priced.map((row) => row.cost_cents),
      [85, 85, 85, 110, 110, 110, 110],
    );
  });

  test("the CSV escapes quotes and commas and defuses formulas", async () => {
    const csv = await member.browser.request("GET", "/app/api/v1/revenue/conversions.csv");
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers["content-type"]), /^text\/csv/);
    assert.match(String(csv.headers["content-disposition"]), /attachment; filename="conversions.csv"/);
    const [header, row] = csv.text.split("\r\n");
    assert.equal(
      header,
      "deal_id,deal_name,address,amount,close_date,campaign,automation,attribution_type,confidence",
    );
    assert.ok(row!.startsWith(`"'=HYPERLINK(""http://evil"")","Roof, ""premium""",`), row);
    for (const [input, output] of [
      ["+1", `"'+1"`],
      ["-2", `"'-2"`],
      ["@x", `"'@x"`],
      ["plain", "plain"],
      ["a\nb", '"a\nb"'],
      [null, ""],
    ] as const) {
      assert.equal(csvCell(input), output);
    }
  });

  test("another organization's revenue is its own", async () => {
    const theirs = await otherOwner.browser.request("GET", "/app/api/v1/revenue");
    assert.deepEqual(theirs.body.by_automation, []);
    assert.deepEqual(theirs.body.conversions, []);
    const csv = await otherOwner.browser.request("GET", "/app/api/v1/revenue/conversions.csv");
    assert.equal(csv.text.split("\r\n").filter(Boolean).length, 1, "the header only");
    assert.equal((await ctx.app.inject({ method: "GET", url: "/app/api/v1/revenue" })).statusCode, 401);
  });

  test("the CSV is read a page at a time: every conversion once, newest close first, ties by id", async () => {
    const sameDay = now.toISOString().slice(0, 10);
    for (const [index, street] of [
      "2 Pine St",
      "3 Pine St",
      "4 Pine St",
      "2 Pine St",
      "3 Pine St",
    ].entries()) {
      const won = await call(ctx, "POST", "/api/v1/conversions", {
        key: org.key,
        body: {
          address: `${street}, Springfield, IL 62704`,
          deal_id: `page-${index}`,
          deal_amount: String(100 + index),
          deal_date: sameDay,
        },
      });
      assert.equal(won.body.matched, true, won.text);
    }
    const listed = await listConversions(ctx.database.db, org.orgId, 100);
    assert.equal(listed.length, 6);
    const paged: string[] = [];
    for await (const chunk of conversionsCsv(ctx.database.db, org.orgId, 2)) paged.push(chunk);
    assert.equal(paged.length, 1 + 3, "the header, then three pages of two");
    const dealIds = (csv: string) =>
      csv
        .split("\r\n")
        .slice(1)
        .filter(Boolean)
        .map((line) => line.split(",")[0]);
    const expected = listed.map((row) => csvCell(row.deal_id));
    assert.deepEqual(dealIds(paged.join("")), expected);
    const download = await member.browser.request("GET", "/app/api/v1/revenue/conversions.csv");
    assert.deepEqual(dealIds(download.text), expected);
    assert.equal(new Set(expected).size, 6);
  });
});
