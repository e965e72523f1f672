import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { signLobPayload } from "../../src/pieces/lob-tracking.ts";
import { createAppTestContext, inviteAndAccept } from "../app-api/helpers.ts";
import { admin, call } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { pdfTextLines } from "../helpers/pdf-text.ts";
import {
  adminBytes,
  orgWithAutomation,
  pieceRow,
  queuePiece,
  runPipeline,
  startFakeLob,
  tempDataDir,
} from "../pipeline/helpers.ts";

const DAY_MS = 86_400_000;
const LOB_SECRET = "lob-webhook-secret-for-sequences";
const FORM = "application/x-www-form-urlencoded";

const followUp = (delayDays: number, headline: string) => ({
  delay_days: delayDays,
  template: { headline, message: "Hi {{client_name}}, still thinking about {{street}}? Scan the code." },
});
const TWO_FOLLOW_UPS = [followUp(30, "Still here for {{street}}"), followUp(14, "Two weeks on, {{street}}")];

interface ListedPiece {
  id: string;
  status: string;
  status_reason: string | null;
  sequence_step: number | null;
  scheduled_for: string | null;
  first_card_status?: string | null;
  mailed_at: string | null;
}

describe(`sequences: follow-up cards that stop when the home answers (${databaseLabel})`, () => {
  let ctx: TestContext;
  let lob: Awaited<ReturnType<typeof startFakeLob>>;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  const clock = fixedClock("2026-11-30T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };
  let street = 0;
  const nextHome = (name = "Lee Stopper") => ({
    street: `${100 + ++street} Sequence St`,
    city: "Springfield",
    state: "IL",
    zip: "62704",
    client_name: name,
  });

  before(async () => {
    ctx = await createAppTestContext({ clock, config: { lobWebhookSecret: LOB_SECRET } });
    lob = await startFakeLob();
    org = await orgWithAutomation(ctx, { steps: TWO_FOLLOW_UPS });
  });
  after(async () => {
    await lob.close();
    await ctx.close();
  });

  const printLocally = () => runPipeline(ctx, local);
  const printWithLob = () =>
    runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
  const lobGot = (pieceId: string) =>
    lob.requests.filter((request) => request.idempotencyKey === pieceId).length;

  /** A piece as the operator sees it (the app's sessions would expire as the clock moves by weeks). */
  const pieceOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body as ListedPiece;
  /** The follow-ups of the first card to `street`, in step order. */
  async function followUpsOf(orgId: string, street: string): Promise<ListedPiece[]> {
    const listed = await admin(ctx, "GET", `/orgs/${orgId}/campaigns`);
    const ids = (listed.body.campaigns as { pieces: { id: string; address: string }[] }[])
      .flatMap((campaign) => campaign.pieces)
      .filter((piece) => piece.address.startsWith(street))
      .map((piece) => piece.id);
    const pieces = await Promise.all(ids.map(pieceOf));
    return pieces
      .filter((piece) => piece.sequence_step !== null)
      .sort((a, b) => a.sequence_step! - b.sequence_step!);
  }
  let people = 0;
  /**
   * A member of the org signed in now, for the app's own routes. Better Auth dates a session by the
   * real clock and the guard ends it 30 days later by the test's clock: app calls come before the
   * tests have moved the clock weeks ahead.
   */
  const memberOf = (orgId: string) =>
    inviteAndAccept(ctx, orgId, `member-${++people}@sequences.example`, "owner", "Olive Owner");

  /** A first card to a new home, printed; answers it with its follow-ups. */
  async function firstCardMailed(
    target: { orgId: string; key: string; automationId: string } = org,
    print = printLocally,
    name?: string,
  ) {
    const home = nextHome(name);
    const first = await queuePiece(ctx, target, home);
    await print();
    return { first, home, followUps: await followUpsOf(target.orgId, home.street) };
  }

  test("steps and stop_when are saved on both APIs, in mailing order, all stop conditions by default", async () => {
    const owner = await memberOf(org.orgId);
    const created = await admin(ctx, "POST", `/orgs/${org.orgId}/automations`, {
      name: "Operator sequence",
      trigger: { type: "custom_api", event_type: "job.sequenced" },
      steps: TWO_FOLLOW_UPS,
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      created.body.steps.map((step: { delay_days: number }) => step.delay_days),
      [14, 30],
    );
    assert.deepEqual(created.body.stop_when, ["lead", "won_deal", "opt_out", "customer", "returned"]);

    const app = await owner.browser.request("PATCH", `/app/api/v1/automations/${created.body.id}`, {
      body: {
        steps: [
          {
            delay_days: 21,
            template: { headline: "Three weeks on", message: "Still here.", card_size: "6x9" },
          },
        ],
        stop_when: ["lead"],
      },
    });
    assert.equal(app.status, 200, app.text);
    assert.deepEqual(app.body.steps, [
      {
        delay_days: 21,
        template: { headline: "Three weeks on", message: "Still here.", offer: null, card_size: "6x9" },
      },
    ]);
    assert.deepEqual(app.body.stop_when, ["lead"]);
    const listed = await owner.browser.request("GET", "/app/api/v1/automations");
    const again = listed.body.automations.find(
      (automation: { id: string }) => automation.id === created.body.id,
    );
    assert.equal(again.steps.length, 1);
  });

  test("a step removed in the app stops its waiting follow-up at once: the Mail list never shows it scheduled", async () => {
    const removing = await orgWithAutomation(ctx, { steps: [followUp(7, "R-ONE"), followUp(14, "R-TWO")] });
    // Not nextHome(): the tests after this one count on the numbers it gives.
    const home = {
      street: "7 Removal Rd",
      city: "Springfield",
      state: "IL",
      zip: "62704",
      client_name: "Ray",
    };
    await queuePiece(ctx, removing, home);
    await printLocally();
    const followUps = await followUpsOf(removing.orgId, home.street);
    const owner = await memberOf(removing.orgId);
    const saved = await owner.browser.request("PATCH", `/app/api/v1/automations/${removing.automationId}`, {
      body: { steps: [followUp(14, "R-TWO")] },
    });
    assert.equal(saved.status, 200, saved.text);
    const scheduled = await owner.browser.request("GET", "/app/api/v1/pieces?status=scheduled");
    const listedIds = scheduled.body.pieces.map((piece: { id: string }) => piece.id);
    assert.deepEqual(listedIds, [followUps[1]!.id]);
    const stopped = await owner.browser.request("GET", `/app/api/v1/pieces/${followUps[0]!.id}`);
    assert.equal(stopped.body.status, "cancelled", stopped.text);
  });

  test("a follow-up whose card would not print as written, a fourth step or a delay out of range is refused", async () => {
    const owner = await memberOf(org.orgId);
    const tooLong = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: {
        name: "Too long",
        steps: [followUp(7, "Fine"), { delay_days: 14, template: { message: "word ".repeat(190) } }],
      },
    });
    assert.equal(tooLong.status, 422, tooLong.text);
    assert.match(tooLong.body.error.message, /^steps\[1\]\.template\.message: /);
    assert.ok(tooLong.body.error.details.fields["steps[1].template.message"]);

    const unknownField = await admin(ctx, "PATCH", `/automations/${org.automationId}`, {
      steps: [{ delay_days: 3, template: { headline: "Hi {{first_name}}" } }],
    });
    assert.equal(unknownField.status, 422, unknownField.text);
    assert.match(
      unknownField.body.detail ?? unknownField.text,
      /steps\[0\]\.template\.headline: unknown merge field/,
    );

    for (const steps of [
      [followUp(1, "a"), followUp(2, "b"), followUp(3, "c"), followUp(4, "d")],
      [followUp(0, "too soon")],
      [followUp(366, "too late")],
    ]) {
      const refused = await owner.browser.request("PATCH", `/app/api/v1/automations/${org.automationId}`, {
        body: { steps },
      });
      assert.equal(refused.status, 422, `${JSON.stringify(steps)}: ${refused.text}`);
      // Named as the fit check names a step's field (steps[1].template.message), one style for both.
      if (steps.length === 1) assert.match(refused.body.error.message, /^steps\[0\]\.delay_days: /);
    }
    const unchanged = await owner.browser.request("GET", `/app/api/v1/automations/${org.automationId}`);
    assert.equal(unchanged.body.steps.length, 2, "a refused save changes nothing");
  });

  test("follow-ups are scheduled from the first card, mailed on their day past the frequency cap, each with its own card", async () => {
    const { first, followUps } = await firstCardMailed();
    const mailedAt = (await pieceOf(first.id)).mailed_at as string;
    assert.ok(mailedAt, "the first card is mailed");
    assert.deepEqual(
      followUps.map((piece) => [piece.sequence_step, piece.status, piece.scheduled_for]),
      [
        [1, "scheduled", new Date(Date.parse(mailedAt) + 14 * DAY_MS).toISOString()],
        [2, "scheduled", new Date(Date.parse(mailedAt) + 30 * DAY_MS).toISOString()],
      ],
    );
    // The app's Mail list shows them with their day and the reason in words.
    const owner = await memberOf(org.orgId);
    const listed = await owner.browser.request("GET", `/app/api/v1/pieces?status=scheduled`);
    assert.equal(listed.status, 200, listed.text);
    const inApp = (listed.body.pieces as ListedPiece[]).find((piece) => piece.id === followUps[0]!.id);
    assert.equal(inApp?.scheduled_for, followUps[0]!.scheduled_for);
    assert.equal(inApp?.sequence_step, 1);
    assert.equal(inApp?.first_card_status, "mailed", "its day counts from a first card gone to print");
    const firstInApp = await owner.browser.request("GET", `/app/api/v1/pieces/${first.id}`);
    assert.equal(firstInApp.body.first_card_status, null, "a first card has none");
    assert.equal(
      inApp?.status_reason,
      "Follow-up card 1: mailed 14 days after the first card, unless the home answers first",
    );

    clock.advance(13 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(followUps[0]!.id)).status, "scheduled", "not before its day");

    clock.advance(DAY_MS);
    await printLocally();
    const second = await pieceOf(followUps[0]!.id);
    // The org's frequency cap (30 days by default) does not hold back the sequence's own cards.
    assert.equal(second.status, "mailed", JSON.stringify(second));
    assert.equal((await pieceOf(followUps[1]!.id)).status, "scheduled");
    const text = pdfTextLines((await adminBytes(ctx, `/pieces/${followUps[0]!.id}/proof.pdf`)).bytes)
      .join(" ")
      .replace(/\u00a0/g, " ");
    assert.match(text, /Two weeks on, 101 Sequence St/);
  });

  test("a follow-up is cancelled from the app like a held card, and never prints", async () => {
    const { first, followUps } = await firstCardMailed();
    const owner = await memberOf(org.orgId);
    const cancelled = await owner.browser.request("POST", `/app/api/v1/pieces/${followUps[0]!.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, "cancelled");

    // Every card's page lists the whole sequence the same way: first card, then each follow-up.
    const pages = await Promise.all(
      [first.id, followUps[0]!.id, followUps[1]!.id].map((id) =>
        owner.browser.request("GET", `/app/api/v1/pieces/${id}`),
      ),
    );
    for (const page of pages) {
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(
        page.body.sequence.map((card: { id: string; sequence_step: number | null; status: string }) => [
          card.id,
          card.sequence_step,
          card.status,
        ]),
        [
          [first.id, null, "mailed"],
          [followUps[0]!.id, 1, "cancelled"],
          [followUps[1]!.id, 2, "scheduled"],
        ],
      );
    }
    const [mailed, stopped, waiting] = pages[0]!.body.sequence;
    assert.ok(mailed.mailed_at, "the mailed card says when");
    assert.match(stopped.status_reason, /^Cancelled by /, "a stopped follow-up says why");
    assert.equal(waiting.scheduled_for, followUps[1]!.scheduled_for, "a waiting one says its day");

    clock.advance(31 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(followUps[0]!.id)).status, "cancelled");
    assert.equal((await pieceOf(followUps[1]!.id)).status, "mailed", "the other follow-up went on its day");
  });

  test("a follow-up due passes the hold window, approval and the monthly cap like any card", async () => {
    const gated = await orgWithAutomation(ctx, { steps: [followUp(7, "A week on")] });
    const safety = `/automations/${gated.automationId}/mail-safety`;
    const { followUps } = await firstCardMailed(gated);
    const [step] = followUps;
    assert.ok(step);

    assert.equal((await admin(ctx, "PATCH", safety, { hold_minutes: 60 })).status, 200);
    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(step.id)).status, "held");

    assert.equal(
      (await admin(ctx, "PATCH", safety, { hold_minutes: 0, approval_required: true })).status,
      200,
    );
    clock.advance(61 * 60_000);
    await printLocally();
    assert.equal((await pieceOf(step.id)).status, "awaiting_approval");

    assert.equal((await admin(ctx, "PATCH", safety, { monthly_card_cap: 0 })).status, 200);
    const approved = await admin(ctx, "POST", `/automations/${gated.automationId}/approvals`, {
      piece_ids: [step.id],
    });
    assert.equal(approved.status, 200, approved.text);
    await printLocally();
    assert.equal((await pieceOf(step.id)).status, "capped", "the automation's cap allows no card this month");
  });

  /** The words a piece's card prints (its proof, drawn from what its print would read). */
  const printedText = async (pieceId: string) =>
    pdfTextLines((await adminBytes(ctx, `/pieces/${pieceId}/proof.pdf`)).bytes)
      .join(" ")
      .replace(/\u00a0/g, " ");

  test("a follow-up is its step's by the step's day: removing one step stops its follow-up, never shifts another's card", async () => {
    const three = [
      followUp(7, "STEP-ONE {{street}}"),
      followUp(14, "STEP-TWO {{street}}"),
      followUp(21, "STEP-THREE {{street}}"),
    ];
    const shifting = await orgWithAutomation(ctx, { steps: three });
    const { followUps } = await firstCardMailed(shifting);
    assert.equal(followUps.length, 3);
    const removed = await admin(ctx, "PATCH", `/automations/${shifting.automationId}`, {
      steps: three.slice(1),
    });
    assert.equal(removed.status, 200, removed.text);
    const [one, two, threeOn] = followUps.map((piece) => piece.id) as [string, string, string];
    // Stopped as the step is removed, not listed as scheduled until its day.
    const stopped = await pieceOf(one);
    assert.equal(stopped.status, "cancelled", "the removed step's follow-up does not print");
    assert.equal(stopped.status_reason, "Stopped: the automation no longer has this follow-up card");
    assert.equal((await pieceOf(two)).status, "scheduled");

    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(one)).status, "cancelled");
    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(two)).status, "mailed");
    assert.match(await printedText(two), /STEP-TWO/);
    assert.doesNotMatch(await printedText(two), /STEP-THREE/);
    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(threeOn)).status, "mailed");
    assert.match(await printedText(threeOn), /STEP-THREE/);
  });

  test("a step moved to another day stops its follow-up; an edited step's text is what its follow-up prints", async () => {
    const moving = await orgWithAutomation(ctx, { steps: [followUp(7, "D-ALPHA"), followUp(14, "D-BETA")] });
    const { followUps } = await firstCardMailed(moving);
    const edited = await admin(ctx, "PATCH", `/automations/${moving.automationId}`, {
      steps: [followUp(20, "D-ALPHA"), followUp(14, "D-BETA edited")],
    });
    assert.equal(edited.status, 200, edited.text);
    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(followUps[0]!.id)).status, "cancelled", "day 7 is no step's day any more");
    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(followUps[1]!.id)).status, "mailed");
    assert.match(await printedText(followUps[1]!.id), /D-BETA edited/);
  });

  test("a follow-up waiting under a hold or for approval when its step is removed never prints (no default card in its place)", async () => {
    const waiting = await orgWithAutomation(ctx, { steps: [followUp(7, "A week on")] });
    const safety = `/automations/${waiting.automationId}/mail-safety`;
    const held = (await firstCardMailed(waiting)).followUps[0]!;
    assert.equal((await admin(ctx, "PATCH", safety, { hold_minutes: 180 })).status, 200);
    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(held.id)).status, "held");
    assert.equal(
      (await admin(ctx, "PATCH", `/automations/${waiting.automationId}`, { steps: [] })).status,
      200,
    );
    clock.advance(181 * 60_000);
    await printLocally();
    assert.equal((await pieceOf(held.id)).status, "cancelled");

    const approving = await orgWithAutomation(ctx, { steps: [followUp(7, "A week on")] });
    const awaiting = (await firstCardMailed(approving)).followUps[0]!;
    const approval = { approval_required: true };
    assert.equal(
      (await admin(ctx, "PATCH", `/automations/${approving.automationId}/mail-safety`, approval)).status,
      200,
    );
    clock.advance(7 * DAY_MS);
    await printLocally();
    assert.equal((await pieceOf(awaiting.id)).status, "awaiting_approval");
    assert.equal(
      (await admin(ctx, "PATCH", `/automations/${approving.automationId}`, { steps: [] })).status,
      200,
    );
    const approved = await admin(ctx, "POST", `/automations/${approving.automationId}/approvals`, {
      piece_ids: [awaiting.id],
    });
    assert.equal(approved.status, 200, approved.text);
    await printLocally();
    assert.equal((await pieceOf(awaiting.id)).status, "cancelled");
  });

  test("two follow-ups on one day are refused: each step has its own day", async () => {
    const refused = await admin(ctx, "PATCH", `/automations/${org.automationId}`, {
      steps: [followUp(10, "One"), followUp(10, "Two")],
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(
      refused.body.detail ?? refused.text,
      /steps\[1\]\.delay_days: another follow-up is already mailed 10 days/,
    );
  });

  test("a first card that is never mailed takes its follow-ups with it; a suppressed one gets none", async () => {
    const approving = await orgWithAutomation(ctx, { steps: [followUp(7, "A week on")] });
    await admin(ctx, "PATCH", `/automations/${approving.automationId}/mail-safety`, {
      approval_required: true,
    });
    const { first, followUps } = await firstCardMailed(approving);
    assert.equal((await pieceOf(first.id)).status, "awaiting_approval");
    assert.equal(followUps[0]?.status, "scheduled", "the follow-up exists while the first card waits");
    const cancelled = await admin(ctx, "POST", `/pieces/${first.id}/cancel`, { actor: "ops" });
    assert.equal(cancelled.status, 200, cancelled.text);
    const stopped = await pieceOf(followUps[0]!.id);
    assert.equal(stopped.status, "cancelled");
    assert.equal(
      stopped.status_reason,
      "Stopped: the first card was not mailed (cancelled), so its follow-ups are not either",
    );

    const home = nextHome();
    const customer = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: `${home.street}, ${home.city}, ${home.state} ${home.zip}` },
    });
    assert.equal(customer.status, 200, customer.text);
    const suppressed = await queuePiece(ctx, org, home);
    await printLocally();
    assert.equal((await pieceOf(suppressed.id)).status, "suppressed");
    assert.deepEqual(await followUpsOf(org.orgId, home.street), []);
  });

  test("only the answers the automation names stop its follow-ups", async () => {
    const leadsOnly = await orgWithAutomation(ctx, {
      steps: [followUp(7, "A week on")],
      stop_when: ["lead"],
    });
    const { first, home, followUps } = await firstCardMailed(leadsOnly);
    const customer = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: leadsOnly.key,
      body: { address: `${home.street}, ${home.city}, ${home.state} ${home.zip}` },
    });
    assert.equal(customer.status, 200, customer.text);
    assert.equal((await pieceOf(followUps[0]!.id)).status, "scheduled", "a customer does not stop it");
    await leadFrom(first.token, "Lee", "Stopper");
    const stopped = await pieceOf(followUps[0]!.id);
    assert.equal(stopped.status, "cancelled");
    assert.equal(stopped.status_reason, `Stopped: Lee Stopper answered the first card on ${shortDay()}`);
  });

  test("a customer or a won deal written without the home's city or ZIP stops its follow-ups", async () => {
    // The CRM writes less of the address than the event did: the same home (customer suppression
    // and attribution read it so), so its follow-ups stop at once, not weeks later as "suppressed".
    const asCustomer = await firstCardMailed();
    const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: `${asCustomer.home.street}, ${asCustomer.home.zip}` },
    });
    assert.equal(registered.status, 200, registered.text);
    const won = await firstCardMailed();
    const deal = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { address: `${won.home.street}, ${won.home.city}, ${won.home.state}`, deal_amount: 4200 },
    });
    assert.equal(deal.status, 200, deal.text);
    assert.equal(deal.body.matched, true, "the deal is attributed to the home's first card");
    const batch = await firstCardMailed();
    const inBatch = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: {
        addresses: [
          { address: `${batch.home.street}, ${batch.home.zip}` },
          { address: "1 Elsewhere Rd, 62704" },
        ],
      },
    });
    assert.equal(inBatch.status, 200, inBatch.text);
    for (const [{ followUps }, reason] of [
      [asCustomer, /^Stopped: the home became a customer on /],
      [won, /^Stopped: a deal was won at the home on /],
      [batch, /^Stopped: the home became a customer on /],
    ] as const) {
      assert.equal(followUps.length, 2);
      for (const followUp of followUps) {
        const piece = await pieceOf(followUp.id);
        assert.equal(piece.status, "cancelled", `${piece.status}: ${piece.status_reason}`);
        assert.match(piece.status_reason ?? "", reason);
      }
    }
  });

  async function leadFrom(token: string, firstName: string, lastName: string) {
    const lead = await call(ctx, "POST", `/l/${token}`, {
      body: { first_name: firstName, last_name: lastName, email: "lee@example.com" },
    });
    assert.equal(lead.status, 201, lead.text);
  }
  const shortDay = () =>
    new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", day: "numeric" }).format(clock.now());

  /** Each answer of the home, as it arrives through its own route. */
  const answers: Record<
    string,
    {
      reason: RegExp;
      answer: (first: { id: string; token: string }, home: ReturnType<typeof nextHome>) => Promise<void>;
    }
  > = {
    lead: {
      reason: /^Stopped: Lee Stopper answered the first card on \w{3} \d+$/,
      answer: (first) => leadFrom(first.token, "Lee", "Stopper"),
    },
    won_deal: {
      reason: /^Stopped: a deal was won at the home on \w{3} \d+$/,
      answer: async (_first, home) => {
        const won = await call(ctx, "POST", "/api/v1/conversions", {
          key: org.key,
          body: { address: `${home.street}, ${home.city}, ${home.state} ${home.zip}`, deal_amount: 9000 },
        });
        assert.equal(won.status, 200, won.text);
      },
    },
    opt_out: {
      reason: /^Stopped: the home asked for no more mail on \w{3} \d+$/,
      answer: async (first) => {
        const done = await ctx.app.inject({
          method: "POST",
          url: `/l/${first.token}/stop`,
          headers: {
            "content-type": FORM,
            origin: "http://porchlight.test",
            "sec-fetch-site": "same-origin",
          },
          payload: "confirm=yes",
        });
        assert.equal(done.statusCode, 200, done.body);
      },
    },
    customer: {
      reason: /^Stopped: the home became a customer on \w{3} \d+$/,
      answer: async (_first, home) => {
        const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
          key: org.key,
          body: { address: `${home.street}, ${home.city}, ${home.state} ${home.zip}` },
        });
        assert.equal(registered.status, 200, registered.text);
      },
    },
    returned: {
      reason: /^Stopped: the printer returned the first card on \w{3} \d+$/,
      answer: async (first) => {
        const providerId = (await pieceRow(ctx, first.id)).provider_id;
        assert.ok(providerId, "the first card went to Lob");
        const body = Buffer.from(
          JSON.stringify({
            id: `evt_returned_${first.id}`,
            event_type: { id: "postcard.returned_to_sender" },
            date_created: clock.now().toISOString(),
            body: { id: providerId, object: "postcard" },
          }),
        );
        const timestamp = String(Math.floor(clock.now().getTime() / 1000));
        const returned = await ctx.app.inject({
          method: "POST",
          url: "/webhooks/lob",
          headers: {
            "content-type": "application/json",
            "lob-signature-timestamp": timestamp,
            "lob-signature": signLobPayload(LOB_SECRET, timestamp, body),
          },
          payload: body,
        });
        assert.equal(returned.statusCode, 200, returned.body);
        assert.equal(JSON.parse(returned.body).status, "returned", returned.body);
      },
    },
  };
  for (const [condition, { reason, answer }] of Object.entries(answers)) {
    test(`${condition}: stops the follow-ups at once, with the reason in words`, async () => {
      const { first, home, followUps } = await firstCardMailed(org, printWithLob);
      assert.equal(followUps.length, 2);
      await answer(first, home);
      for (const step of followUps) {
        const stopped = await pieceOf(step.id);
        assert.equal(stopped.status, "cancelled", `${condition}: ${JSON.stringify(stopped)}`);
        assert.match(stopped.status_reason ?? "", reason);
      }
      clock.advance(31 * DAY_MS);
      await printWithLob();
      for (const step of followUps) assert.equal(lobGot(step.id), 0, "a stopped follow-up never reaches Lob");
    });

    test(`${condition}: racing the worker that prints the due follow-up, exactly one of them wins`, async () => {
      const { first, home, followUps } = await firstCardMailed(org, printWithLob);
      clock.advance(14 * DAY_MS);
      await Promise.all([printWithLob(), answer(first, home)]);
      const due = await pieceOf(followUps[0]!.id);
      if (due.status === "cancelled") {
        assert.match(due.status_reason ?? "", reason);
        assert.equal(lobGot(followUps[0]!.id), 0, "stopped: never printed");
      } else if (due.status === "suppressed") {
        // The worker took the card out of `scheduled` first, then its own customer or do-not-mail
        // rule saw the answer (committed a moment before the answer's stop): not printed either.
        assert.ok(
          ["customer", "opt_out", "won_deal"].includes(condition),
          `${condition}: ${JSON.stringify(due)}`,
        );
        assert.equal(lobGot(followUps[0]!.id), 0, "suppressed: never printed");
      } else {
        assert.equal(due.status, "submitted", `${condition}: ${JSON.stringify(due)}`);
        assert.equal(lobGot(followUps[0]!.id), 1, "printed once");
      }
      const later = await pieceOf(followUps[1]!.id);
      assert.equal(later.status, "cancelled", "the follow-up not yet due is stopped either way");
    });
  }

  test("turning an automation off stops its follow-ups still to go; on again, nothing comes back", async () => {
    // The app's save is tested in follow-up-figures.test.ts (this file's clock has run past app sessions).
    const turnedOff = /^Stopped: the automation was turned off on \w{3} \d+$/;
    const switching = await orgWithAutomation(ctx, {
      steps: [followUp(7, "A week on"), followUp(21, "Later")],
    });
    const path = `/automations/${switching.automationId}`;
    const { followUps } = await firstCardMailed(switching);
    assert.equal((await admin(ctx, "PATCH", path, { enabled: false })).status, 200);
    for (const step of followUps) {
      const stopped = await pieceOf(step.id);
      assert.equal(stopped.status, "cancelled", JSON.stringify(stopped));
      assert.match(stopped.status_reason ?? "", turnedOff);
    }
    assert.equal((await admin(ctx, "PATCH", path, { enabled: true })).status, 200);
    assert.equal((await pieceOf(followUps[0]!.id)).status, "cancelled", "on again, nothing comes back");
    const next = await firstCardMailed(switching);
    assert.equal((await admin(ctx, "PATCH", path, { name: "Renamed" })).status, 200);
    assert.equal(
      (await pieceOf(next.followUps[0]!.id)).status,
      "scheduled",
      "a save leaving it on stops nothing",
    );
  });

  test("a follow-up the save did not see (written as the automation was turned off) stops on its day", async () => {
    const racing = await orgWithAutomation(ctx, { steps: [followUp(7, "A week on")] });
    const { followUps } = await firstCardMailed(racing);
    // Its event came before the automation was turned off; its job runs after.
    const queuedBefore = await queuePiece(ctx, racing, nextHome(), { writePiece: false });
    // As a worker committing the follow-up just after the save's stop ran: off, the follow-up still scheduled.
    await ctx.database.db.execute(
      sql`UPDATE automations SET enabled = false WHERE id = ${racing.automationId}::uuid`,
    );
    assert.equal((await pieceOf(followUps[0]!.id)).status, "scheduled");
    clock.advance(7 * DAY_MS + 60_000);
    await printLocally();
    const stopped = await pieceOf(followUps[0]!.id);
    assert.equal(stopped.status, "cancelled", JSON.stringify(stopped));
    assert.match(stopped.status_reason ?? "", /^Stopped: the automation was turned off on /);
    // The first card queued before the automation was turned off goes, without follow-ups.
    assert.equal((await pieceOf(queuedBefore.id)).status, "mailed");
    const written = await queryRows(
      ctx.database.db,
      sql`SELECT id FROM mail_pieces WHERE sequence_first_piece_id = ${queuedBefore.id}::uuid`,
    );
    assert.deepEqual(written, []);
  });
});
