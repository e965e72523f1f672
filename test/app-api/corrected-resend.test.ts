import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { queryOne, sql } from "../../src/db/database.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

/** A ZIP of New York under an Illinois city: the offline check before print stops the card. */
const wrongZip = (house: number) => ({
  street: `${house} Maple Ave`,
  city: "Springfield",
  state: "IL",
  zip: "10001",
  client_name: "Pat Doe",
});
/** Each test's home: the frequency cap would skip a second card to one home. */
const corrected = (house: number) => `${house} Maple Ave, Springfield, IL 62704`;

describe(`app API: an undeliverable card sent again to a corrected address (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;
  const dataDir = tempDataDir();
  const run = () => runPipeline(ctx, { dataDir, printProvider: "local" });

  const resend = (user: SignedInUser, pieceId: string, body: Record<string, unknown>) =>
    user.browser.request("POST", `/app/api/v1/pieces/${pieceId}/resend`, { body });
  const pieceOf = async (user: SignedInUser, pieceId: string) => {
    const piece = await user.browser.request("GET", `/app/api/v1/pieces/${pieceId}`);
    assert.equal(piece.status, 200, piece.text);
    return piece.body;
  };
  const undeliverableAttention = async () => {
    const attention = await owner.browser.request("GET", "/app/api/v1/attention");
    assert.equal(attention.status, 200, attention.text);
    return attention.body.items.find((item: { kind: string }) => item.kind === "undeliverable_pieces");
  };
  /** A card of the automation the check before print stopped. */
  const undeliverableCard = async (house: number) => {
    const queued = await queuePiece(ctx, org, wrongZip(house));
    await run();
    const piece = await pieceOf(owner, queued.id);
    assert.equal(piece.status, "undeliverable", JSON.stringify(piece));
    return piece;
  };

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await orgWithAutomation(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-resend@example.com", "owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-resend@example.com", "member");
    const other = await orgWithAutomation(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "owner-resend-other@example.com", "owner");
  });
  after(() => ctx.close());

  test("the owner corrects the address: one new card of the same automation prints, and Overview stops asking", async () => {
    const original = await undeliverableCard(412);
    assert.equal(original.corrected_by, null);
    assert.equal(original.corrected, false);
    assert.equal(original.corrects, null);
    assert.match((await undeliverableAttention())?.message ?? "", /correct the address on the card's page/);

    // Ten clicks at once (two tabs, a double click): one new card, the others told it was sent.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => resend(owner, original.id, { address: ` ${corrected(412)} ` })),
    );
    const created = answers.filter((answer) => answer.status === 201);
    assert.equal(created.length, 1, answers.map((answer) => answer.text).join("\n"));
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.error.code, "not_resendable");
      assert.match(refused.body.error.message, /already sent again/);
    }
    const resent = created[0]!.body;
    assert.deepEqual(resent, { id: resent.id, address: corrected(412), recipient_name: "Pat Doe" });

    const before = await pieceOf(owner, original.id);
    assert.equal(before.status, "undeliverable", "the old card stays as it was: it never printed");
    assert.deepEqual(before.corrected_by, { id: resent.id, address: corrected(412), status: "queued" });
    assert.equal(await undeliverableAttention(), undefined, "a corrected card needs nothing more");
    const listed = await owner.browser.request("GET", "/app/api/v1/pieces?status=undeliverable");
    assert.equal(listed.status, 200, listed.text);
    const row = listed.body.pieces.find((piece: { id: string }) => piece.id === original.id);
    assert.equal(row?.corrected, true, "Mail's list marks the card dealt with");
    assert.equal(before.corrected, true);

    await run();
    const card = await pieceOf(member, resent.id);
    assert.equal(card.status, "mailed", JSON.stringify(card));
    assert.equal(card.automation_id, org.automationId, "the automation's card, in its campaign");
    assert.equal(card.campaign_id, original.campaign_id);
    assert.equal(card.recipient_name, "Pat Doe");
    assert.deepEqual(card.corrects, { id: original.id, address: original.address });
    assert.equal(card.sequence_step, null, "a first card of its own");
    assert.ok(card.landing_url, "with its own landing page");
    assert.equal((await pieceOf(owner, original.id)).corrected_by.status, "mailed");
  });

  test("an address the check before print would refuse again is refused on its field, and nothing is queued", async () => {
    const original = await undeliverableCard(414);
    for (const [address, words] of [
      ["414 Maple Ave, Springfield, IL 10001", /No carrier can deliver to this address either: .*10001/],
      ["   ", /Enter the corrected address/],
      ["414 Maple Ave\u202e, Springfield, IL 62704", /character no card can print \(U\+202E\)/],
    ] as const) {
      const refused = await resend(owner, original.id, { address });
      assert.equal(refused.status, 422, refused.text);
      assert.equal(refused.body.error.code, "invalid_payload");
      assert.match(refused.body.error.details?.fields?.address, words, refused.text);
    }
    const tooLong = await resend(owner, original.id, { address: "x".repeat(301) });
    assert.equal(tooLong.status, 422, tooLong.text);
    const corrections = await queryOne<{ count: number | string }>(
      ctx.database.db,
      sql`SELECT count(*) AS count FROM mail_pieces WHERE corrects_piece_id = ${original.id}::uuid`,
    );
    assert.equal(Number(corrections?.count), 0);

    const renamed = await resend(owner, original.id, {
      address: corrected(414),
      recipient_name: "Pat and Lee Doe",
    });
    assert.equal(renamed.status, 201, renamed.text);
    assert.equal(renamed.body.recipient_name, "Pat and Lee Doe");
  });

  test("only an owner sends, only an undeliverable first card of their own organization", async () => {
    const original = await undeliverableCard(416);
    const byMember = await resend(member, original.id, { address: corrected(416) });
    assert.equal(byMember.status, 403, "it spends money: owners only");
    const byOther = await resend(otherOwner, original.id, { address: corrected(416) });
    assert.equal(byOther.status, 404, byOther.text);
    assert.equal((await resend(owner, "not-a-card", { address: corrected(416) })).status, 404);

    const good = await queuePiece(ctx, org, { ...wrongZip(500), zip: "62704" });
    await run();
    const mailed = await resend(owner, good.id, { address: corrected(416) });
    assert.equal(mailed.status, 409, mailed.text);
    assert.equal(mailed.body.error.code, "not_resendable");
    assert.match(mailed.body.error.message, /the card is mailed; only an undeliverable card is sent again/);
    const extra = await resend(owner, original.id, { address: corrected(416), note: "hi" });
    assert.equal(extra.status, 422, "unknown fields are refused");
  });

  test("the corrected card goes through the automation's approval like any other", async () => {
    const original = await undeliverableCard(418);
    const set = await owner.browser.request("PATCH", `/app/api/v1/automations/${org.automationId}/safety`, {
      body: { approval_required: true, auto_approve_after: null },
    });
    assert.equal(set.status, 200, set.text);
    const resent = await resend(owner, original.id, { address: corrected(418) });
    assert.equal(resent.status, 201, resent.text);
    await run();
    assert.equal((await pieceOf(owner, resent.body.id)).status, "awaiting_approval");
  });
});
