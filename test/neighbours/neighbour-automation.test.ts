import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { NEIGHBOUR_DEFAULT_TEMPLATE } from "../../src/neighbours/audience.ts";
import { insertReferenceAddresses, referenceAddressOf } from "../../src/neighbours/reference-addresses.ts";
import { syntheticNeighbourhood } from "../../src/neighbours/synthetic-neighbourhood.ts";
import { loadPiece, recipientOf } from "../../src/pieces/piece-record.ts";
import { composeCard } from "../../src/render/compose.ts";
import { admin, call, createAutomation, createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { runPipeline } from "../pipeline/helpers.ts";

const NOW = "2026-06-30T12:00:00Z";
const JOB = { street: "742 Evergreen Terrace", city: "Springfield", state: "IL", zip: "62704" };
const LONELY_HOME = {
  LON: "-89.2",
  LAT: "40.4",
  NUMBER: "1",
  STREET: "Lonely Road",
  CITY: "Springfield",
  REGION: "IL",
  POSTCODE: "62704",
};

export async function loadNeighbourhood(ctx: TestContext, homes: number) {
  const rows = [...syntheticNeighbourhood(homes), LONELY_HOME].flatMap((record) => {
    const verdict = referenceAddressOf(record);
    return "address" in verdict ? [verdict.address] : [];
  });
  await insertReferenceAddresses(ctx.database, rows);
}

const sendJob = (ctx: TestContext, key: string, properties: Record<string, string>, dedup: string) =>
  call(ctx, "POST", "/api/v1/events", {
    key,
    body: {
      event_type: "job.completed",
      object_type: "job",
      dedup_id: dedup,
      record: { id: dedup, properties },
    },
  });

interface NeighbourRecord {
  homes_mailed: number;
  excluded_customers: number;
  excluded_recently_mailed: number;
  reason: string | null;
  job_street: string;
  job_city: string;
}

const neighbourRecord = async (ctx: TestContext, campaignId: string) =>
  (
    await queryRows<NeighbourRecord>(
      ctx.database.db,
      sql`SELECT homes_mailed, excluded_customers, excluded_recently_mailed, reason, job_street, job_city
          FROM neighbour_campaigns WHERE campaign_id = ${campaignId}`,
    )
  )[0];

async function piecesOf(ctx: TestContext, orgId: string, campaignId: string) {
  const campaigns = (await admin(ctx, "GET", `/orgs/${orgId}/campaigns`)).body.campaigns;
  const campaign = campaigns.find((each: { id: string }) => each.id === campaignId);
  assert.ok(campaign, "the campaign is listed");
  return campaign.pieces as { id: string; address: string; recipient_name: string | null; token: string }[];
}

describe(`neighbour automations (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ clock: fixedClock(NOW) });
    await loadNeighbourhood(ctx, 3000);
  });
  after(async () => ctx.close());

  test("create and PATCH accept an audience, fill its defaults and refuse one out of bounds", async () => {
    const org = await createOrg(ctx);
    const home = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, { name: "Thanks" });
    assert.deepEqual(home.body.audience, { type: "home" });
    const patched = await admin(ctx, "PATCH", `/automations/${home.body.id}`, {
      audience: { type: "neighbours" },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.audience, { type: "neighbours", count: 20, radius_m: 400 });
    for (const audience of [
      { type: "neighbours", count: 201 },
      { type: "neighbours", count: 0 },
      { type: "neighbours", radius_m: 5001 },
      { type: "neighbours", count: 2.5 },
      { type: "street" },
      { type: "home", count: 3 },
    ]) {
      const refused = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, { name: "Bad", audience });
      assert.equal(refused.status, 422, `${JSON.stringify(audience)}: ${refused.text}`);
    }
    const back = await admin(ctx, "PATCH", `/automations/${home.body.id}`, { audience: { type: "home" } });
    assert.deepEqual(back.body.audience, { type: "home" });
  });

  test("a home the organization served (an earlier job's home, an imported past job) never gets the neighbour card", async () => {
    const org = await createOrg(ctx, { name: "Served Roofing" });
    const automation = await createAutomation(ctx, org.orgId, {
      name: "Neighbours of jobs",
      trigger: { type: "custom_api", event_type: "job.completed" },
      audience: { type: "neighbours", count: 20, radius_m: 400 },
    });
    const imported = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: {
        source: "jobs",
        rows: [{ address: "743 Evergreen Terrace, Springfield, IL 62704", customer_name: "Ned Flanders" }],
      },
    });
    assert.equal(imported.status, 201, imported.text);
    const campaignOf = async (dedup: string, properties: Record<string, string>) => {
      const event = await sendJob(ctx, org.key, properties, dedup);
      assert.equal(event.status, 202, event.text);
      assert.equal(event.body.outcomes[0].reason, "queued");
      await runPipeline(ctx, {});
      await runPipeline(ctx, {});
      const [campaign] = await queryRows<{ id: string }>(
        ctx.database.db,
        sql`SELECT id FROM campaigns WHERE org_id = ${org.orgId}::uuid AND automation_id = ${automation.id}::uuid
              AND dedup_key = ${dedup}`,
      );
      assert.ok(campaign, `the campaign of ${dedup}`);
      return campaign.id;
    };
    // The first job, then the next job next door the same week.
    const first = await campaignOf("served-742", { ...JOB, client_name: "Homer Simpson" });
    const firstPieces = await piecesOf(ctx, org.orgId, first);
    assert.ok(
      !firstPieces.some((piece) => piece.address.startsWith("743 Evergreen")),
      "the imported past job's home is not a neighbour",
    );
    const second = await campaignOf("served-744", {
      ...JOB,
      street: "744 Evergreen Terrace",
      client_name: "Ned",
    });
    const addresses = (await piecesOf(ctx, org.orgId, second)).map((piece) => piece.address);
    assert.ok(addresses.length > 0);
    for (const served of ["742 Evergreen", "743 Evergreen", "744 Evergreen"]) {
      assert.ok(
        !addresses.some((address) => address.startsWith(served)),
        `${served} is served: no neighbour card`,
      );
    }
    const record = await neighbourRecord(ctx, second);
    assert.ok((record?.excluded_customers ?? 0) >= 2, JSON.stringify(record));
  });

  test("one job mails its nearest neighbours, never the job's home, a customer or a recently mailed home", async () => {
    const org = await createOrg(ctx, { name: "Bright Roofing" });
    const automation = await createAutomation(ctx, org.orgId, {
      name: "Roof neighbours",
      trigger: { type: "custom_api", event_type: "job.completed" },
      audience: { type: "neighbours", count: 20, radius_m: 400 },
    });
    // 744 is 20 m from the job, registered without its ZIP; 740 (20 m) was mailed 5 days ago,
    // 746 (40 m) 40 days ago, outside the window.
    const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "744 Evergreen Terrace, Springfield, IL" },
    });
    assert.equal(registered.status, 200, registered.text);
    await recordMailing(ctx, org.orgId, [
      { address: "740 Evergreen Terrace, Springfield, IL 62704", mailed_at: "2026-06-25T12:00:00Z" },
      { address: "746 Evergreen Terrace, Springfield, IL 62704", mailed_at: "2026-05-21T12:00:00Z" },
      { address: "745 Evergreen Terrace, Springfield, IL 62704", mailed_at: "2026-05-21T12:00:00Z" },
    ]);
    // 745's card of two days ago waits under a monthly cap: it may still print, so the pipeline
    // would skip a second one, and the fan-out leaves the home out by the same rule.
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET status = 'capped', mailed_at = NULL, created_at = '2026-06-28T12:00:00Z'
          WHERE org_id = ${org.orgId}::uuid AND address LIKE '745 Evergreen%'`,
    );

    const event = await sendJob(ctx, org.key, { ...JOB, client_name: "Homer Simpson" }, "job-742");
    assert.equal(event.status, 202, event.text);
    assert.deepEqual(event.body.outcomes, [
      {
        automation_id: automation.id,
        name: "Roof neighbours",
        matched: true,
        reason: "queued",
        ...(event.body.outcomes[0].campaign_id ? { campaign_id: event.body.outcomes[0].campaign_id } : {}),
      },
    ]);
    const campaigns = (await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`)).body.campaigns;
    const campaignId = campaigns.find(
      (each: { automation_id: string }) => each.automation_id === automation.id,
    ).id;
    await runPipeline(ctx, {});
    await runPipeline(ctx, {});

    const pieces = await piecesOf(ctx, org.orgId, campaignId);
    assert.equal(pieces.length, 20);
    const addresses = pieces.map((piece) => piece.address);
    for (const excluded of ["742 Evergreen", "744 Evergreen", "740 Evergreen", "745 Evergreen"]) {
      assert.ok(!addresses.some((address) => address.startsWith(excluded)), `${excluded} is not mailed`);
    }
    assert.ok(
      addresses.some((address) => address.startsWith("746 Evergreen")),
      "mailed 40 days ago: mailed again",
    );
    assert.ok(
      addresses.some((address) => address.startsWith("743 Evergreen")),
      "the nearest home is mailed",
    );
    assert.equal(new Set(pieces.map((piece) => piece.token)).size, 20, "each card has its own landing page");
    assert.ok(pieces.every((piece) => piece.recipient_name === null));

    const record = await neighbourRecord(ctx, campaignId);
    assert.deepEqual(record, {
      homes_mailed: 20,
      excluded_customers: 1,
      excluded_recently_mailed: 2,
      reason: null,
      job_street: "Evergreen Ter",
      job_city: "Springfield",
    });

    // The card: the job's street and city, never the customer's name or house number.
    for (const { id } of pieces) {
      const piece = await loadPiece(ctx.database.db, org.orgId, id);
      assert.ok(piece);
      assert.equal(piece.status, "mailed", "print-ready and handed to the local outbox");
      assert.deepEqual(piece.template.headline, NEIGHBOUR_DEFAULT_TEMPLATE.headline);
      const card = composeCard({
        recipient: recipientOf(piece),
        orgName: piece.orgName,
        template: piece.template,
        landingUrl: "http://porchlight.test/l/x",
        homeImage: null as never,
        printAddressBlock: true,
      });
      const printed = [card.headline, card.greetingName, card.message].join(" ");
      assert.match(card.headline, /We just finished a job on Evergreen Ter/);
      // The default message names the job's street only: shortened to fit a card with an offer (card-design.md).
      assert.match(card.message, /we just finished a job on Evergreen Ter\./);
      assert.doesNotMatch(printed, /Homer|Simpson|742/);
      assert.doesNotMatch(card.addressLines.join(" "), /Homer|Simpson|742 /);
    }

    // The same event again is the spec's duplicate: nothing more is queued.
    const replay = await sendJob(ctx, org.key, { ...JOB, client_name: "Homer Simpson" }, "job-742");
    assert.equal(replay.body.outcomes[0].reason, "duplicate");
  });

  test("a neighbour's lead and won deal attribute to the source job, shown by job with totals", async () => {
    const org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Neighbours",
      trigger: { type: "custom_api", event_type: "job.completed" },
      audience: { type: "neighbours", count: 10, radius_m: 300 },
    });
    await sendJob(
      ctx,
      org.key,
      { street: "820 Maple Avenue", city: "Springfield", state: "IL", zip: "62704" },
      "j-1",
    );
    await sendJob(
      ctx,
      org.key,
      { street: "1 Lonely Road", city: "Springfield", state: "IL", zip: "62704" },
      "j-2",
    );
    await runPipeline(ctx, {});
    await runPipeline(ctx, {});
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/neighbour-jobs?cost_per_card_cents=80`);
    assert.equal(listed.status, 200, listed.text);
    const maple = listed.body.jobs.find((job: { job_street: string }) => job.job_street === "Maple Ave");
    assert.ok(maple, listed.text);
    const pieces = await piecesOf(ctx, org.orgId, maple.campaign_id);
    const [leadHome, dealHome] = [pieces[0]!.address, pieces[1]!.address];
    const lead = await call(ctx, "POST", "/api/v1/tracking/lead", {
      key: org.key,
      body: { address: leadHome, first_name: "Ned", email: "ned@example.com" },
    });
    assert.equal(lead.body.matched, true, lead.text);
    const deal = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { address: dealHome, deal_id: "D-9", deal_amount: "8200.50", deal_stage: "closedwon" },
    });
    assert.equal(deal.body.matched, true, deal.text);

    const byJob = (await admin(ctx, "GET", `/orgs/${org.orgId}/neighbour-jobs?cost_per_card_cents=80`)).body;
    assert.equal(byJob.jobs.length, 2);
    const [lonely, earned] = [
      byJob.jobs.find((job: { job_street: string }) => job.job_street === "Lonely Rd"),
      byJob.jobs.find((job: { job_street: string }) => job.job_street === "Maple Ave"),
    ];
    assert.deepEqual(
      { ...earned, created_at: undefined, campaign_id: undefined, automation_id: undefined },
      {
        created_at: undefined,
        campaign_id: undefined,
        automation_id: undefined,
        job_street: "Maple Ave",
        job_city: "Springfield",
        homes: 10,
        cards_sent: 10,
        leads: 1,
        won_deals: 1,
        revenue: 8200.5,
        reason: null,
      },
    );
    assert.equal(lonely.cards_sent, 0);
    assert.equal(lonely.reason, "no reference addresses within 984 ft (300 m) of the job");
    assert.deepEqual(byJob.totals, {
      jobs: 2,
      cards_sent: 10,
      leads: 1,
      won_deals: 1,
      revenue: 8200.5,
      cost_cents: 800,
    });
    const unknown = await admin(ctx, "GET", "/orgs/00000000-0000-4000-8000-000000000000/neighbour-jobs");
    assert.equal(unknown.status, 404);
  });

  test("a job whose home is not among the reference addresses is no_address", async () => {
    const org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Neighbours",
      trigger: { type: "custom_api", event_type: "job.completed" },
      audience: { type: "neighbours" },
    });
    const event = await sendJob(
      ctx,
      org.key,
      { street: "9999 Nowhere Road", city: "Springfield", state: "IL", zip: "62704" },
      "job-nowhere",
    );
    assert.equal(event.status, 202);
    assert.equal(event.body.outcomes[0].reason, "no_address");
    assert.equal(event.body.outcomes[0].matched, false);
  });

  test("a job with no homes around it is queued with zero pieces and says why", async () => {
    const org = await createOrg(ctx);
    const automation = await createAutomation(ctx, org.orgId, {
      name: "Neighbours",
      trigger: { type: "custom_api", event_type: "job.completed" },
      audience: { type: "neighbours", count: 5, radius_m: 400 },
    });
    const event = await sendJob(
      ctx,
      org.key,
      { street: "1 Lonely Road", city: "Springfield", state: "IL", zip: "62704" },
      "job-lonely",
    );
    assert.equal(event.body.outcomes[0].reason, "queued");
    await runPipeline(ctx, {});
    const campaigns = (await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`)).body.campaigns;
    const campaign = campaigns.find(
      (each: { automation_id: string }) => each.automation_id === automation.id,
    );
    assert.equal(campaign.pieces.length, 0);
    const record = await neighbourRecord(ctx, campaign.id);
    assert.equal(record?.homes_mailed, 0);
    assert.equal(record?.reason, "no reference addresses within 1,312 ft (400 m) of the job");
  });
});
