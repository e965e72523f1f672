import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { conversionsCsv, listConversions } from "../../src/attribution/app-revenue.ts";
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
