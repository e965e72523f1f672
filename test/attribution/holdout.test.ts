/**
 * Holdouts (issue 42) through HTTP on the real database: the automation's holdout_percent on the
 * operator and app APIs; a held-out home's piece (`held_out`: never rendered, sent, capped or
 * costed; the event still answers `queued`); the same home in the same group across events and
 * processes; a won deal there never attributed, but counted by Revenue's experiment.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { queryRows, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { isHeldOut } from "../../src/domain/holdout-group.ts";
import { riskRatio } from "../../src/domain/lift-interval.ts";
import { outboxDir } from "../../src/print/local-outbox.ts";
import { inviteAndAccept, type SignedInUser } from "../app-api/helpers.ts";
import { admin, call, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { conversion } from "./helpers.ts";

const HOLDOUT_GROUP_MODULE = fileURLToPath(new URL("../../src/domain/holdout-group.ts", import.meta.url));

const homeOf = (street: string) => ({
  street,
  city: "Springfield",
  state: "IL",
  zip: "62704",
  client_name: "Jane Smith",
});
const lineOf = (street: string) => `${street}, Springfield, IL 62704`;

/** Streets whose homes the automation holds out at `percent`, and streets it mails, `count` of each. */
function splitHomes(automationId: string, percent: number, count: number, prefix: string) {
  const heldOut: string[] = [];
  const mailed: string[] = [];
  for (let number = 1; heldOut.length < count || mailed.length < count; number++) {
    const street = `${number} ${prefix} St`;
    const group = isHeldOut(automationId, percent, normalizeAddress(lineOf(street))) ? heldOut : mailed;
    if (group.length < count) group.push(street);
  }
  return { heldOut, mailed };
}

describe(`holdouts (${databaseLabel})`, () => {
  let ctx: TestContext;
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };

  before(async () => {
    ctx = await createTestContext({ memoryLimiter: true });
  });
  after(async () => ctx.close());

  const pieceOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body;

  async function signedInOwner(orgId: string): Promise<SignedInUser> {
    return inviteAndAccept(ctx, orgId, `owner-${orgId.slice(0, 8)}@holdout.test`, "owner");
  }

  test("holdout_percent is created, read and changed on the operator and app APIs, 0 by default, 0 to 50 only", async () => {
    const org = await orgWithAutomation(ctx);
    const owner = await signedInOwner(org.orgId);
    const trigger = { type: "custom_api", event_type: "job.completed" };

    const byDefault = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, { name: "Plain", trigger });
    assert.equal(byDefault.status, 201, byDefault.text);
    assert.equal(byDefault.body.holdout_percent, 0);
    const withHoldout = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, {
      name: "Measured",
      trigger,
      holdout_percent: 20,
    });
    assert.equal(withHoldout.body.holdout_percent, 20, withHoldout.text);
    const changed = await admin(ctx, "PATCH", `/automations/${withHoldout.body.id}`, { holdout_percent: 35 });
    assert.equal(changed.body.holdout_percent, 35, changed.text);
    for (const bad of [51, -1, 12.5, "10"]) {
      const refused = await admin(ctx, "PATCH", `/automations/${withHoldout.body.id}`, {
        holdout_percent: bad,
      });
      assert.equal(refused.status, 422, `${bad}: ${refused.text}`);
    }

    const read = await owner.browser.request("GET", `/app/api/v1/automations/${withHoldout.body.id}`);
    assert.equal(read.body.holdout_percent, 35, read.text);
    const patched = await owner.browser.request("PATCH", `/app/api/v1/automations/${withHoldout.body.id}`, {
      body: { holdout_percent: 50 },
    });
    assert.equal(patched.body.holdout_percent, 50, patched.text);
    const created = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "From the app", trigger, holdout_percent: 10 },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.holdout_percent, 10);
    const tooMany = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Too many", trigger, holdout_percent: 60 },
    });
    assert.equal(tooMany.status, 422, tooMany.text);
    const listed = await owner.browser.request("GET", "/app/api/v1/automations");
    const holdouts = Object.fromEntries(
      listed.body.automations.map((a: { name: string; holdout_percent: number }) => [
        a.name,
        a.holdout_percent,
      ]),
    );
    assert.deepEqual(holdouts, { "Completed jobs": 0, Plain: 0, Measured: 50, "From the app": 10 });

    // The developer API's automation entry stays as the spec has it: id, name, enabled.
    const developer = await call(ctx, "GET", "/api/v1/automation/list", { key: org.key });
    assert.equal(developer.status, 200, developer.text);
    const entries: Record<string, unknown>[] = Array.isArray(developer.body)
      ? developer.body
      : developer.body.automations;
    for (const entry of entries) assert.deepEqual(Object.keys(entry).sort(), ["enabled", "id", "name"]);
  });

  describe("an automation holding out half its homes", () => {
    let org: Awaited<ReturnType<typeof orgWithAutomation>>;
    let owner: SignedInUser;
    let homes: { heldOut: string[]; mailed: string[] };
    const pieceIds = new Map<string, string>();

    before(async () => {
      org = await orgWithAutomation(ctx, { holdout_percent: 50 });
      owner = await signedInOwner(org.orgId);
      const profile = await owner.browser.request("PATCH", "/app/api/v1/organization", {
        body: { cost_per_card_cents: 100 },
      });
      assert.equal(profile.status, 200, profile.text);
      homes = splitHomes(org.automationId, 50, 4, "Oak");
      // queuePiece asserts the event's outcome: `queued`, as the spec has it, held out or not. The
      // holdout is on from the automation's start, so the homes mailed before the first held-out
      // one are compared too: they go first.
      for (const group of [homes.mailed, homes.heldOut]) {
        for (const street of group) pieceIds.set(street, (await queuePiece(ctx, org, homeOf(street))).id);
        await runPipeline(ctx, local);
      }
    });

    test("a held-out home's piece is held_out with its reason: never rendered, sent, capped or costed", async () => {
      for (const street of homes.heldOut) {
        const piece = await pieceOf(pieceIds.get(street)!);
        assert.equal(piece.status, "held_out", street);
        assert.match(piece.status_reason, /holdout group \(50 % of homes get no card\)/);
        assert.equal(piece.mailed_at, null);
        assert.equal(existsSync(outboxDir(local.dataDir, piece.id)), false, "no print files");
      }
      for (const street of homes.mailed) {
        const piece = await pieceOf(pieceIds.get(street)!);
        assert.equal(piece.status, "mailed", street);
        assert.equal(existsSync(path.join(outboxDir(local.dataDir, piece.id), "front.pdf")), true);
      }
      const caps = await owner.browser.request("GET", "/app/api/v1/mail-safety");
      assert.equal(caps.body.organization.cards, 4, "only the mailed cards count in the month's caps");
      assert.equal(caps.body.organization.cents, 400);
      const automation = await owner.browser.request("GET", `/app/api/v1/automations/${org.automationId}`);
      assert.equal(automation.body.cards_sent_to_print_this_month, 4, "held-out homes' pieces are not sent");
      assert.equal(automation.body.cards_waiting, 0);
      const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
      const row = revenue.body.by_automation.find(
        (entry: { automation_id: string }) => entry.automation_id === org.automationId,
      );
      assert.equal(row.cards_mailed, 4);
      assert.equal(row.cost, 4, "four cards at $1: held-out homes cost nothing");
      const month = revenue.body.by_month.at(-1);
      assert.equal(month.cards_mailed, 4);
    });

    test("a won deal at a held-out home is never attributed and counts for the experiment only", async () => {
      const today = new Date().toISOString().slice(0, 10);
      const deal = (street: string, id: string, amount: string) =>
        conversion(ctx, org.key, {
          address: lineOf(street),
          deal_id: id,
          deal_amount: amount,
          deal_date: today,
        });

      const heldOutDeal = await deal(homes.heldOut[0]!, "H-1", "9000");
      assert.equal(heldOutDeal.status, 200, heldOutDeal.text);
      assert.deepEqual(
        heldOutDeal.body,
        { matched: false },
        "the developer API answers as for any unmatched deal",
      );
      // Replays racing each other (truly parallel on PostgreSQL) keep one deal for the experiment.
      const replays = await Promise.all(
        Array.from({ length: 10 }, () => deal(homes.heldOut[0]!, "H-1", "9500")),
      );
      for (const replay of replays) assert.deepEqual(replay.body, { matched: false }, replay.text);
      const kept = await queryRows<{ deal_amount: string }>(
        ctx.database.db,
        sql`SELECT deal_amount::text AS deal_amount FROM holdout_conversions WHERE org_id = ${org.orgId}::uuid`,
      );
      assert.deepEqual(
        kept.map((row) => Number(row.deal_amount)),
        [9500],
        "one deal, its amount updated",
      );
      // The held-out home's page says it bought without a card; a mailed home's page lists none such.
      const [heldOutPiece] = await queryRows<{ id: string }>(
        ctx.database.db,
        sql`SELECT id FROM mail_pieces WHERE org_id = ${org.orgId}::uuid AND status = 'held_out'
              AND normalized_address = ${normalizeAddress(lineOf(homes.heldOut[0]!))}`,
      );
      const heldOutPage = await owner.browser.request("GET", `/app/api/v1/pieces/${heldOutPiece!.id}`);
      assert.equal(heldOutPage.status, 200, heldOutPage.text);
      assert.deepEqual(
        heldOutPage.body.held_out_deals.map((held: { amount: number }) => held.amount),
        [9500],
      );
      assert.deepEqual(heldOutPage.body.conversions, [], "never attributed to the piece");
      for (const [index, street] of homes.mailed.slice(0, 2).entries()) {
        const won = await deal(street, `M-${index}`, index === 0 ? "4000" : "6000");
        assert.equal(won.body.matched, true, won.text);
      }

      const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
      assert.equal(revenue.status, 200, revenue.text);
      const row = revenue.body.by_automation.find(
        (entry: { automation_id: string }) => entry.automation_id === org.automationId,
      );
      assert.equal(row.won_deals, 2);
      assert.equal(row.attributed_revenue, 10000, "the held-out home's $9,500 is not attributed");
      assert.ok(
        revenue.body.conversions.every((c: { deal_id: string }) => c.deal_id !== "H-1"),
        "the held-out deal is not in the attributed conversions",
      );
      const interval = riskRatio({ homes: 4, conversions: 2 }, { homes: 4, conversions: 1 })!;
      const [automation] = await queryRows<{ holdout_since: Date | string }>(
        ctx.database.db,
        sql`SELECT holdout_since FROM automations WHERE org_id = ${org.orgId}::uuid AND id = ${org.automationId}::uuid`,
      );
      assert.deepEqual(row.experiment, {
        holdout_percent: 50,
        // The comparison starts when the holdout was turned on, here with the automation (the
        // screen says since when): the homes mailed before the first held-out one are in it.
        started_at: new Date(automation!.holdout_since).toISOString(),
        mailed_homes: 4,
        holdout_homes: 4,
        mailed_conversions: 2,
        holdout_conversions: 1,
        mailed_rate: 0.5,
        holdout_rate: 0.25,
        lift: 1,
        lift_ci95_low: Math.round((interval.low - 1) * 10_000) / 10_000,
        lift_ci95_high: Math.round((interval.high - 1) * 10_000) / 10_000,
        // 2 − 0.25 × 4 = 1 deal the mail added, at the mailed group's $5,000 average.
        incremental_conversions: 1,
        incremental_revenue: 5000,
      });
    });

    test("an automation without a holdout has no experiment", async () => {
      await recordMailing(ctx, org.orgId, [{ address: lineOf("1 Birch St") }], "Birch Street");
      const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
      const recorded = revenue.body.by_automation.find(
        (entry: { automation_id: string | null }) => entry.automation_id === null,
      );
      assert.ok(recorded, JSON.stringify(revenue.body.by_automation));
      assert.equal(recorded.experiment, null);
    });
  });

  test("an automation given a holdout after its cards were mailed compares only the homes since it was turned on", async () => {
    const org = await orgWithAutomation(ctx);
    const owner = await signedInOwner(org.orgId);
    const { heldOut, mailed } = splitHomes(org.automationId, 10, 3, "Cedar");
    for (const street of mailed.slice(0, 2)) await queuePiece(ctx, org, homeOf(street));
    await runPipeline(ctx, local);
    const turnedOn = Date.now();
    const raised = await admin(ctx, "PATCH", `/automations/${org.automationId}`, { holdout_percent: 10 });
    assert.equal(raised.status, 200, raised.text);
    const turnedOnBy = Date.now();
    // A later change of share (not from 0) keeps the comparison's start.
    assert.equal(
      (await admin(ctx, "PATCH", `/automations/${org.automationId}`, { holdout_percent: 20 })).status,
      200,
    );
    assert.equal(
      (await admin(ctx, "PATCH", `/automations/${org.automationId}`, { holdout_percent: 10 })).status,
      200,
    );
    const experimentNow = async () => {
      const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
      return revenue.body.by_automation.find(
        (entry: { automation_id: string }) => entry.automation_id === org.automationId,
      );
    };
    const before = await experimentNow();
    assert.equal(before.cards_mailed, 2, "both cards were mailed before the holdout");
    const startedAt = Date.parse(before.experiment.started_at);
    assert.ok(
      startedAt >= turnedOn - 1000 && startedAt <= turnedOnBy + 1000,
      "since the holdout was turned on",
    );
    assert.deepEqual([before.experiment.mailed_homes, before.experiment.holdout_homes], [0, 0]);

    const held = await queuePiece(ctx, org, homeOf(heldOut[0]!));
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(held.id)).status, "held_out");
    const after = await experimentNow();
    assert.equal(after.experiment.started_at, before.experiment.started_at, "still since it was turned on");
    assert.deepEqual([after.experiment.mailed_homes, after.experiment.holdout_homes], [0, 1]);
    // Mailed after the holdout was turned on, a home is compared whether it came before or after the held-out one.
    await queuePiece(ctx, org, homeOf(mailed[2]!));
    await runPipeline(ctx, local);
    const later = await experimentNow();
    assert.equal(later.experiment.mailed_homes, 1);
  });

  test("a held-out home never waits for approval, and its piece does not count in the frequency cap", async () => {
    const org = await orgWithAutomation(ctx, { holdout_percent: 50 });
    const approval = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      approval_required: true,
    });
    assert.equal(approval.status, 200, approval.text);
    const { heldOut, mailed } = splitHomes(org.automationId, 50, 1, "Maple");
    const held = await queuePiece(ctx, org, homeOf(heldOut[0]!));
    const waiting = await queuePiece(ctx, org, homeOf(mailed[0]!));
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(held.id)).status, "held_out");
    assert.equal((await pieceOf(waiting.id)).status, "awaiting_approval");

    // Another automation mails the held-out home within the org's 30-day frequency window: a
    // held-out piece is not mail, so this card goes.
    await admin(ctx, "PATCH", `/automations/${org.automationId}`, { enabled: false });
    await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, {
      name: "No holdout",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    const later = await queuePiece(ctx, org, homeOf(heldOut[0]!));
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(later.id)).status, "mailed");
  });

  test("a held-out home the automation mails after its percent is lowered counts as mailed only", async () => {
    const org = await orgWithAutomation(ctx, { holdout_percent: 50 });
    const owner = await signedInOwner(org.orgId);
    const { heldOut, mailed } = splitHomes(org.automationId, 50, 2, "Elm");
    for (const street of [...heldOut, mailed[0]!]) await queuePiece(ctx, org, homeOf(street));
    await runPipeline(ctx, local);
    const lowered = await admin(ctx, "PATCH", `/automations/${org.automationId}`, { holdout_percent: 0 });
    assert.equal(lowered.status, 200, lowered.text);
    const again = await queuePiece(ctx, org, homeOf(heldOut[0]!));
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(again.id)).status, "mailed", "lowering the percent mails the home");
    const won = await conversion(ctx, org.key, {
      address: lineOf(heldOut[0]!),
      deal_id: "E-1",
      deal_amount: "7000",
    });
    assert.equal(won.body.matched, true, won.text);

    const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
    const row = revenue.body.by_automation.find(
      (entry: { automation_id: string }) => entry.automation_id === org.automationId,
    );
    // The home got the card: its deal is the mail's, never also the control group's.
    assert.deepEqual(
      [
        row.experiment.mailed_homes,
        row.experiment.mailed_conversions,
        row.experiment.holdout_homes,
        row.experiment.holdout_conversions,
      ],
      [2, 1, 1, 0],
      JSON.stringify(row.experiment),
    );
  });

  test("a home stays in its group across events, writings and processes", async () => {
    const org = await orgWithAutomation(ctx, { holdout_percent: 30 });
    const { heldOut, mailed } = splitHomes(org.automationId, 30, 2, "Cedar");
    const first = await queuePiece(ctx, org, homeOf(heldOut[0]!));
    await runPipeline(ctx, local);
    // The same home again, written without its ZIP, by a later event and a fresh worker.
    const again = await queuePiece(ctx, org, { street: heldOut[0]!, city: "Springfield", state: "IL" });
    const mailedHome = await queuePiece(ctx, org, homeOf(mailed[0]!));
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "held_out");
    assert.equal((await pieceOf(again.id)).status, "held_out");
    assert.equal((await pieceOf(mailedHome.id)).status, "mailed");
    // The mailed home written without its city, mailed again (no frequency cap): still one home.
    await admin(ctx, "PATCH", `/orgs/${org.orgId}/mail-safety`, { frequency_cap_days: 0 });
    const mailedAgain = await queuePiece(ctx, org, { street: mailed[0]!, state: "IL", zip: "62704" });
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(mailedAgain.id)).status, "mailed");
    const owner = await signedInOwner(org.orgId);
    const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
    const row = revenue.body.by_automation.find(
      (entry: { automation_id: string }) => entry.automation_id === org.automationId,
    );
    assert.deepEqual(
      { mailed: row.experiment.mailed_homes, held: row.experiment.holdout_homes },
      { mailed: 1, held: 1 },
      "a home written two ways is one home in its group",
    );

    // Another process (a restart) puts the same homes in the same groups: nothing is kept in memory.
    const keys = [...heldOut, ...mailed].map((street) => normalizeAddress(lineOf(street)));
    const script = `const { isHeldOut } = await import(${JSON.stringify(HOLDOUT_GROUP_MODULE)});
      console.log(JSON.stringify(${JSON.stringify(keys)}.map((key) => isHeldOut(${JSON.stringify(org.automationId)}, 30, key))));`;
    const output = execFileSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "--eval", script],
      {
        encoding: "utf8",
      },
    );
    assert.deepEqual(JSON.parse(output), [true, true, false, false]);
  });
});
