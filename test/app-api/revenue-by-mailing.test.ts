/**
 * Revenue gives each reactivation mailing (sent from imported past jobs) its own row, named as the
 * contractor named it (migration 0690): all of them were one row "Reactivation mailings", and a
 * contractor who sent a spring and a fall mailing could not tell which one earned the money.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "../../src/db/database.ts";
import { call, recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { submitLead } from "../leads/leads-helpers.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const TEMPLATE = { headline: "Time for a check-up, {{client_name}}?", message: "It has been a while." };

interface Row {
  automation_id: string | null;
  automation_name: string;
  campaign_id: string | null;
  cards_mailed: number;
  leads: number;
  won_deals: number;
  attributed_revenue: number;
  cost: number | null;
  return_on_spend: number | null;
  cost_per_lead: number | null;
  cost_per_won_deal: number | null;
  experiment: unknown;
}

describe(`app API: Revenue by reactivation mailing (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string; automationId: string };
  let owner: SignedInUser;
  const mailings = new Map<string, string>();

  /** One import of past jobs on `street`, mailed by an owner as `name`; its campaign's id. */
  async function sendMailing(name: string, street: string, numbers: number[]) {
    const staged = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: {
        source: "jobs",
        rows: numbers.map((number) => ({
          address: `${number} ${street}, Springfield, IL 62704`,
          customer_name: `Customer ${number}`,
          completed_at: "2023-05-01",
        })),
      },
    });
    assert.equal(staged.status, 201, staged.text);
    const sent = await owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: {
        import_ids: [staged.body.import_id],
        filter: { completed_before: "2024-01-01" },
        template: TEMPLATE,
        name,
        confirmed_cards: numbers.length,
      },
    });
    assert.equal(sent.status, 201, sent.text);
    mailings.set(name, sent.body.campaign_id);
  }

  async function winDeal(address: string, dealId: string, amount: string) {
    const won = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: {
        address,
        deal_id: dealId,
        deal_amount: amount,
        deal_date: new Date().toISOString().slice(0, 10),
      },
    });
    assert.equal(won.status, 200, won.text);
    assert.equal(won.body.matched, true, won.text);
  }

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true, config: { dataDir: tempDataDir() } });
    org = await orgWithAutomation(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-mailing-rows@example.com", "owner");
    const cost = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { cost_per_card_cents: 100 },
    });
    assert.equal(cost.status, 200, cost.text);

    await sendMailing("Spring tune-up", "Oak St", [201, 203]);
    await sendMailing("Fall furnace check", "Elm St", [301, 303, 305]);
    await queuePiece(ctx, org, {
      street: "412 Maple Ave",
      city: "Springfield",
      state: "IL",
      zip: "62704",
      client_name: "Jane Smith",
    });
    await runPipeline(ctx, { dataDir: tempDataDir(), printProvider: "local" });
    await recordMailing(
      ctx,
      org.orgId,
      [
        {
          address: "9 Pine St, Springfield, IL 62704",
          mailed_at: new Date(Date.now() - 60_000).toISOString(),
        },
      ],
      "Pine Street",
    );

    // The fall mailing's first home answers its card; a deal is won at a home of each mailing.
    const pieces = await owner.browser.request("GET", "/app/api/v1/pieces");
    const fallCard = pieces.body.pieces.find(
      (piece: { campaign_name: string; address: string }) =>
        piece.campaign_name === "Fall furnace check" && piece.address.startsWith("301 "),
    );
    assert.ok(fallCard, pieces.text);
    const detail = await owner.browser.request("GET", `/app/api/v1/pieces/${fallCard.id}`);
    await submitLead(ctx, String(detail.body.landing_url).split("/l/")[1]!, {
      first_name: "Ida",
      last_name: "Moss",
      phone: "+1 217 555 0199",
    });
    await winDeal("201 Oak St, Springfield, IL 62704", "spring-1", "5000");
    await winDeal("301 Elm St, Springfield, IL 62704", "fall-1", "1200.50");
    await winDeal("305 Elm St, Springfield, IL 62704", "fall-2", "800");
  });
  after(() => ctx.close());

  const revenue = async () => {
    const answer = await owner.browser.request("GET", "/app/api/v1/revenue");
    assert.equal(answer.status, 200, answer.text);
    return answer.body as { by_automation: Row[]; by_month: Omit<Row, "automation_id">[] };
  };

  test("each reactivation mailing is a row of its own, by its name, with its cards, spend, leads and deals", async () => {
    const { by_automation: rows } = await revenue();
    const spring = rows.find((row) => row.automation_name === "Spring tune-up");
    const fall = rows.find((row) => row.automation_name === "Fall furnace check");
    assert.deepEqual(
      fall,
      {
        automation_id: null,
        automation_name: "Fall furnace check",
        campaign_id: mailings.get("Fall furnace check"),
        cards_mailed: 3,
        leads: 1,
        won_deals: 2,
        attributed_revenue: 2000.5,
        cost: 3,
        return_on_spend: 666.83,
        cost_per_lead: 3,
        cost_per_won_deal: 1.5,
        experiment: null,
      },
      JSON.stringify(rows),
    );
    assert.deepEqual(spring, {
      automation_id: null,
      automation_name: "Spring tune-up",
      campaign_id: mailings.get("Spring tune-up"),
      cards_mailed: 2,
      leads: 0,
      won_deals: 1,
      attributed_revenue: 5000,
      cost: 2,
      return_on_spend: 2500,
      cost_per_lead: null,
      cost_per_won_deal: 2,
      experiment: null,
    });
    assert.equal(
      rows.some((row) => row.automation_name === "Reactivation mailings"),
      false,
      "no row rolls the mailings up",
    );
    // The automation and the operator's recorded mail keep their rows; the most revenue comes first.
    assert.deepEqual(
      rows.map((row) => [row.automation_name, row.automation_id, row.campaign_id, row.cards_mailed]),
      [
        ["Spring tune-up", null, mailings.get("Spring tune-up"), 2],
        ["Fall furnace check", null, mailings.get("Fall furnace check"), 3],
        ["Completed jobs", org.automationId, null, 1],
        ["Recorded mailings (no automation)", null, null, 1],
      ],
    );
  });

  test("the rows add up to the months' totals, and a recount from the rows gives the same", async () => {
    const before = await revenue();
    const total = (rows: Omit<Row, "automation_id">[], figure: "cards_mailed" | "leads" | "won_deals") =>
      rows.reduce((sum, row) => sum + row[figure], 0);
    const money = (rows: Omit<Row, "automation_id">[], figure: "attributed_revenue" | "cost") =>
      Math.round(rows.reduce((sum, row) => sum + (row[figure] ?? 0), 0) * 100) / 100;
    for (const figure of ["cards_mailed", "leads", "won_deals"] as const) {
      assert.equal(total(before.by_automation, figure), total(before.by_month, figure), figure);
    }
    for (const figure of ["attributed_revenue", "cost"] as const) {
      assert.equal(money(before.by_automation, figure), money(before.by_month, figure), figure);
    }
    assert.deepEqual([total(before.by_month, "cards_mailed"), total(before.by_month, "won_deals")], [7, 3]);
    assert.equal(money(before.by_month, "attributed_revenue"), 7000.5);

    await ctx.database.db.execute(sql`SELECT rebuild_monthly_mail_figures(${org.orgId}::uuid)`);
    assert.deepEqual(await revenue(), before);
  });
});
