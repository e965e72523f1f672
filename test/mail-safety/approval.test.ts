import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { admin } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { pdfTextLines } from "../helpers/pdf-text.ts";
import {
  adminBytes,
  home,
  orgWithAutomation,
  queuePiece,
  runPipeline,
  startFakeLob,
} from "../pipeline/helpers.ts";

describe(`mail safety: approval mode (${databaseLabel})`, () => {
  let ctx: TestContext;
  let lob: Awaited<ReturnType<typeof startFakeLob>>;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");

  before(async () => {
    ctx = await createTestContext({ clock });
    lob = await startFakeLob();
  });
  after(async () => {
    await lob.close();
    await ctx.close();
  });

  const run = () => runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
  const pieceOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body;
  const printed = (from: number) => lob.requests.slice(from).map((request) => request.idempotencyKey);

  test("an approved card prints the text that was approved, not an edit made after the approval", async () => {
    const org = await orgWithAutomation(ctx);
    const template = `/automations/${org.automationId}/template`;
    const approvedText = await admin(ctx, "PUT", template, { headline: "APPROVED headline for {{street}}" });
    assert.equal(approvedText.status, 200, approvedText.text);
    const read = await admin(ctx, "GET", template);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, approvedText.body, "the card as it prints, read before a PUT replaces it");
    const safety = `/automations/${org.automationId}/mail-safety`;
    assert.equal((await admin(ctx, "PATCH", safety, { approval_required: true })).status, 200);
    const piece = await queuePiece(ctx, org, home("9 Pinned Rd"));
    await run();
    assert.equal((await pieceOf(piece.id)).status, "awaiting_approval");
    // Approved while the automation's cap holds it back: it waits, approved, and then the text is edited.
    assert.equal((await admin(ctx, "PATCH", safety, { monthly_card_cap: 0 })).status, 200);
    const approved = await admin(ctx, "POST", `/pieces/${piece.id}/approve`, {
      actor: "olga@bright.example",
    });
    assert.equal(approved.status, 200, approved.text);
    await run();
    assert.equal((await pieceOf(piece.id)).status, "capped");
    const edited = await admin(ctx, "PUT", template, { headline: "EDITED 50% off everything, today only" });
    assert.equal(edited.status, 200, edited.text);

    const before = lob.requests.length;
    assert.equal((await admin(ctx, "PATCH", safety, { monthly_card_cap: 5 })).status, 200);
    await run();
    assert.deepEqual(printed(before), [piece.id]);
    const text = pdfTextLines((await adminBytes(ctx, `/pieces/${piece.id}/proof.pdf`)).bytes)
      .join(" ")
      .replace(/\u00a0/g, " ");
    assert.match(text, /APPROVED headline for 9 Pinned Rd/);
    assert.doesNotMatch(text, /EDITED/);
    // A card approved from now on approves the edited text.
    const next = await queuePiece(ctx, org, home("11 Pinned Rd"));
    await run();
    await admin(ctx, "POST", `/pieces/${next.id}/approve`, { actor: "olga@bright.example" });
    await run();
    const nextText = pdfTextLines((await adminBytes(ctx, `/pieces/${next.id}/proof.pdf`)).bytes).join(" ");
    assert.match(nextText, /EDITED 50% off everything/);
  });

  test("pieces await approval; approving one, a list or all prints them; after N approvals the automation is automatic", async () => {
    const org = await orgWithAutomation(ctx);
    const set = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      approval_required: true,
      auto_approve_after: 2,
    });
    assert.equal(set.status, 200, set.text);
    const [a, b, c] = [
      await queuePiece(ctx, org, home("1 Approval Rd")),
      await queuePiece(ctx, org, home("2 Approval Rd")),
      await queuePiece(ctx, org, home("3 Approval Rd")),
    ];
    const before = lob.requests.length;
    await run();
    assert.deepEqual(printed(before), []);
    for (const piece of [a!, b!, c!]) assert.equal((await pieceOf(piece.id)).status, "awaiting_approval");

    const one = await admin(ctx, "POST", `/pieces/${a!.id}/approve`, { actor: "dana@bright.example" });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.status, "queued");
    assert.equal(one.body.approved_by, "dana@bright.example");
    await run();
    assert.deepEqual(printed(before), [a!.id]);
    assert.equal((await pieceOf(a!.id)).status, "submitted");

    const listed = await admin(ctx, "POST", `/automations/${org.automationId}/approvals`, {
      piece_ids: [b!.id],
    });
    assert.deepEqual(listed.body.piece_ids, [b!.id]);
    const settings = await admin(ctx, "GET", `/automations/${org.automationId}/mail-safety`);
    assert.equal(settings.body.approved_count, 2);
    assert.equal(settings.body.approval_required, false, "two approved cards switch it to automatic");
    await run();
    assert.deepEqual(printed(before), [a!.id, b!.id]);
    assert.equal((await pieceOf(c!.id)).status, "awaiting_approval", "a piece already waiting still waits");

    const all = await admin(ctx, "POST", `/automations/${org.automationId}/approvals`);
    assert.deepEqual(all.body.piece_ids, [c!.id]);
    const d = await queuePiece(ctx, org, home("4 Approval Rd"));
    await run();
    assert.deepEqual(new Set(printed(before)), new Set([a!.id, b!.id, c!.id, d.id]));

    const again = await admin(ctx, "POST", `/pieces/${a!.id}/approve`);
    assert.equal(again.status, 409);
  });

  test("a threshold set at or below the cards already approved switches the automation to automatic at once", async () => {
    const org = await orgWithAutomation(ctx);
    await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, { approval_required: true });
    const [a, b, waiting] = [
      await queuePiece(ctx, org, home("11 Threshold Rd")),
      await queuePiece(ctx, org, home("12 Threshold Rd")),
      await queuePiece(ctx, org, home("13 Threshold Rd")),
    ];
    await run();
    await admin(ctx, "POST", `/automations/${org.automationId}/approvals`, { piece_ids: [a!.id, b!.id] });
    await run();

    const above = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      auto_approve_after: 3,
    });
    assert.equal(above.body.approved_count, 2);
    assert.equal(above.body.approval_required, true, "two of three approved: it still asks");

    const reached = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      auto_approve_after: 2,
    });
    assert.equal(reached.status, 200, reached.text);
    assert.equal(reached.body.approval_required, false, "two of two approved: automatic now");
    const before = lob.requests.length;
    const next = await queuePiece(ctx, org, home("14 Threshold Rd"));
    await run();
    assert.deepEqual(printed(before), [next.id], "the next card prints without an approval");
    assert.equal(
      (await pieceOf(waiting!.id)).status,
      "awaiting_approval",
      "a card already waiting still waits",
    );

    const again = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      approval_required: true,
      auto_approve_after: 1,
    });
    assert.equal(again.body.approval_required, true, "asking again starts a new count");
    assert.equal(again.body.approved_count, 0);
  });

  test("a piece awaiting approval can be cancelled instead, and approving all then skips it", async () => {
    const org = await orgWithAutomation(ctx);
    await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, { approval_required: true });
    const kept = await queuePiece(ctx, org, home("5 Approval Rd"));
    const dropped = await queuePiece(ctx, org, home("6 Approval Rd"));
    const before = lob.requests.length;
    await run();
    const cancelled = await admin(ctx, "POST", `/pieces/${dropped.id}/cancel`, { actor: "dana" });
    assert.equal(cancelled.body.status, "cancelled");
    const approved = await admin(ctx, "POST", `/automations/${org.automationId}/approvals`, {
      actor: "dana",
    });
    assert.deepEqual(approved.body.piece_ids, [kept.id], "a cancelled piece is not approved");
    await run();
    assert.deepEqual(printed(before), [kept.id]);
  });
});
