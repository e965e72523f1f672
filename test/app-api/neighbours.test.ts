import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { insertReferenceAddresses, referenceAddressOf } from "../../src/neighbours/reference-addresses.ts";
import { syntheticNeighbourhood } from "../../src/neighbours/synthetic-neighbourhood.ts";
import { admin, call, createOrg, recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { runPipeline } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const HOME = { city: "Springfield", state: "IL", zip: "62704" };
const LONELY_HOME = {
  LON: "-89.2",
  LAT: "40.4",
  NUMBER: "1",
  STREET: "Lonely Road",
  CITY: "Springfield",
  REGION: "IL",
  POSTCODE: "62704",
};

/** The generated neighbourhood around 742 Evergreen Terrace, and one home with none around it. */
async function loadNeighbourhood(ctx: TestContext, homes: number) {
  const rows = [...syntheticNeighbourhood(homes), LONELY_HOME].flatMap((record) => {
    const verdict = referenceAddressOf(record);
    return "address" in verdict ? [verdict.address] : [];
  });
  await insertReferenceAddresses(ctx.database, rows);
}

const sendJob = (ctx: TestContext, key: string, street: string, dedup: string) =>
  call(ctx, "POST", "/api/v1/events", {
    key,
    body: {
      event_type: "job.completed",
      object_type: "job",
      dedup_id: dedup,
      record: { id: dedup, properties: { ...HOME, street, client_name: "Homer Simpson" } },
    },
  });

describe(`app API: neighbour automations (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let owner: SignedInUser;
  const samples: Record<string, string> = {};

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    await loadNeighbourhood(ctx, 3000);
    org = await createOrg(ctx, { name: "Bright Roofing" });
    owner = await inviteAndAccept(ctx, org.orgId, "owner-neighbours@example.com", "owner");
    for (const [street, dedup] of [
      ["1 Lonely Road", "lonely"],
      ["742 Evergreen Terrace", "evergreen"],
    ] as const) {
      assert.equal((await sendJob(ctx, org.key, street, dedup)).status, 202);
      const listed = await owner.browser.request("GET", "/app/api/v1/event-samples?event_type=job.completed");
      samples[dedup] = listed.body[0].id;
    }
  });
  after(() => ctx.close());

  test("the builder saves an audience with the operator API's defaults and limits", async () => {
    const created = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: {
        name: "Roof neighbours",
        trigger: { type: "custom_api", event_type: "job.completed" },
        audience: { type: "neighbours" },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.audience, { type: "neighbours", count: 20, radius_m: 400 });
    assert.match(created.body.template.headline, /\{\{job_street\}\}/, "the neighbour card's default text");
    for (const audience of [
      { type: "neighbours", count: 201 },
      { type: "neighbours", radius_m: 5001 },
      { type: "neighbours", count: 2.5 },
      { type: "street" },
    ]) {
      const refused = await owner.browser.request("PATCH", `/app/api/v1/automations/${created.body.id}`, {
        body: { audience },
      });
      assert.equal(refused.status, 422, `${JSON.stringify(audience)}: ${refused.text}`);
    }
    const patched = await owner.browser.request("PATCH", `/app/api/v1/automations/${created.body.id}`, {
      body: { audience: { type: "neighbours", count: 200, radius_m: 250 } },
    });
    assert.deepEqual(patched.body.audience, { type: "neighbours", count: 200, radius_m: 250 });
    const back = await owner.browser.request("PATCH", `/app/api/v1/automations/${created.body.id}`, {
      body: { audience: { type: "home" } },
    });
    assert.deepEqual(back.body.audience, { type: "home" });
  });

  test("a dry run counts the homes, the exclusions by reason, and gives the points for the map", async () => {
    // 744 (20 m) is a customer, 741 opted out, 740 was mailed 5 days ago.
    const customer = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "744 Evergreen Terrace, Springfield, IL 62704" },
    });
    assert.equal(customer.status, 200, customer.text);
    const optedOut = normalizeAddress("741 Evergreen Terrace, Springfield, IL 62704");
    await ctx.database.db.execute(
      sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, created_at) VALUES (${org.orgId}::uuid, ${optedOut}, 'opted_out', now())`,
    );
    await recordMailing(ctx, org.orgId, [
      {
        address: "740 Evergreen Terrace, Springfield, IL 62704",
        mailed_at: new Date(Date.now() - 5 * 86_400_000).toISOString(),
      },
    ]);
    const run = await owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
      body: {
        automation: {
          audience: { type: "neighbours", count: 12, radius_m: 400 },
          template: { headline: "Hi {{client_name}}", message: "We just roofed a home on {{job_street}}." },
        },
        sample_id: samples.evergreen,
      },
    });
    assert.equal(run.status, 200, run.text);
    assert.equal(run.body.outcome, "queued");
    // The card as a neighbour gets it: the job's street, never the customer's name or house number.
    assert.equal(run.body.merge_preview.message, "We just roofed a home on Evergreen Ter.");
    assert.doesNotMatch(JSON.stringify(run.body.merge_preview), /Homer|742/);
    const preview = run.body.neighbours;
    assert.equal(preview.homes_mailed, 12);
    assert.equal(preview.homes.length, 12);
    assert.equal(preview.job.street, "Evergreen Ter", "no house number");
    assert.equal(preview.excluded.own_home, 1);
    assert.equal(preview.excluded.customers, 1);
    assert.equal(preview.excluded.opted_out, 1);
    assert.equal(preview.excluded.recently_mailed, 1);
    const mailed = preview.homes.map((home: { address: string }) => home.address);
    for (const left of ["742 Evergreen", "744 Evergreen", "741 Evergreen", "740 Evergreen"]) {
      assert.ok(!mailed.some((address: string) => address.startsWith(left)), `${left} is left out`);
    }
    const distances = preview.homes.map((home: { distance_m: number }) => home.distance_m);
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
      "nearest first",
    );
    assert.ok(distances.every((d: number) => d <= 400));

    const home = await owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
      body: { automation: {}, sample_id: samples.evergreen },
    });
    assert.equal(home.body.neighbours, undefined, "a home audience has no neighbours");
  });

  test("a dry run with no reference addresses nearby says why", async () => {
    const run = await owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
      body: { automation: { audience: { type: "neighbours", radius_m: 300 } }, sample_id: samples.lonely },
    });
    assert.equal(run.body.outcome, "queued");
    assert.equal(run.body.neighbours.homes_mailed, 0);
    assert.equal(run.body.neighbours.reason, "no reference addresses within 984 ft (300 m) of the job");
  });

  test("revenue by source job: the job's street, cards, leads, won deals, revenue and totals against cost", async () => {
    await owner.browser.request("PATCH", "/app/api/v1/organization", { body: { cost_per_card_cents: 80 } });
    const automation = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: {
        name: "Maple neighbours",
        trigger: { type: "custom_api", event_type: "job.completed" },
        audience: { type: "neighbours", count: 10, radius_m: 300 },
      },
    });
    assert.equal(automation.status, 201, automation.text);
    assert.equal(
      (await sendJob(ctx, org.key, "820 Maple Avenue", "maple")).body.outcomes[0].reason,
      "queued",
    );
    await runPipeline(ctx, {});
    await runPipeline(ctx, {});
    const before = await owner.browser.request("GET", "/app/api/v1/revenue/by-source-job");
    assert.equal(before.status, 200, before.text);
    const job = before.body.jobs.find((each: { job_street: string }) => each.job_street === "Maple Ave");
    assert.ok(job, before.text);
    assert.equal(job.cards_sent, 10);
    const campaigns = (await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`)).body.campaigns;
    const campaign = campaigns.find((each: { id: string }) => each.id === job.campaign_id);
    const dealHome = campaign?.pieces[0]?.address as string | undefined;
    assert.ok(dealHome, "the campaign has pieces");
    const deal = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { address: dealHome, deal_id: "D-1", deal_amount: "9000", deal_stage: "closedwon" },
    });
    assert.equal(deal.body.matched, true, deal.text);
    const after = await owner.browser.request("GET", "/app/api/v1/revenue/by-source-job");
    const earned = after.body.jobs.find((each: { job_street: string }) => each.job_street === "Maple Ave");
    assert.equal(earned.won_deals, 1);
    assert.equal(earned.revenue, 9000);
    assert.doesNotMatch(JSON.stringify(after.body), /820 Maple/, "never the job's house number");
    assert.equal(after.body.totals.cards_sent, 10);
    assert.equal(after.body.totals.won_deals, 1);
    assert.equal(after.body.totals.cost, 8);
    assert.equal(after.body.totals.return_on_spend, 1125);
  });

  test("the app lists the ZIPs with addresses loaded, and a neighbour test says whether the job's ZIP has any", async () => {
    const coverage = await owner.browser.request("GET", "/app/api/v1/reference-addresses/coverage");
    assert.equal(coverage.status, 200, coverage.text);
    assert.deepEqual(coverage.body, {
      zips: [{ zip: "62704", city: "Springfield", state: "IL", homes: 3001 }],
      total_homes: 3001,
    });
    const test = (sampleId: string, audience: object) =>
      owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
        body: { automation: { audience }, sample_id: sampleId },
      });
    const covered = await test(samples.evergreen!, { type: "neighbours" });
    assert.deepEqual(covered.body.area, { zip: "62704", homes_loaded: 3001 });
    const home = await test(samples.evergreen!, { type: "home" });
    assert.equal(home.body.area, undefined, "a home audience needs no neighbour addresses");

    const elsewhere = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      body: {
        event_type: "job.elsewhere",
        object_type: "job",
        dedup_id: "elsewhere",
        record: {
          id: "elsewhere",
          properties: { street: "350 Fifth Avenue", city: "New York", state: "NY", zip: "10118" },
        },
      },
    });
    assert.equal(elsewhere.status, 202, elsewhere.text);
    const listed = await owner.browser.request("GET", "/app/api/v1/event-samples?event_type=job.elsewhere");
    const uncovered = await test(listed.body[0].id, { type: "neighbours" });
    assert.equal(uncovered.body.outcome, "no_address");
    assert.deepEqual(uncovered.body.area, { zip: "10118", homes_loaded: 0 });
  });

  test("the map is drawn offline unless a tile URL is configured", async () => {
    const config = await owner.browser.request("GET", "/app/api/v1/map-config");
    assert.deepEqual(config.body, { tile_url: null, attribution: null });
  });
});
