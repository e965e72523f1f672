import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { queryOne, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { isHeldOut } from "../../src/domain/holdout-group.ts";
import { envelope, sendEvent } from "../events/helpers.ts";
import { recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { EVENT_TYPE, home, queuePiece, runPipeline } from "../pipeline/helpers.ts";
import { createAppTestContext, ownerOfNewOrg, type SignedInUser } from "./helpers.ts";

/** Every table a real event, its card or a safety rule may write: a dry run leaves each as it was. */
const TABLES = [
  "campaigns",
  "mail_pieces",
  "jobs",
  "mail_cap_usage",
  "automation_mail_safety",
  "org_mail_safety",
  "do_not_mail",
  "customers",
  "webhook_log",
] as const;

/** An owner's new org with a CRM key and one sample of job.completed at `properties`' home; no automation yet. */
async function orgWithSampleAt(ctx: TestContext, properties: Record<string, string>) {
  const owner = await ownerOfNewOrg(ctx);
  const key = await owner.browser.request("POST", "/app/api/v1/keys", { body: { name: "CRM" } });
  assert.equal(key.status, 201, key.text);
  const sent = await sendEvent(ctx, key.body.key, envelope({ event_type: EVENT_TYPE }, properties));
  assert.equal(sent.status, 202, sent.text);
  const samples = await owner.browser.request("GET", `/app/api/v1/event-samples?event_type=${EVENT_TYPE}`);
  assert.equal(samples.status, 200, samples.text);
  return { owner, orgId: owner.orgId, key: key.body.key as string, sampleId: samples.body[0].id as string };
}

type Org = Awaited<ReturnType<typeof orgWithSampleAt>>;

const dryRun = (org: Org, extra: { automation?: Record<string, unknown>; automation_id?: string } = {}) =>
  org.owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
    body: {
      automation: { name: "Draft", filters: [], ...extra.automation },
      ...(extra.automation_id ? { automation_id: extra.automation_id } : {}),
      sample_id: org.sampleId,
    },
  });

/** A home whose ZIP is in another state than the one written: the offline check refuses it. */
const WRONG_STATE_HOME = {
  street: "12 Main St",
  city: "Austin",
  state: "TX",
  zip: "10001",
  client_name: "Jane Smith",
};

/**
 * The builder's "Test with a sample" says what a real event of the sample would meet in the
 * pipeline's mail safety rules now: the frequency cap per home, approval (the draft's own setting
 * or the saved automation's), the hold window and monthly caps. And a real event then does it.
 */
describe(`app API: the dry run tells the mail safety rules a real card would meet (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  /** An owner's new org with a CRM key and one sample of job.completed at `street`; no automation yet. */
  const orgWithSample = (street: string) => orgWithSampleAt(ctx, home(street));

  async function saveAutomation(owner: SignedInUser, body: Record<string, unknown> = {}) {
    const created = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Job done card", trigger: { type: "custom_api", event_type: EVENT_TYPE }, ...body },
    });
    assert.equal(created.status, 201, created.text);
    return created.body.id as string;
  }

  /** What a real event at `street` (or at a whole home) does now: its card through the pipeline, as a worker runs it. */
  async function realCard(org: Org, street: string | Record<string, string>) {
    const piece = await queuePiece(ctx, org, typeof street === "string" ? home(street) : street);
    await runPipeline(ctx, { dataDir: ctx.dataDir });
    const row = await queryOne<{
      status: string;
      earlier_piece_id: string | null;
      status_reason: string | null;
    }>(
      ctx.database.db,
      sql`SELECT status, earlier_piece_id, status_reason FROM mail_pieces WHERE id = ${piece.id}::uuid`,
    );
    return row!;
  }

  async function rowCounts(orgId: string) {
    const counts: Record<string, number> = {};
    for (const table of TABLES) {
      const row = await queryOne<{ n: number | string }>(
        ctx.database.db,
        sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE org_id = ${orgId}::uuid`,
      );
      counts[table] = Number(row?.n ?? 0);
    }
    return counts;
  }

  test("a home mailed within the frequency cap: the test says a real event would skip it, and one does", async () => {
    const org = await orgWithSample("18 Frequency Ct");
    const mailedAt = new Date(Date.now() - 10 * 86_400_000);
    const recorded = await recordMailing(ctx, org.orgId, [
      { address: "18 Frequency Ct, Springfield, IL 62704", mailed_at: mailedAt.toISOString() },
    ]);
    const earlierId = recorded.pieces[0]!.id;
    const before = await rowCounts(org.orgId);

    const answer = await dryRun(org);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.outcome, "queued", "the trigger itself would queue it");
    assert.deepEqual(
      {
        outcome: answer.body.mail_safety.outcome,
        rule: answer.body.mail_safety.rule,
        days: answer.body.mail_safety.frequency_cap_days,
        earlier: answer.body.mail_safety.earlier_card,
      },
      {
        outcome: "skipped",
        rule: "frequency_cap",
        days: 30,
        earlier: { piece_id: earlierId, mailed_at: recorded.pieces[0]!.mailed_at },
      },
    );
    assert.match(answer.body.mail_safety.reason, /within the last 30 days \(mailed /);
    assert.deepEqual(await rowCounts(org.orgId), before, "the dry run wrote nothing");

    await saveAutomation(org.owner);
    const real = await realCard(org, "18 Frequency Ct");
    assert.equal(real.status, "skipped", real.status_reason ?? "");
    assert.equal(real.earlier_piece_id, earlierId);
    assert.equal(real.status_reason, answer.body.mail_safety.reason, "the same words as the real card's");
  });

  test("the frequency cap switched off, or a home never mailed: the card would print", async () => {
    const org = await orgWithSample("20 Fresh St");
    const fresh = await dryRun(org);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.mail_safety.outcome, "prints");
    assert.equal(fresh.body.mail_safety.rule, null);
    assert.equal(fresh.body.mail_safety.address_check, "passed");
    assert.equal(fresh.body.mail_safety.earlier_card, null);

    await recordMailing(ctx, org.orgId, [
      {
        address: "20 Fresh St, Springfield, IL 62704",
        mailed_at: new Date(Date.now() - 86_400_000).toISOString(),
      },
    ]);
    assert.equal((await dryRun(org)).body.mail_safety.outcome, "skipped");
    const off = await org.owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { frequency_cap_days: 0 },
    });
    assert.equal(off.status, 200, off.text);
    const again = await dryRun(org);
    assert.equal(again.body.mail_safety.outcome, "prints");
    assert.equal(again.body.mail_safety.frequency_cap_days, 0);
  });

  test("a new automation's draft asking for approval: a real card would await approval, and does once saved so", async () => {
    const org = await orgWithSample("7 Approval Way");
    const before = await rowCounts(org.orgId);
    const asked = await dryRun(org, { automation: { approval_required: true } });
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.mail_safety.outcome, "awaiting_approval");
    assert.equal(asked.body.mail_safety.rule, "approval");
    assert.equal(asked.body.mail_safety.approval_required, true);
    const notAsked = await dryRun(org, { automation: { approval_required: false } });
    assert.equal(notAsked.body.mail_safety.outcome, "prints");
    assert.equal(notAsked.body.mail_safety.approval_required, false);
    assert.deepEqual(await rowCounts(org.orgId), before, "the dry run wrote nothing");

    await saveAutomation(org.owner, { approval_required: true });
    const real = await realCard(org, "7 Approval Way");
    assert.equal(real.status, "awaiting_approval");
    assert.equal(real.status_reason, asked.body.mail_safety.reason);
  });

  test("a saved automation: its saved hold window, approval and caps apply; the draft's approval wins when sent", async () => {
    const org = await orgWithSample("9 Saved Rd");
    const automationId = await saveAutomation(org.owner);
    assert.equal((await dryRun(org, { automation_id: automationId })).body.mail_safety.outcome, "prints");

    const safety = (body: Record<string, unknown>) =>
      org.owner.browser.request("PATCH", `/app/api/v1/automations/${automationId}/safety`, { body });
    assert.equal((await safety({ approval_required: true })).status, 200);
    const approval = await dryRun(org, { automation_id: automationId });
    assert.equal(approval.body.mail_safety.outcome, "awaiting_approval");
    assert.equal(approval.body.mail_safety.approval_required, true);
    const draftOff = await dryRun(org, {
      automation_id: automationId,
      automation: { approval_required: false },
    });
    assert.equal(draftOff.body.mail_safety.outcome, "prints", "the draft's own setting");

    assert.equal((await safety({ hold_minutes: 90 })).status, 200);
    const held = await dryRun(org, { automation_id: automationId });
    assert.equal(held.body.mail_safety.outcome, "held", "the hold window comes first");
    assert.equal(held.body.mail_safety.hold_minutes, 90);
    assert.equal(held.body.mail_safety.approval_required, true, "and approval after it");
    assert.match(held.body.mail_safety.reason, /1 h 30 min hold window/);

    assert.equal(
      (await safety({ hold_minutes: 0, approval_required: false, monthly_card_cap: 0 })).status,
      200,
    );
    const before = await rowCounts(org.orgId);
    const capped = await dryRun(org, { automation_id: automationId });
    assert.equal(capped.body.mail_safety.outcome, "capped");
    assert.equal(capped.body.mail_safety.cap_reached, "the automation's monthly cap of 0 cards is reached");
    assert.deepEqual(await rowCounts(org.orgId), before, "the dry run wrote nothing");
    const real = await realCard(org, "9 Saved Rd");
    assert.equal(real.status, "capped");
    assert.equal(real.status_reason, capped.body.mail_safety.reason);
  });

  /** The first of `Holdout St` house numbers whose home falls in (or out of) the automation's group. */
  function streetInGroup(automationId: string, percent: number, heldOut: boolean): string {
    for (let number = 1; ; number++) {
      const street = `${number} Holdout St`;
      const key = normalizeAddress(`${street}, Springfield, IL 62704`);
      if (isHeldOut(automationId, percent, key) === heldOut) return street;
    }
  }

  test("a saved automation's holdout group: the test says which group the home is in, and a real event holds it out", async () => {
    const org = await orgWithSample("1 Holdout Sample Rd");
    const automationId = await saveAutomation(org.owner, { holdout_percent: 50 });
    const heldStreet = streetInGroup(automationId, 50, true);
    const mailedStreet = streetInGroup(automationId, 50, false);
    for (const street of [heldStreet, mailedStreet]) {
      const sent = await sendEvent(ctx, org.key, envelope({ event_type: EVENT_TYPE }, home(street)));
      assert.equal(sent.status, 202, sent.text);
    }
    const samples = await org.owner.browser.request(
      "GET",
      `/app/api/v1/event-samples?event_type=${EVENT_TYPE}`,
    );
    const sampleAt = (street: string) =>
      samples.body.find((sample: { record: unknown }) => {
        return JSON.stringify(sample.record).includes(`"${street}"`);
      }).id as string;
    const testAt = (street: string, automation: Record<string, unknown> = {}) =>
      dryRun({ ...org, sampleId: sampleAt(street) }, { automation_id: automationId, automation });

    const before = await rowCounts(org.orgId);
    const held = await testAt(heldStreet);
    assert.equal(held.status, 200, held.text);
    assert.deepEqual(
      [held.body.outcome, held.body.mail_safety.outcome, held.body.mail_safety.rule],
      ["queued", "held_out", "holdout_group"],
    );
    assert.equal(held.body.mail_safety.holdout_group, "held_out");
    assert.equal(held.body.mail_safety.holdout_percent, 50);
    const mailed = await testAt(mailedStreet);
    assert.equal(mailed.body.mail_safety.outcome, "prints");
    assert.equal(mailed.body.mail_safety.holdout_group, "mailed");
    const none = await testAt(heldStreet, { holdout_percent: 0 });
    assert.equal(none.body.mail_safety.outcome, "prints", "the draft's own share, as typed");
    assert.equal(none.body.mail_safety.holdout_group, null);
    assert.deepEqual(await rowCounts(org.orgId), before, "the dry run wrote nothing");

    // The events that gave the samples queued real cards: the pipeline holds out one, mails the other.
    await runPipeline(ctx, { dataDir: ctx.dataDir });
    const cardAt = (street: string) =>
      queryOne<{ status: string; status_reason: string | null }>(
        ctx.database.db,
        sql`SELECT status, status_reason FROM mail_pieces
            WHERE org_id = ${org.orgId}::uuid AND address LIKE ${`${street},%`}`,
      );
    const real = await cardAt(heldStreet);
    assert.equal(real?.status, "held_out");
    assert.equal(real?.status_reason, held.body.mail_safety.reason, "the same words as the real card's");
    assert.notEqual((await cardAt(mailedStreet))?.status, "held_out");
  });

  test("a new automation's holdout share: its homes' groups are not known before it is saved", async () => {
    const org = await orgWithSample("3 Unsaved Holdout Ln");
    const answer = await dryRun(org, { automation: { holdout_percent: 50 } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.mail_safety.outcome, "prints");
    assert.equal(answer.body.mail_safety.holdout_percent, 50);
    assert.equal(answer.body.mail_safety.holdout_group, null);
    const refused = await dryRun(org, { automation: { holdout_percent: 51 } });
    assert.equal(refused.status, 422, refused.text);
  });

  test("the organization's monthly cap reached: a new automation's card would be capped", async () => {
    const org = await orgWithSample("11 Budget Blvd");
    const capped = await org.owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { monthly_card_cap: 0 },
    });
    assert.equal(capped.status, 200, capped.text);
    const answer = await dryRun(org);
    assert.equal(answer.body.mail_safety.outcome, "capped");
    assert.equal(answer.body.mail_safety.cap_reached, "the organization's monthly cap of 0 cards is reached");
  });

  test("a registered customer: suppressed, unless the kind mails customers (a won deal)", async () => {
    const org = await orgWithSample("31 Customer Ln");
    const added = await org.owner.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "31 Customer Ln, Springfield, IL 62704" },
    });
    assert.equal(added.status, 200, added.text);
    const standard = await dryRun(org);
    assert.equal(standard.body.mail_safety.outcome, "suppressed");
    assert.equal(standard.body.mail_safety.rule, "registered_customer");
    const won = await dryRun(org, { automation: { kind: "deal_won" } });
    assert.equal(won.body.mail_safety.outcome, "prints");
  });

  test("an address the check before print refuses: the test says undeliverable with its reason, and a real card is", async () => {
    const org = await orgWithSampleAt(ctx, WRONG_STATE_HOME);
    const before = await rowCounts(org.orgId);
    const answer = await dryRun(org);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.outcome, "queued", "the developer API's outcome: street and ZIP are there");
    const safety = answer.body.mail_safety;
    assert.deepEqual(
      { outcome: safety.outcome, rule: safety.rule, check: safety.address_check },
      { outcome: "undeliverable", rule: "address_check", check: "failed" },
    );
    assert.match(safety.reason, /ZIP 10001 is in NY, not TX/);
    assert.equal(safety.address_problem, safety.reason);
    assert.deepEqual(await rowCounts(org.orgId), before, "the dry run wrote nothing");

    await saveAutomation(org.owner);
    const real = await realCard(org, WRONG_STATE_HOME);
    assert.equal(real.status, "undeliverable", real.status_reason ?? "");
    assert.equal(real.status_reason, safety.reason, "the same words as the real card's");
  });

  test("the address check in the pipeline's order: after the frequency cap, told all the same; at the organization's level", async () => {
    const org = await orgWithSampleAt(ctx, WRONG_STATE_HOME);
    await recordMailing(ctx, org.orgId, [
      { address: "12 Main St, Austin, TX 10001", mailed_at: new Date(Date.now() - 86_400_000).toISOString() },
    ]);
    const skipped = (await dryRun(org)).body.mail_safety;
    assert.deepEqual(
      { outcome: skipped.outcome, check: skipped.address_check },
      { outcome: "skipped", check: "failed" },
    );
    assert.match(skipped.address_problem, /ZIP 10001 is in NY, not TX/);

    const noHouseNumber = await orgWithSampleAt(ctx, { ...home("Maple Ave"), street: "Maple Ave" });
    const normal = (await dryRun(noHouseNumber)).body.mail_safety;
    assert.equal(normal.outcome, "undeliverable", JSON.stringify(normal));
    const relaxed = await noHouseNumber.owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { address_verification: "relaxed" },
    });
    assert.equal(relaxed.status, 200, relaxed.text);
    const passes = (await dryRun(noHouseNumber)).body.mail_safety;
    assert.deepEqual(
      { outcome: passes.outcome, check: passes.address_check, problem: passes.address_problem },
      { outcome: "prints", check: "passed", problem: null },
    );
  });

  test("no mail_safety when the trigger would queue nothing; another org's automation is not found", async () => {
    const org = await orgWithSample("5 Filter Pl");
    const filtered = await dryRun(org, {
      automation: { filters: [{ property: "street", op: "eq", value: "elsewhere" }] },
    });
    assert.equal(filtered.body.outcome, "filtered_out");
    assert.equal(filtered.body.mail_safety, undefined);

    const other = await orgWithSample("6 Other Ave");
    const theirs = await saveAutomation(other.owner);
    const refused = await dryRun(org, { automation_id: theirs });
    assert.equal(refused.status, 404, refused.text);
    assert.equal(refused.body.error.code, "not_found");
    // Its owner's test of it still runs.
    assert.equal((await dryRun(other, { automation_id: theirs })).status, 200);
  });
});

describe(`app API: the dry run does not ask a paid verifier (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  before(async () => {
    // Lob at an address nothing listens on: a test that asked it would fail or wait.
    ctx = await createAppTestContext({
      memoryLimiter: true,
      config: { addressVerifier: "lob", lobApiKey: "test_key", lobBaseUrl: "http://127.0.0.1:9" },
    });
  });
  after(() => ctx.close());

  test("an organization verifying with Lob: the check is left to the real card (at_print), even for a bad address", async () => {
    const org = await orgWithSampleAt(ctx, WRONG_STATE_HOME);
    const answer = await dryRun(org);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      {
        outcome: answer.body.mail_safety.outcome,
        check: answer.body.mail_safety.address_check,
        problem: answer.body.mail_safety.address_problem,
      },
      { outcome: "prints", check: "at_print", problem: null },
    );
  });
});
