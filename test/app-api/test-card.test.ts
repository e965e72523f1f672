import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { queryRows, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { isHeldOut } from "../../src/domain/holdout-group.ts";
import { admin, createAutomation } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { EVENT_TYPE, orgWithAutomation, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const HOLDOUT_PERCENT = 50;
const office = (street: string) => ({
  name: "Pat Owner",
  street,
  city: "Springfield",
  state: "Illinois",
  zip: "62704",
});
const lineOf = (street: string) => `${street}, Springfield, IL 62704`;

/** A street the automation's holdout group would keep from its mail, were it an event's card. */
function heldOutStreet(automationId: string): string {
  for (let house = 100; ; house++) {
    const street = `${house} Office Park Dr`;
    if (isHeldOut(automationId, HOLDOUT_PERCENT, normalizeAddress(lineOf(street)))) return street;
  }
}

describe(`app API: a test card sent from an automation (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  let otherAutomationId: string;
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;
  const dataDir = tempDataDir();
  const run = () => runPipeline(ctx, { dataDir, printProvider: "local" });

  const sendTestCard = (user: SignedInUser, automationId: string, body: Record<string, unknown>) =>
    user.browser.request("POST", `/app/api/v1/automations/${automationId}/test-card`, { body });
  const piecesOfOrg = () =>
    queryRows<{ id: string; status: string; sequence_step: number | null; automation_id: string }>(
      ctx.database.db,
      sql`SELECT p.id, p.status, p.sequence_step, c.automation_id FROM mail_pieces p
          JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
          WHERE p.org_id = ${org.orgId}::uuid ORDER BY p.created_at, p.sequence_step NULLS FIRST`,
    );

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    // Filters its typed record cannot pass, follow-ups, a holdout group and approval: none of them
    // may keep the sender from seeing the card, except approval, which a test card waits for too.
    org = await orgWithAutomation(ctx, {
      filters: [{ property: "cf_job_type", op: "eq", value: "furnace install" }],
      steps: [
        { delay_days: 7, template: { headline: "A week on", message: "Still thinking about {{street}}?" } },
      ],
      holdout_percent: HOLDOUT_PERCENT,
    });
    otherAutomationId = (
      await createAutomation(ctx, org.orgId, {
        name: "Also on completed jobs",
        trigger: { type: "custom_api", event_type: EVENT_TYPE },
      })
    ).id;
    owner = await inviteAndAccept(ctx, org.orgId, "owner-test-card@example.com", "owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-test-card@example.com", "member");
    const other = await orgWithAutomation(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "owner-test-card-other@example.com", "owner");
  });
  after(() => ctx.close());

  test("the owner's test card: one card of this automation only, whatever its filters, never held out or followed up", async () => {
    const steps = await owner.browser.request("GET", "/app/api/v1/first-steps");
    assert.equal(steps.body.event, false, "no event yet");
    const street = heldOutStreet(org.automationId);
    const requestId = randomUUID();

    // A double click, two tabs, a retry after a lost answer: one card, the same id in every answer.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        sendTestCard(owner, org.automationId, { request_id: requestId, recipient: office(street) }),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 202, answer.text);
    assert.deepEqual(answers.map((answer) => answer.body.outcome).sort(), [
      "duplicate",
      "duplicate",
      "duplicate",
      "duplicate",
      "duplicate",
      "queued",
    ]);
    const pieceId = answers[0]!.body.piece_id;
    for (const answer of answers) {
      assert.equal(answer.body.piece_id, pieceId);
      assert.equal(answer.body.address, lineOf(street));
    }

    await run();
    const piece = await owner.browser.request("GET", `/app/api/v1/pieces/${pieceId}`);
    assert.equal(piece.status, 200, piece.text);
    assert.equal(piece.body.status, "mailed", "not held out: its sender is there to see it");
    assert.equal(piece.body.automation_id, org.automationId);
    assert.equal(piece.body.recipient_name, "Pat Owner");
    assert.match(piece.body.campaign_name, /^Completed jobs \(test card\)$/);
    assert.ok(piece.body.landing_url, "with its QR code's landing page");
    assert.equal(piece.body.test_card, true, "the card's page says it is a test card");
    const listed = await owner.browser.request("GET", "/app/api/v1/pieces");
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.pieces.find((row: { id: string }) => row.id === pieceId)?.test_card, true);

    const pieces = await piecesOfOrg();
    assert.deepEqual(
      pieces.map((row) => [row.id, row.sequence_step, row.automation_id]),
      [[pieceId, null, org.automationId]],
      "no follow-up scheduled, and the other automation on the same event type mailed nothing",
    );
    assert.ok(!pieces.some((row) => row.automation_id === otherAutomationId));
    const revenue = await owner.browser.request("GET", "/app/api/v1/revenue");
    assert.equal(revenue.status, 200, revenue.text);
    const experiment = revenue.body.by_automation.find(
      (entry: { automation_id: string }) => entry.automation_id === org.automationId,
    )?.experiment;
    assert.equal(experiment?.mailed_homes, 0, "the holdout comparison counts only homes it drew");

    // Kept as a sample of the automation's event type: Get started ticks it, the builder can test with it.
    const after = await owner.browser.request("GET", "/app/api/v1/first-steps");
    assert.equal(after.body.event, true);
    const samples = await owner.browser.request(
      "GET",
      `/app/api/v1/event-samples?event_type=${encodeURIComponent(EVENT_TYPE)}`,
    );
    assert.equal(samples.status, 200, samples.text);
    const sample = samples.body[0];
    assert.equal(sample.record.record.properties.street, street);
    assert.equal(sample.record.record.properties.client_name, "Pat Owner");
  });

  test("a test card from a turned-off automation is sent, and Overview does not say events arrive unheard", async () => {
    const off = await createAutomation(ctx, org.orgId, {
      name: "Not yet on",
      enabled: false,
      trigger: { type: "custom_api", event_type: "estimate.sent" },
    });
    const sent = await sendTestCard(owner, off.id, {
      request_id: randomUUID(),
      recipient: office("9 Quiet Ln"),
    });
    assert.equal(sent.status, 202, sent.text);
    assert.equal(sent.body.outcome, "queued");
    await run();
    const piece = await owner.browser.request("GET", `/app/api/v1/pieces/${sent.body.piece_id}`);
    assert.equal(piece.body.status, "mailed", piece.text);
    const attention = await owner.browser.request("GET", "/app/api/v1/attention");
    assert.equal(attention.status, 200, attention.text);
    const unheard = attention.body.items.filter(
      (item: { kind: string; event_type?: string }) =>
        item.kind === "unbound_event_type" && item.event_type === "estimate.sent",
    );
    assert.deepEqual(unheard, [], "only a test card came: no event of that type arrived");
  });

  test("only owners send one; another organization's automation is not found", async () => {
    const body = { request_id: randomUUID(), recipient: office("10 Member Way") };
    const byMember = await sendTestCard(member, org.automationId, body);
    assert.equal(byMember.status, 403, byMember.text);
    const byStranger = await sendTestCard(otherOwner, org.automationId, body);
    assert.equal(byStranger.status, 404, byStranger.text);
    const notAnId = await sendTestCard(owner, "not-an-id", body);
    assert.equal(notAnId.status, 404, notAnId.text);
  });

  test("an address no card can carry is refused on its field, and nothing is queued", async () => {
    const before = (await piecesOfOrg()).length;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ request_id: "not-a-uuid", recipient: office("11 Any St") }, /request_id/],
      [{ request_id: randomUUID(), recipient: { ...office("11 Any St"), zip: "6270" } }, /zip/],
      [{ request_id: randomUUID(), recipient: { ...office("11 Any St"), street: "" } }, /street/],
      [{ request_id: randomUUID(), recipient: { ...office("11 Any St\u202e") } }, /street/],
      [
        { request_id: randomUUID(), recipient: { ...office("11 Any St"), state: "Narnia" } },
        /No carrier can deliver to this address: .*state/,
      ],
      [
        { request_id: randomUUID(), recipient: { ...office("11 Any St"), zip: "10001" } },
        /No carrier can deliver to this address: .*10001/,
      ],
      [{ request_id: randomUUID(), recipient: { ...office("11 Any St"), extra: "x" } }, /extra|additional/],
    ];
    for (const [body, field] of cases) {
      const refused = await sendTestCard(owner, org.automationId, body);
      assert.equal(refused.status, 422, `${JSON.stringify(body)}: ${refused.text}`);
      assert.equal(refused.body.error.code, "invalid_payload");
      assert.match(refused.text, field);
    }
    await run();
    assert.equal((await piecesOfOrg()).length, before);
  });

  test("a neighbor automation refuses: its test card would mail the neighbors", async () => {
    const neighbours = await createAutomation(ctx, org.orgId, {
      name: "Around the job",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
      audience: { type: "neighbours" },
    });
    const refused = await sendTestCard(owner, neighbours.id, {
      request_id: randomUUID(),
      recipient: office("12 Any St"),
    });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, "neighbour_audience");
    assert.match(refused.body.error.message, /Test with a sample/);
  });

  test("paused platform-wide, a test card waits like every card: 503 automations_disabled", async () => {
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    try {
      const paused = await sendTestCard(owner, org.automationId, {
        request_id: randomUUID(),
        recipient: office("13 Any St"),
      });
      assert.equal(paused.status, 503, paused.text);
      assert.equal(paused.body.error.code, "automations_disabled");
    } finally {
      await admin(ctx, "PUT", "/kill-switch", { paused: false });
    }
  });

  test("at most 20 an hour: a test card is a real card at a real price", async () => {
    const other = await orgWithAutomation(ctx);
    const sender = await inviteAndAccept(ctx, other.orgId, "owner-test-card-limit@example.com", "owner");
    const answers = [];
    for (let house = 1; house <= 21; house++) {
      answers.push(
        await sendTestCard(sender, other.automationId, {
          request_id: randomUUID(),
          recipient: office(`${house} Limit St`),
        }),
      );
    }
    assert.deepEqual(
      answers.slice(0, 20).map((answer) => answer.status),
      Array(20).fill(202),
    );
    assert.equal(answers[20]!.status, 429, answers[20]!.text);
    assert.match(
      answers[20]!.body.error.message,
      /^You have sent 20 test cards this hour\. Try again in \d+ minutes?\.$/,
    );
    assert.ok(Number(answers[20]!.headers["retry-after"]) > 0);
  });

  test("a repeat, a refused address and a neighbor automation's refusal do not count against the hour's cards", async () => {
    const other = await orgWithAutomation(ctx);
    const sender = await inviteAndAccept(ctx, other.orgId, "owner-test-card-repeats@example.com", "owner");
    const neighbours = await createAutomation(ctx, other.orgId, {
      name: "Around the job",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
      audience: { type: "neighbours" },
    });
    const requestId = randomUUID();
    const first = await sendTestCard(sender, other.automationId, {
      request_id: requestId,
      recipient: office("1 First Way"),
    });
    assert.equal(first.body.outcome, "queued", first.text);
    for (let attempt = 0; attempt < 25; attempt++) {
      // The retry of a lost answer, typed again with another address: the first card, as it goes.
      const repeat = await sendTestCard(sender, other.automationId, {
        request_id: requestId.toUpperCase(),
        recipient: office("2 Other Way"),
      });
      assert.equal(repeat.status, 202, repeat.text);
      assert.deepEqual(repeat.body, {
        outcome: "duplicate",
        piece_id: first.body.piece_id,
        address: lineOf("1 First Way"),
      });
      const refused = await sendTestCard(sender, other.automationId, {
        request_id: randomUUID(),
        recipient: { ...office("3 Typo Way"), zip: "10001" },
      });
      assert.equal(refused.status, 422, refused.text);
      const neighbourRefused = await sendTestCard(sender, neighbours.id, {
        request_id: randomUUID(),
        recipient: office("4 Any Way"),
      });
      assert.equal(neighbourRefused.status, 409, neighbourRefused.text);
    }
    const samples = await sender.browser.request(
      "GET",
      `/app/api/v1/event-samples?event_type=${encodeURIComponent(EVENT_TYPE)}`,
    );
    assert.equal(samples.body.length, 1, "a repeat keeps no second record");
    const next = await sendTestCard(sender, other.automationId, {
      request_id: randomUUID(),
      recipient: office("5 Next Way"),
    });
    assert.equal(next.status, 202, next.text);
  });

  test("each part of the address is refused on its own field, and text the card cannot print is refused as typed", async () => {
    const refusal = async (recipient: Record<string, unknown>) => {
      const refused = await sendTestCard(owner, org.automationId, { request_id: randomUUID(), recipient });
      assert.equal(refused.status, 422, refused.text);
      return refused.body.error.details.fields as Record<string, string>;
    };
    const state = await refusal({ ...office("20 Part St"), state: "Ilinois" });
    assert.match(state.state ?? "", /No carrier can deliver to this address: ILINOIS is not a US state code/);
    const zip = await refusal({ ...office("20 Part St"), zip: "10001" });
    assert.match(zip.zip ?? "", /ZIP 10001/);
    assert.equal(zip.street, undefined);
    const name = await refusal({ ...office("20 Part St"), name: "Pat \u{1F3E0} Lee" });
    assert.match(name.name ?? "", /The card cannot print the name: its typeface has no \u{1F3E0}/u);
    const street = await refusal({ ...office("20 Part St\uE000") });
    assert.match(street.street ?? "", /U\+E000, a control or format character/);
  });

  test("approving test cards does not count towards approving automatically", async () => {
    const other = await orgWithAutomation(ctx);
    const sender = await inviteAndAccept(ctx, other.orgId, "owner-test-card-approvals@example.com", "owner");
    const set = await sender.browser.request(
      "PATCH",
      `/app/api/v1/automations/${other.automationId}/safety`,
      {
        body: { approval_required: true, auto_approve_after: 1 },
      },
    );
    assert.equal(set.status, 200, set.text);
    const sent = await sendTestCard(sender, other.automationId, {
      request_id: randomUUID(),
      recipient: office("30 Approve Ln"),
    });
    await run();
    const waiting = await sender.browser.request("GET", `/app/api/v1/pieces/${sent.body.piece_id}`);
    assert.equal(waiting.body.status, "awaiting_approval", waiting.text);
    const queue = await sender.browser.request("GET", "/app/api/v1/approvals");
    assert.equal(queue.status, 200, queue.text);
    assert.equal(
      queue.body.pieces.find((card: { id: string }) => card.id === sent.body.piece_id)?.test_card,
      true,
    );
    const approved = await sender.browser.request("POST", "/app/api/v1/approvals/approve", {
      body: { piece_ids: [sent.body.piece_id] },
    });
    assert.equal(approved.status, 200, approved.text);
    const safety = await sender.browser.request(
      "GET",
      `/app/api/v1/automations/${other.automationId}/safety`,
    );
    assert.equal(safety.body.approval_required, true, "still asks: no customer's card was reviewed yet");
    assert.equal(safety.body.approved_count, 0);
  });
});
