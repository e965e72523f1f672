import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { admin, createOrg } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { EVENT_TYPE, home, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

/**
 * The builder sends a new automation's approval choice with the automation itself: its very first
 * card waits for approval, whoever created it (turning approval on is never a loosening). A member's
 * new automation always asks for approval; an owner's starts as the owner chooses.
 */
describe(`app API: a new automation created to hold its cards for approval (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let member: SignedInUser;
  let owner: SignedInUser;
  const dataDir = tempDataDir();

  before(async () => {
    ctx = await createAppTestContext();
    org = await createOrg(ctx, { name: "Careful Roofing" });
    member = await inviteAndAccept(ctx, org.orgId, "member-new-automation@example.com", "member");
    owner = await inviteAndAccept(ctx, org.orgId, "owner-new-automation@example.com", "owner");
  });
  after(async () => {
    await ctx.close();
  });

  const create = (body: Record<string, unknown>, by: SignedInUser = member) =>
    by.browser.request("POST", "/app/api/v1/automations", {
      body: { trigger: { type: "custom_api", event_type: EVENT_TYPE }, ...body },
    });
  const safetyOf = async (automationId: string) =>
    (await member.browser.request("GET", `/app/api/v1/automations/${automationId}/safety`)).body;

  test("created with approval_required, its first card awaits approval; created without, it does not wait", async () => {
    const created = await create({
      name: "First cards approved",
      approval_required: true,
      template: { headline: "Hello {{street}}", message: "We were nearby.", offer: null, card_size: "4x6" },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.enabled, true);
    assert.equal(created.body.template.headline, "Hello {{street}}", "the card is saved with it");
    assert.equal((await safetyOf(created.body.id)).approval_required, true);

    const piece = await queuePiece(ctx, org, home("7 Approval Way"));
    await runPipeline(ctx, { dataDir });
    const held = await admin(ctx, "GET", `/pieces/${piece.id}`);
    assert.equal(held.body.status, "awaiting_approval", held.text);
    const queue = await member.browser.request("GET", "/app/api/v1/approvals");
    assert.deepEqual(
      queue.body.pieces.map((card: { id: string }) => card.id),
      [piece.id],
    );

    const plain = await create({ name: "Mails at once", enabled: false }, owner);
    assert.equal(plain.status, 201, plain.text);
    assert.equal((await safetyOf(plain.body.id)).approval_required, false, "an owner's default is unchanged");
    const members = await create({ name: "A member's", enabled: false });
    assert.equal((await safetyOf(members.body.id)).approval_required, true, "a member's asks for approval");
  });

  test("the approval choice is a creation field only: a PATCH naming it is refused and changes nothing", async () => {
    const created = await create({ name: "Patched later" }, owner);
    assert.equal(created.status, 201, created.text);
    const patched = await member.browser.request("PATCH", `/app/api/v1/automations/${created.body.id}`, {
      body: { approval_required: true },
    });
    assert.equal(patched.status, 422, patched.text);
    assert.equal((await safetyOf(created.body.id)).approval_required, false);
  });
});
