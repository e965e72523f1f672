import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "../app-api/helpers.ts";
import { conversion, customers } from "../attribution/helpers.ts";
import { admin, call, createAutomation, createOrg } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { EVENT_TYPE, home, runPipeline, tempDataDir } from "../pipeline/helpers.ts";

/**
 * A home that becomes a customer while its card waits before print (for approval, a hold, a cap):
 * the card is suppressed at once, wherever the customer came from (the app's form, the customers
 * webhook, a won deal), not left in Approvals to be approved and then end unmailed.
 */
describe(`a home that becomes a customer stops its waiting cards (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let member: SignedInUser;
  let owner: SignedInUser;
  let approvedFirst: string;
  let mailsCustomersToo: string;
  const dataDir = tempDataDir();
  const OTHER_EVENT = "membership.renewed";

  before(async () => {
    ctx = await createAppTestContext();
    org = await createOrg(ctx, { name: "Careful Roofing" });
    member = await inviteAndAccept(ctx, org.orgId, "member-customers@example.com", "member");
    owner = await inviteAndAccept(ctx, org.orgId, "owner-customers@example.com", "owner");
    approvedFirst = (
      await createAutomation(ctx, org.orgId, {
        name: "Completed jobs",
        trigger: { type: "custom_api", event_type: EVENT_TYPE },
      })
    ).id;
    // This one mails customers on purpose: a customer's card of it keeps waiting.
    mailsCustomersToo = (
      await createAutomation(ctx, org.orgId, {
        name: "Renewals",
        trigger: { type: "custom_api", event_type: OTHER_EVENT },
        suppress_customers: false,
      })
    ).id;
    for (const id of [approvedFirst, mailsCustomersToo]) {
      const set = await admin(ctx, "PATCH", `/automations/${id}/mail-safety`, { approval_required: true });
      assert.equal(set.status, 200, set.text);
    }
  });
  after(() => ctx.close());

  async function waitingCard(eventType: string, street: string): Promise<string> {
    const sent = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      body: {
        event_type: eventType,
        object_type: "job",
        dedup_id: randomUUID(),
        record: { id: randomUUID(), properties: home(street) },
      },
    });
    assert.equal(sent.status, 202, sent.text);
    await runPipeline(ctx, { dataDir });
    const approvals = await member.browser.request("GET", "/app/api/v1/approvals");
    const card = approvals.body.pieces.find(
      (piece: { address: string; automation_id: string }) =>
        piece.address.startsWith(street) && piece.automation_id === automationOf(eventType),
    );
    assert.ok(card, `the card to ${street} awaits approval: ${approvals.text}`);
    return card.id;
  }
  const automationOf = (eventType: string) => (eventType === EVENT_TYPE ? approvedFirst : mailsCustomersToo);
  const pieceOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body;
  const awaiting = async () =>
    (await member.browser.request("GET", "/app/api/v1/approvals")).body.pieces.map(
      (piece: { id: string }) => piece.id,
    );

  test("added in the app: its card leaves Approvals suppressed, and the answer says a waiting card stopped", async () => {
    const card = await waitingCard(EVENT_TYPE, "10 Elm St");
    const kept = await waitingCard(OTHER_EVENT, "15 Elm St");
    const other = await waitingCard(EVENT_TYPE, "20 Elm St");

    const added = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "10 elm street, springfield, il 62704" },
    });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body, { added: 1, total: 1, stopped_cards: 1 });
    const suppressed = await pieceOf(card);
    assert.equal(suppressed.status, "suppressed");
    assert.equal(suppressed.status_reason, "the home is a registered customer on your Customers list");
    const left = await awaiting();
    assert.equal(left.includes(card), false, "the card is no longer in Approvals");
    assert.ok(left.includes(other), "another home's card still waits");

    // An automation that mails customers on purpose keeps its card waiting.
    const mailedAnyway = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "15 Elm St, Springfield, IL 62704" },
    });
    assert.deepEqual(mailedAnyway.body, { added: 1, total: 2, stopped_cards: 0 });
    assert.ok((await awaiting()).includes(kept));

    // Added again: nothing more to stop.
    const again = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "10 Elm St, Springfield, IL 62704" },
    });
    assert.deepEqual(again.body, { added: 0, total: 2, stopped_cards: 0 });

    // Approving everything approves what still waits, never the suppressed card.
    const approved = await admin(ctx, "POST", `/automations/${approvedFirst}/approvals`);
    assert.deepEqual(approved.body.piece_ids, [other]);
    await runPipeline(ctx, { dataDir });
    assert.equal((await pieceOf(card)).status, "suppressed");
  });

  test("added in the app after a first card was mailed: its scheduled follow-up cards count among the stopped cards", async () => {
    const SEQUENCE_EVENT = "estimate.sent";
    await createAutomation(ctx, org.orgId, {
      name: "Estimates with follow-ups",
      trigger: { type: "custom_api", event_type: SEQUENCE_EVENT },
      steps: [
        { delay_days: 7, template: { headline: "A week on" } },
        { delay_days: 14, template: { headline: "Two weeks on" } },
      ],
    });
    const sent = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      body: {
        event_type: SEQUENCE_EVENT,
        object_type: "job",
        dedup_id: randomUUID(),
        record: { id: randomUUID(), properties: home("50 Elm St") },
      },
    });
    assert.equal(sent.status, 202, sent.text);
    await runPipeline(ctx, { dataDir });
    const added = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "50 Elm St, Springfield, IL 62704" },
    });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.stopped_cards, 2, "both follow-ups were waiting for their day");
  });

  test("added by a CSV upload: the homes' waiting cards are stopped, the answer counts them, and a retry says the same", async () => {
    const cards = [await waitingCard(EVENT_TYPE, "60 Elm St"), await waitingCard(EVENT_TYPE, "62 Elm St")];
    const requestId = randomUUID();
    const url = `/app/api/v1/customers/upload?street=street&city=city&state=state&zip=zip&request_id=${requestId}`;
    const file =
      "street,city,state,zip\r\n60 Elm St,Springfield,IL,62704\r\n62 Elm St,Springfield,IL,62704\r\n";
    const upload = () =>
      member.browser.request("POST", url, { payload: file, headers: { "content-type": "text/csv" } });

    const uploaded = await upload();
    assert.equal(uploaded.status, 200, uploaded.text);
    assert.equal(uploaded.body.added, 2);
    assert.equal(uploaded.body.stopped_cards, 2, "both cards awaiting approval were stopped");
    for (const card of cards) assert.equal((await pieceOf(card)).status, "suppressed");
    const left = await awaiting();
    assert.equal(
      cards.some((card) => left.includes(card)),
      false,
      "neither card is in Approvals any more",
    );

    // A retry after a lost answer replays the first answer, the stopped cards included.
    const retried = await upload();
    assert.equal(retried.status, 200, retried.text);
    assert.deepEqual(retried.body, uploaded.body);
  });

  test("registered through the customers webhook, or a won deal there: the same, and the webhook's answer is the spec's", async () => {
    const byWebhook = await waitingCard(EVENT_TYPE, "30 Elm St");
    const byDeal = await waitingCard(EVENT_TYPE, "40 Elm St");

    const registered = await customers(ctx, org.key, { address: "30 Elm St, Springfield, IL 62704" });
    assert.equal(registered.status, 200, registered.text);
    assert.deepEqual(Object.keys(registered.body).sort(), ["added", "total"]);
    assert.equal((await pieceOf(byWebhook)).status, "suppressed");

    const won = await conversion(ctx, org.key, {
      address: "40 Elm St, Springfield, IL 62704",
      deal_id: "deal-40",
    });
    assert.equal(won.status, 200, won.text);
    assert.equal((await pieceOf(byDeal)).status, "suppressed");
    const left = await awaiting();
    assert.equal(left.includes(byWebhook) || left.includes(byDeal), false, JSON.stringify(left));
  });
  test("taken off the list by an owner: the home's next card waits for approval again, the card stopped stays stopped", async () => {
    const stopped = await waitingCard(EVENT_TYPE, "70 Elm St");
    const added = await member.browser.request("POST", "/app/api/v1/customers", {
      body: { address: "70 Elm St, Springfield, IL 62704" },
    });
    assert.equal(added.body.stopped_cards, 1, added.text);
    const listed = await member.browser.request("GET", "/app/api/v1/customers?q=70%20Elm");
    const key = listed.body.customers[0].normalized_address;
    const totalBefore = listed.body.total;
    const removeUrl = `/app/api/v1/customers?normalized_address=${encodeURIComponent(key)}`;

    const byMember = await member.browser.request("DELETE", removeUrl);
    assert.equal(byMember.status, 403, "a member cannot put a customer back on the mail");
    const removed = await owner.browser.request("DELETE", removeUrl);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.body, { removed: true, total: totalBefore - 1 });
    const again = await owner.browser.request("DELETE", removeUrl);
    assert.deepEqual(again.body, { removed: false, total: totalBefore - 1 }, "a retry finds it gone");

    assert.equal((await pieceOf(stopped)).status, "suppressed", "what was stopped stays stopped");
    const next = await waitingCard(EVENT_TYPE, "70 Elm St");
    assert.notEqual(next, stopped, "the home's next card waits in Approvals like any home's");
  });

  test("another organization's owner cannot take this organization's customer off its list", async () => {
    const otherOrg = await createOrg(ctx);
    const stranger = await inviteAndAccept(ctx, otherOrg.orgId, "stranger-customers@example.com", "owner");
    const listed = await member.browser.request("GET", "/app/api/v1/customers?q=15%20Elm");
    const key = listed.body.customers[0].normalized_address;
    const tried = await stranger.browser.request(
      "DELETE",
      `/app/api/v1/customers?normalized_address=${encodeURIComponent(key)}`,
    );
    assert.equal(tried.status, 200, tried.text);
    assert.deepEqual(tried.body, { removed: false, total: 0 });
    const still = await member.browser.request("GET", "/app/api/v1/customers?q=15%20Elm");
    assert.equal(still.body.customers.length, 1, "still on its own organization's list");
  });
});
