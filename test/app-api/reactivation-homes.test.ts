import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { call, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { inviteAndAccept, type SignedInUser } from "./helpers.ts";

const TEMPLATE = { headline: "Time for a check-up?", message: "It has been a while since {{street}}." };
const CENTS_PER_CARD = 85;

type Row = { address: string; customer_name: string; completed_at: string };
const row = (address: string, customer_name: string): Row => ({
  address,
  customer_name,
  completed_at: "2023-05-01",
});

/** The count of each reason a preview leaves rows out for, none but these. */
const leftOut = (counts: Partial<Record<string, number>>) => ({
  customer: 0,
  opted_out: 0,
  no_mailable_address: 0,
  undeliverable: 0,
  duplicate: 0,
  ...counts,
});

describe(`app API: a reactivation mailing mails each home once, at an address print accepts (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let owner: SignedInUser;

  before(async () => {
    ctx = await createTestContext({ memoryLimiter: true, config: { dataDir: tempDataDir() } });
    org = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-reactivation-homes@example.com", "owner");
    const cost = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { cost_per_card_cents: CENTS_PER_CARD },
    });
    assert.equal(cost.status, 200, cost.text);
  });
  after(() => ctx.close());

  const stage = async (rows: Row[]) => {
    const staged = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: { source: "jobs", rows },
    });
    assert.equal(staged.status, 201, staged.text);
    assert.equal(staged.body.staged, rows.length, staged.text);
    return staged.body.import_id as string;
  };
  const preview = async (importIds: string[]) => {
    const answer = await owner.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: { import_ids: importIds, filter: {} },
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };
  const send = (importIds: string[], name: string, confirmedCards: number) =>
    owner.browser.request("POST", "/app/api/v1/reactivation/mailings", {
      body: { import_ids: importIds, filter: {}, template: TEMPLATE, name, confirmed_cards: confirmedCards },
    });
  const setMailSafety = async (body: Record<string, unknown>) => {
    const patched = await owner.browser.request("PATCH", "/app/api/v1/mail-safety", { body });
    assert.equal(patched.status, 200, patched.text);
  };
  /** Runs the pipeline, then the addresses and statuses of this mailing's cards. */
  const cardsOf = async (campaignName: string) => {
    await runPipeline(ctx, { dataDir: tempDataDir(), printProvider: "local" });
    const pieces = await owner.browser.request("GET", "/app/api/v1/pieces");
    return (pieces.body.pieces as { campaign_name: string; address: string; status: string }[])
      .filter((piece) => piece.campaign_name === campaignName)
      .map((piece) => [piece.address, piece.status])
      .sort();
  };
  /** An address's house number: which of a home's spellings is kept depends on the batches' order (their ids). */
  const houseOf = (address: string) => address.split(" ")[0];

  test("one home written two ways is one card: the preview's count and cost, the send and the printed cards agree", async () => {
    const crm = await stage([
      row("1400 Birch Street, Austin, TX 78704", "Ann Lee"),
      row("1402 Birch Street, Austin, TX", "Bo Chen"),
      row("1400 BIRCH ST, 78704", "Ann Lee"),
      row("1404 Birch Street, Austin, TX 78704", "Cy Diaz"),
    ]);
    const otherCrm = await stage([row("1402 Birch St, Austin, TX 78704", "Bo Chen")]);
    // No frequency cap: the pipeline would print a home's second card, so only the audience can leave it out.
    await setMailSafety({ frequency_cap_days: 0 });

    const summary = await preview([crm, otherCrm]);
    assert.equal(summary.matched, 5);
    assert.equal(summary.mailable, 3, "1400, 1402 and 1404 Birch St");
    assert.deepEqual(summary.excluded, leftOut({ duplicate: 2 }));
    assert.equal(summary.estimated_cost_cents, 3 * CENTS_PER_CARD);
    const duplicates = summary.excluded_examples as { address: string; reason: string }[];
    assert.deepEqual(duplicates.map((example) => [houseOf(example.address), example.reason]).sort(), [
      ["1400", "duplicate"],
      ["1402", "duplicate"],
    ]);

    const sent = await send([crm, otherCrm], "Birch Street check-up", summary.mailable);
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.queued, 3);
    const cards = await cardsOf("Birch Street check-up");
    assert.deepEqual(
      cards.map(([address, status]) => [houseOf(address!), status]),
      [
        ["1400", "mailed"],
        ["1402", "mailed"],
        ["1404", "mailed"],
      ],
    );
    assert.ok(
      cards.some(([address]) => address === "1400 Birch Street, Austin, TX 78704"),
      "a batch's first row",
    );
    await setMailSafety({ frequency_cap_days: 30 });
  });

  test("an address the check before print would stop is left out of the count and cost, with its reason", async () => {
    const batch = await stage([
      row("1306 Birch Street, Austin, TX 10001", "Wrong Zip"),
      row("1308 Birch Street, Austin, TX 78704", "Dee Eng"),
    ]);
    const summary = await preview([batch]);
    assert.equal(summary.mailable, 1);
    assert.deepEqual(summary.excluded, leftOut({ undeliverable: 1 }));
    assert.equal(summary.estimated_cost_cents, CENTS_PER_CARD);
    assert.equal(summary.excluded_examples[0].address, "1306 Birch Street, Austin, TX 10001");
    assert.match(summary.excluded_examples[0].detail, /ZIP 10001 is in NY, not TX$/);

    const unconfirmable = await send([batch], "Counted the wrong ZIP", 2);
    assert.equal(unconfirmable.status, 409, unconfirmable.text);
    assert.match(unconfirmable.body.error.message, /now reaches 1 homes, not the 2 confirmed/);
    const sent = await send([batch], "Deliverable only", summary.mailable);
    assert.equal(sent.status, 201, sent.text);
    assert.deepEqual(await cardsOf("Deliverable only"), [["1308 Birch Street, Austin, TX 78704", "mailed"]]);
  });

  test("the preview checks at the organization's verification level, and a home's rows fold after it", async () => {
    const batch = await stage([
      row("1502 Birch Street, Austin, TX", "No Zip"),
      row("1502 Birch St, Austin, TX 78704", "With Zip"),
    ]);
    const normal = await preview([batch]);
    assert.equal(normal.mailable, 1);
    assert.deepEqual(normal.excluded, leftOut({ duplicate: 1 }));

    await setMailSafety({ address_verification: "strict" });
    const strict = await preview([batch]);
    await setMailSafety({ address_verification: "normal" });
    assert.equal(strict.mailable, 1, "the row with its ZIP is the home's card");
    assert.deepEqual(strict.excluded, leftOut({ undeliverable: 1 }));
    assert.equal(strict.first_rows[0].customer_name, "With Zip");
    assert.match(strict.excluded_examples[0].detail, /the address has no ZIP$/);
  });
});

describe(`app API: a reactivation preview with Lob verifying addresses (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let member: SignedInUser;

  before(async () => {
    // Lob is asked at print only (each answer is paid): this test never reaches it.
    ctx = await createTestContext({
      memoryLimiter: true,
      config: {
        dataDir: tempDataDir(),
        addressVerifier: "lob",
        lobApiKey: "test_key",
        lobBaseUrl: "http://127.0.0.1:9",
      },
    });
    org = await createOrg(ctx);
    member = await inviteAndAccept(ctx, org.orgId, "member-reactivation-lob@example.com", "member");
  });
  after(() => ctx.close());

  test("an address the offline check refuses is left to Lob's answer at print", async () => {
    const staged = await call(ctx, "POST", "/api/v1/import/jobs", {
      key: org.key,
      body: { source: "jobs", rows: [row("1306 Birch Street, Austin, TX 10001", "Wrong Zip")] },
    });
    assert.equal(staged.status, 201, staged.text);
    const summary = await member.browser.request("POST", "/app/api/v1/reactivation/preview", {
      body: { import_ids: [staged.body.import_id], filter: {} },
    });
    assert.equal(summary.status, 200, summary.text);
    assert.equal(summary.body.mailable, 1);
    assert.deepEqual(summary.body.excluded, leftOut({}));
  });
});
