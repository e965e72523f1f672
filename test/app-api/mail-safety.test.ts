import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { admin } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { pdfTextLines } from "../helpers/pdf-text.ts";
import {
  adminBytes,
  home,
  orgWithAutomation,
  queuePiece,
  runPipeline,
  startFakeLob,
  tempDataDir,
} from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

describe(`app API: mail safety controls (${databaseLabel})`, () => {
  let ctx: TestContext;
  let lob: Awaited<ReturnType<typeof startFakeLob>>;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  let other: Awaited<ReturnType<typeof orgWithAutomation>>;
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;
  const dataDir = tempDataDir();
  let street = 0;
  const nextHome = () => home(`${100 + ++street} Safety St`);

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    lob = await startFakeLob();
    org = await orgWithAutomation(ctx);
    other = await orgWithAutomation(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-safety@example.com", "owner", "Olive Owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-safety@example.com", "member", "Mia Member");
    otherOwner = await inviteAndAccept(ctx, other.orgId, "owner-elsewhere@example.com", "owner");
  });
  after(async () => {
    await lob.close();
    await ctx.close();
  });

  const run = () =>
    runPipeline(ctx, { dataDir, printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
  const statusOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body.status;
  const setSafety = async (user: SignedInUser, body: Record<string, unknown>) => {
    const set = await user.browser.request("PATCH", `/app/api/v1/automations/${org.automationId}/safety`, {
      body,
    });
    assert.equal(set.status, 200, set.text);
    return set.body;
  };

  test("a member reads and sets an automation's hold window, approval mode and caps; others' are not found", async () => {
    const initial = await member.browser.request("GET", `/app/api/v1/automations/${org.automationId}/safety`);
    assert.equal(initial.status, 200, initial.text);
    assert.deepEqual(
      { ...initial.body, automation_id: undefined },
      {
        automation_id: undefined,
        hold_minutes: 0,
        approval_required: false,
        auto_approve_after: null,
        approved_count: 0,
        monthly_card_cap: null,
        monthly_spend_cap_cents: null,
        paused_by_cap: false,
      },
    );
    const set = await setSafety(member, { hold_minutes: 90, monthly_spend_cap_cents: 5000 });
    assert.equal(set.hold_minutes, 90);
    assert.equal(set.monthly_spend_cap_cents, 5000);
    const operatorView = await admin(ctx, "GET", `/automations/${org.automationId}/mail-safety`);
    assert.equal(operatorView.body.hold_minutes, 90, "the same setting the pipeline reads");

    const invalid = await member.browser.request(
      "PATCH",
      `/app/api/v1/automations/${org.automationId}/safety`,
      {
        body: { hold_minutes: -5 },
      },
    );
    assert.equal(invalid.status, 422);
    for (const [method, url] of [
      ["GET", `/app/api/v1/automations/${org.automationId}/safety`],
      ["PATCH", `/app/api/v1/automations/${org.automationId}/safety`],
      ["POST", `/app/api/v1/automations/${org.automationId}/waiting-pieces/cancel`],
    ] as const) {
      const foreign = await otherOwner.browser.request(method, url, {
        body: method === "PATCH" ? { hold_minutes: 0 } : undefined,
      });
      assert.equal(foreign.status, 404, `${method} ${url}: ${foreign.text}`);
    }
    assert.equal(
      (await admin(ctx, "GET", `/automations/${org.automationId}/mail-safety`)).body.hold_minutes,
      90,
    );
    await setSafety(owner, { hold_minutes: 0, monthly_spend_cap_cents: null });
  });

  test("the org's caps and frequency cap are set by owners only; CSRF as everywhere", async () => {
    const byMember = await member.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { monthly_card_cap: 5 },
    });
    assert.equal(byMember.status, 403);
    assert.equal(byMember.body.error.code, "forbidden");
    const crossSite = await owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { monthly_card_cap: 5 },
      headers: { origin: "https://evil.example" },
    });
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.body.error.code, "csrf_rejected");
    const set = await owner.browser.request("PATCH", "/app/api/v1/mail-safety", {
      body: { monthly_card_cap: 500, frequency_cap_days: 45 },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.organization.monthly_card_cap, 500);
    assert.equal(set.body.frequency_cap_days, 45);
    const seen = await member.browser.request("GET", "/app/api/v1/mail-safety");
    assert.equal(seen.body.organization.monthly_card_cap, 500);
    assert.equal(seen.body.address_checker, "offline", "Settings words the levels for the check that runs");
    const elsewhere = await otherOwner.browser.request("GET", "/app/api/v1/mail-safety");
    assert.equal(elsewhere.body.organization.monthly_card_cap, null, "another org's settings are its own");
    assert.equal(elsewhere.body.frequency_cap_days, 30);
  });

  test("a member cannot get cards past the owner's safety by a new automation or by mailing customers", async () => {
    const trigger = { type: "custom_api", event_type: "job.completed" };
    const made = await member.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "A copy of the owner's", trigger, approval_required: false },
    });
    assert.equal(made.status, 201, made.text);
    const safety = await member.browser.request("GET", `/app/api/v1/automations/${made.body.id}/safety`);
    assert.equal(safety.body.approval_required, true, "a member's new automation asks for approval");
    const loosen = await member.browser.request("PATCH", `/app/api/v1/automations/${made.body.id}/safety`, {
      body: { approval_required: false },
    });
    assert.equal(loosen.status, 403, "and only an owner switches that off");
    const owners = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "The owner's own", trigger },
    });
    const ownerSafety = await owner.browser.request(
      "GET",
      `/app/api/v1/automations/${owners.body.id}/safety`,
    );
    assert.equal(ownerSafety.body.approval_required, false, "an owner's starts as they choose");

    const mailsCustomers = await member.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Everyone", trigger, suppress_customers: false },
    });
    assert.equal(mailsCustomers.status, 403, mailsCustomers.text);
    assert.match(
      mailsCustomers.body.error.message,
      /Only an owner can let an automation mail existing customers/,
    );
    const unsuppress = await member.browser.request("PATCH", `/app/api/v1/automations/${owners.body.id}`, {
      body: { suppress_customers: false },
    });
    assert.equal(unsuppress.status, 403, unsuppress.text);
    // A won deal's card mails customers by default: turning the kind to it is the same decision.
    const byKind = await member.browser.request("PATCH", `/app/api/v1/automations/${owners.body.id}`, {
      body: { kind: "deal_won" },
    });
    assert.equal(byKind.status, 403, byKind.text);
    // Nor in two steps: a won deal's automation (made to mail customers) turned standard with suppression off.
    const wonDeal = await member.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Thank-you cards", kind: "deal_won", trigger },
    });
    assert.equal(wonDeal.status, 201, wonDeal.text);
    const turned = await member.browser.request("PATCH", `/app/api/v1/automations/${wonDeal.body.id}`, {
      body: { kind: "standard", suppress_customers: false },
    });
    assert.equal(turned.status, 403, turned.text);
    const standard = await member.browser.request("PATCH", `/app/api/v1/automations/${wonDeal.body.id}`, {
      body: { kind: "standard" },
    });
    assert.equal(standard.status, 200, "turned standard, it suppresses customers as a standard one does");
    assert.equal(standard.body.suppress_customers, true);
    const kept = await member.browser.request("GET", `/app/api/v1/automations/${owners.body.id}`);
    assert.equal(kept.body.suppress_customers, true, "nothing changed");
    assert.equal(kept.body.kind, "standard");
    const byOwner = await owner.browser.request("PATCH", `/app/api/v1/automations/${owners.body.id}`, {
      body: { suppress_customers: false },
    });
    assert.equal(byOwner.status, 200, byOwner.text);
    const back = await member.browser.request("PATCH", `/app/api/v1/automations/${owners.body.id}`, {
      body: { suppress_customers: true, name: "The owner's own, renamed" },
    });
    assert.equal(back.status, 200, "suppressing customers again is safer: open to members");
    for (const id of [made.body.id, owners.body.id, wonDeal.body.id])
      await owner.browser.request("PATCH", `/app/api/v1/automations/${id}`, { body: { enabled: false } });
  });

  test("a member approves cards in the queue and they print; another org can neither see nor approve them", async () => {
    await setSafety(owner, { approval_required: true, auto_approve_after: null });
    const first = await queuePiece(ctx, org, nextHome());
    const second = await queuePiece(ctx, org, nextHome());
    const third = await queuePiece(ctx, org, nextHome());
    await run();
    const queue = await member.browser.request("GET", "/app/api/v1/approvals");
    assert.equal(queue.status, 200, queue.text);
    assert.equal(queue.body.total, 3);
    assert.deepEqual(
      new Set(queue.body.pieces.map((piece: { id: string }) => piece.id)),
      new Set([first.id, second.id, third.id]),
    );
    const card = queue.body.pieces.find((piece: { id: string }) => piece.id === first.id);
    assert.match(card.card_version, /^[0-9a-f]{32}$/);
    assert.equal(card.front_url, `/app/api/v1/pieces/${first.id}/proof/front.svg?v=${card.card_version}`);
    assert.equal(card.automation_name, "Completed jobs");
    // The automations whose new cards wait here, for the empty queue to say so.
    assert.deepEqual(queue.body.automations_asking_approval, [
      { automation_id: org.automationId, name: "Completed jobs" },
    ]);
    const front = await member.browser.request("GET", card.front_url);
    assert.equal(front.status, 200);
    assert.equal(front.headers["content-type"], "image/svg+xml");

    const foreignQueue = await otherOwner.browser.request("GET", "/app/api/v1/approvals");
    assert.deepEqual(foreignQueue.body, { pieces: [], total: 0, automations_asking_approval: [] });
    const foreignApprove = await otherOwner.browser.request("POST", "/app/api/v1/approvals/approve", {
      body: { piece_ids: [first.id] },
    });
    assert.deepEqual(foreignApprove.body, { piece_ids: [], changed_piece_ids: [] });
    const foreignOne = await otherOwner.browser.request("POST", `/app/api/v1/pieces/${first.id}/approve`);
    assert.equal(foreignOne.status, 404);
    const foreignCancel = await otherOwner.browser.request("POST", `/app/api/v1/pieces/${first.id}/cancel`);
    assert.equal(foreignCancel.status, 404);
    assert.equal(await statusOf(first.id), "awaiting_approval");

    const one = await member.browser.request("POST", `/app/api/v1/pieces/${first.id}/approve`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.status, "queued");
    const again = await member.browser.request("POST", `/app/api/v1/pieces/${first.id}/approve`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "not_awaiting_approval");
    const selection = await member.browser.request("POST", "/app/api/v1/approvals/approve", {
      body: { piece_ids: [second.id, first.id] },
    });
    assert.deepEqual(
      selection.body,
      { piece_ids: [second.id], changed_piece_ids: [] },
      "an approved card is not approved twice",
    );
    const cancelled = await member.browser.request("POST", "/app/api/v1/approvals/cancel", {
      body: { piece_ids: [third.id] },
    });
    assert.deepEqual(cancelled.body, { piece_ids: [third.id] });

    const before = lob.requests.length;
    await run();
    assert.deepEqual(
      new Set(lob.requests.slice(before).map((request) => request.idempotencyKey)),
      new Set([first.id, second.id]),
      "the approved cards print; the cancelled one never reaches the print provider",
    );
    assert.equal(await statusOf(first.id), "submitted");
    const piece = await admin(ctx, "GET", `/pieces/${third.id}`);
    assert.equal(piece.body.status, "cancelled");
    assert.equal(piece.body.cancelled_by, "Mia Member");
    assert.equal((await admin(ctx, "GET", `/pieces/${first.id}`)).body.approved_by, "Mia Member");
    // The card's page in the app says who let it go to print, and when.
    const approvedPage = await owner.browser.request("GET", `/app/api/v1/pieces/${first.id}`);
    assert.equal(approvedPage.body.approved.by, "Mia Member");
    assert.ok(Date.now() - Date.parse(approvedPage.body.approved.at) < 60_000, approvedPage.text);
    const inMail = await owner.browser.request("GET", `/app/api/v1/pieces/${third.id}`);
    assert.equal(inMail.body.status_reason, "Cancelled by Mia Member");
    await setSafety(owner, { approval_required: false });
  });

  test("a held card is cancelled one at a time or all of an automation, and never prints", async () => {
    await setSafety(member, { hold_minutes: 120 });
    const one = await queuePiece(ctx, org, nextHome());
    const two = await queuePiece(ctx, org, nextHome());
    const three = await queuePiece(ctx, org, nextHome());
    const before = lob.requests.length;
    await run();
    assert.equal(await statusOf(one.id), "held");
    const cancelled = await member.browser.request("POST", `/app/api/v1/pieces/${one.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, "cancelled");
    assert.equal(cancelled.body.cancelled_by, "Mia Member");
    const twice = await member.browser.request("POST", `/app/api/v1/pieces/${one.id}/cancel`);
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error.code, "not_cancellable");
    const all = await owner.browser.request(
      "POST",
      `/app/api/v1/automations/${org.automationId}/waiting-pieces/cancel`,
    );
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(new Set(all.body.piece_ids), new Set([two.id, three.id]));
    const csrf = await owner.browser.request("POST", `/app/api/v1/pieces/${two.id}/cancel`, {
      headers: { origin: "" },
    });
    assert.equal(csrf.status, 403);
    await setSafety(owner, { hold_minutes: 0 });
    await run();
    assert.equal(lob.requests.length, before, "no cancelled card reached the print provider");
  });

  test("an approval names the card it was shown: a card edited since stays waiting, and prints only once approved as it is", async () => {
    await setSafety(owner, { approval_required: true, auto_approve_after: null });
    const edited = await queuePiece(ctx, org, nextHome());
    const untouched = await queuePiece(ctx, org, nextHome());
    const single = await queuePiece(ctx, org, nextHome());
    await run();
    const shown = (await member.browser.request("GET", "/app/api/v1/approvals")).body.pieces as {
      id: string;
      card_version: string;
      front_url: string;
    }[];
    const versionOf = (id: string) => shown.find((piece) => piece.id === id)!.card_version;
    const pieceVersion = (await member.browser.request("GET", `/app/api/v1/pieces/${single.id}`)).body
      .card_version;
    assert.equal(pieceVersion, versionOf(single.id), "the piece's page and the queue show one card");

    // Someone edits the card's text after the proofs were drawn.
    const edit = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, {
      message: "A new message nobody has looked at yet.",
    });
    assert.equal(edit.status, 200, edit.text);
    const approval = await member.browser.request("POST", "/app/api/v1/approvals/approve", {
      body: {
        piece_ids: [edited.id, untouched.id],
        card_versions: { [edited.id.toUpperCase()]: versionOf(edited.id) },
      },
    });
    assert.equal(approval.status, 200, approval.text);
    assert.deepEqual(approval.body, { piece_ids: [untouched.id], changed_piece_ids: [edited.id] });
    assert.equal(await statusOf(edited.id), "awaiting_approval", "not approved unseen");

    const refused = await member.browser.request(
      "POST",
      `/app/api/v1/pieces/${single.id}/approve?card_version=${pieceVersion}`,
    );
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, "card_changed");
    assert.equal(await statusOf(single.id), "awaiting_approval");

    // Looked at again: the new version, new proof addresses, and now the approval holds.
    const again = (await member.browser.request("GET", "/app/api/v1/approvals")).body.pieces as typeof shown;
    const now = again.find((piece) => piece.id === edited.id)!;
    assert.notEqual(now.card_version, versionOf(edited.id));
    assert.notEqual(now.front_url, shown.find((piece) => piece.id === edited.id)!.front_url);
    const approved = await member.browser.request("POST", "/app/api/v1/approvals/approve", {
      body: { piece_ids: [edited.id], card_versions: { [edited.id]: now.card_version } },
    });
    assert.deepEqual(approved.body, { piece_ids: [edited.id], changed_piece_ids: [] });
    const one = await member.browser.request(
      "POST",
      `/app/api/v1/pieces/${single.id}/approve?card_version=${now.card_version}`,
    );
    assert.equal(one.status, 200, one.text);
    const malformed = await member.browser.request("POST", "/app/api/v1/approvals/approve", {
      body: { piece_ids: [edited.id], card_versions: { [edited.id]: "<script>" } },
    });
    assert.equal(malformed.status, 422, malformed.text);
    await run();
    for (const piece of [edited, untouched, single]) assert.equal(await statusOf(piece.id), "submitted");
    await setSafety(owner, { approval_required: false });
  });

  test("the profile's offer line is part of the approved card: changed after the approval, it does not print on it", async () => {
    const setOffer = async (offer: string | null) => {
      const set = await owner.browser.request("PATCH", "/app/api/v1/organization", { body: { offer } });
      assert.equal(set.status, 200, set.text);
    };
    const printedText = async (id: string) =>
      pdfTextLines((await adminBytes(ctx, `/pieces/${id}/proof.pdf`)).bytes)
        .join(" ")
        .replace(/\u00a0/g, " ");
    // The automation's card has no offer of its own: it prints the profile's.
    const template = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, {
      headline: "Offer check on {{street}}",
    });
    assert.equal(template.status, 200, template.text);
    await setSafety(owner, { approval_required: true, auto_approve_after: null });
    const first = await queuePiece(ctx, org, nextHome());
    const second = await queuePiece(ctx, org, nextHome());
    await run();
    const versionOf = async (id: string) =>
      (await member.browser.request("GET", `/app/api/v1/pieces/${id}`)).body.card_version as string;

    // Shown with no offer, then the offer is set before the approval: the card changed.
    const seenWithout = await versionOf(second.id);
    await setOffer("Free gutter check this month");
    const stale = await member.browser.request(
      "POST",
      `/app/api/v1/pieces/${second.id}/approve?card_version=${seenWithout}`,
    );
    assert.equal(stale.status, 409, "an offer added since the proof is a changed card");
    await setOffer(null);
    for (const piece of [first, second]) {
      const approved = await member.browser.request(
        "POST",
        `/app/api/v1/pieces/${piece.id}/approve?card_version=${await versionOf(piece.id)}`,
      );
      assert.equal(approved.status, 200, approved.text);
    }
    // Approved with no offer (the profile has none now); then someone writes a new one.
    await setOffer("50% OFF EVERYTHING - CALL NOW");
    await setSafety(owner, { approval_required: false });
    await run();
    for (const piece of [first, second]) {
      assert.equal(await statusOf(piece.id), "submitted");
      const text = await printedText(piece.id);
      assert.match(text, /Offer check on/);
      assert.doesNotMatch(text, /50% OFF EVERYTHING/, "an offer nobody approved on this card");
      assert.doesNotMatch(text, /Free gutter check/, "the offer was not on the card when it was approved");
    }
    // A card approved from now on carries the offer it is shown with.
    await setSafety(owner, { approval_required: true, auto_approve_after: null });
    const next = await queuePiece(ctx, org, nextHome());
    await run();
    const shown = await member.browser.request(
      "POST",
      `/app/api/v1/pieces/${next.id}/approve?card_version=${await versionOf(next.id)}`,
    );
    assert.equal(shown.status, 200, shown.text);
    await run();
    assert.match(await printedText(next.id), /50% OFF EVERYTHING - CALL NOW/);
    // A blank offer written through the operator API is no offer of the card's own: the profile's prints.
    await setSafety(owner, { approval_required: false });
    const blank = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, {
      headline: "Offer check on {{street}}",
      offer: "   ",
    });
    assert.equal(blank.status, 200, blank.text);
    await setOffer("Ours when the card has none");
    const plain = await queuePiece(ctx, org, nextHome());
    await run();
    assert.match(await printedText(plain.id), /Ours when the card has none/);
    await setOffer(null);
  });

  test("caps and this month's use: an automation at its cap is paused and a raised cap releases its card", async () => {
    const usageBefore = (await member.browser.request("GET", "/app/api/v1/mail-safety")).body;
    const printedSoFar = usageBefore.organization.cards;
    assert.ok(printedSoFar >= 2, "the approved cards counted");
    await setSafety(owner, { monthly_card_cap: printedSoFar });
    const capped = await queuePiece(ctx, org, nextHome());
    await run();
    assert.equal(await statusOf(capped.id), "capped");
    const usage = (await member.browser.request("GET", "/app/api/v1/mail-safety")).body;
    const automation = usage.automations.find(
      (row: { automation_id: string }) => row.automation_id === org.automationId,
    );
    assert.deepEqual(
      { cards: automation.cards, cap: automation.monthly_card_cap, paused: automation.paused_by_cap },
      { cards: printedSoFar, cap: printedSoFar, paused: true },
    );
    assert.equal(
      (await member.browser.request("GET", `/app/api/v1/pieces/${capped.id}`)).body.status,
      "capped",
    );
    await setSafety(owner, { monthly_card_cap: printedSoFar + 1 });
    await run();
    assert.equal(await statusOf(capped.id), "submitted");
    const after = (await member.browser.request("GET", "/app/api/v1/mail-safety")).body;
    assert.equal(after.organization.cards, printedSoFar + 1);
    assert.equal(after.automations[0].paused_by_cap, false);
  });
});
