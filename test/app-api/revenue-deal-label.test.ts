import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { call, createOrg, recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { submitLead } from "../leads/leads-helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const springfield = (street: string) => `${street}, Springfield, IL 62704`;

/**
 * Revenue names each won deal by whom it was for (`customer_name`), not by the CRM's deal id: a
 * contractor's Revenue read "deal-2001" beside "Homer Simpson" (a lead marked won in the app).
 */
describe(`app API: Revenue names a won deal's customer (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: { orgId: string; key: string };
  let member: SignedInUser;
  let mailing: Awaited<ReturnType<typeof recordMailing>>;

  const pieceAt = (street: string) => {
    const piece = mailing.pieces.find((candidate) => candidate.address.startsWith(street));
    assert.ok(piece, `a card was mailed to ${street}`);
    return piece;
  };
  const wonDeal = async (body: Record<string, unknown>) => {
    const won = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { deal_amount: "1000", deal_date: today(), ...body },
    });
    assert.equal(won.status, 200, won.text);
    assert.equal(won.body.matched, true, won.text);
  };
  const conversionOf = async (dealId: string) => {
    const revenue = await member.browser.request("GET", "/app/api/v1/revenue");
    assert.equal(revenue.status, 200, revenue.text);
    const conversions = revenue.body.conversions as {
      deal_id: string | null;
      deal_name: string | null;
      customer_name: string | null;
      address: string;
      campaign_name: string | null;
      reported_by: string;
    }[];
    const found = conversions.find((conversion) => conversion.deal_id === dealId);
    assert.ok(found, `Revenue lists ${dealId}: ${JSON.stringify(conversions)}`);
    return found;
  };

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await createOrg(ctx);
    member = await inviteAndAccept(ctx, org.orgId, "member-deal-label@example.com", "member");
    const mailedAt = new Date(Date.now() - 10 * DAY_MS).toISOString();
    mailing = await recordMailing(
      ctx,
      org.orgId,
      [
        {
          address: springfield("742 Evergreen Terrace"),
          recipient_name: "Homer Simpson",
          mailed_at: mailedAt,
        },
        {
          address: springfield("744 Evergreen Terrace"),
          recipient_name: "Ned Flanders",
          mailed_at: mailedAt,
        },
        { address: springfield("746 Evergreen Terrace"), mailed_at: mailedAt },
        { address: springfield("748 Evergreen Terrace"), mailed_at: mailedAt },
        { address: springfield("750 Evergreen Terrace"), recipient_name: "  ", mailed_at: mailedAt },
      ],
      "Spring roofing",
    );
  });
  after(() => ctx.close());

  test("a CRM deal sent with only its id is named by the card it is credited to, at the same home", async () => {
    await wonDeal({ address: springfield("742 Evergreen Terrace"), deal_id: "deal-2001" });
    const deal = await conversionOf("deal-2001");
    assert.equal(deal.customer_name, "Homer Simpson");
    assert.equal(deal.deal_name, null);
    assert.equal(deal.reported_by, "crm");
  });

  test("the contact a deal comes with names it, before the card: its whole name, else first and last", async () => {
    await wonDeal({
      address: springfield("744 Evergreen Terrace"),
      deal_id: "deal-2002",
      deal_name: "Roof replacement",
      contact_first_name: "Maude",
      contact_last_name: "Flanders",
    });
    assert.equal((await conversionOf("deal-2002")).customer_name, "Maude Flanders");
    await wonDeal({
      address: springfield("744 Evergreen Terrace"),
      deal_id: "deal-2003",
      contact_name: "Rod Flanders",
      contact_first_name: "Rodney",
    });
    assert.equal((await conversionOf("deal-2003")).customer_name, "Rod Flanders");
  });

  test("a card with no name: the landing-page lead that answered it names the deal", async () => {
    await submitLead(ctx, pieceAt("746 Evergreen Terrace").token, {
      first_name: "Lisa",
      last_name: "Simpson",
      email: "lisa@example.com",
    });
    await wonDeal({ address: springfield("746 Evergreen Terrace"), deal_id: "deal-2004" });
    assert.equal((await conversionOf("deal-2004")).customer_name, "Lisa Simpson");
  });

  test("nobody's name known (no contact, a card without a name or a blank one, no lead): null, never the deal's id", async () => {
    await wonDeal({ address: springfield("748 Evergreen Terrace"), deal_id: "deal-2005" });
    const deal = await conversionOf("deal-2005");
    assert.equal(deal.customer_name, null);
    assert.match(deal.address, /748 Evergreen Terrace/);
    await wonDeal({ address: springfield("750 Evergreen Terrace"), deal_id: "deal-2006" });
    assert.equal((await conversionOf("deal-2006")).customer_name, null);
  });

  test("a deal credited to another home's card (its campaign named) does not take that home's name", async () => {
    // No card went to 762: the named campaign's one card, the neighbour's at 760, is credited.
    const neighbour = await recordMailing(
      ctx,
      org.orgId,
      [
        {
          address: springfield("760 Evergreen Terrace"),
          recipient_name: "Carl Carlson",
          mailed_at: new Date(Date.now() - 5 * DAY_MS).toISOString(),
        },
      ],
      "Fall gutters",
    );
    await wonDeal({
      address: springfield("762 Evergreen Terrace"),
      deal_id: "deal-2007",
      campaign_id: neighbour.campaign_id,
    });
    const deal = await conversionOf("deal-2007");
    assert.equal(deal.campaign_name, "Fall gutters", "credited to the neighbour's card");
    assert.equal(deal.customer_name, null, "the neighbour's name is not this customer's");
    assert.match(deal.address, /762 Evergreen Terrace/);
  });

  test("a lead marked won in the app is named by the lead", async () => {
    const piece = pieceAt("742 Evergreen Terrace");
    const leadId = await submitLead(ctx, piece.token, {
      first_name: "Marge",
      last_name: "Simpson",
      email: "marge@example.com",
    });
    // Outside the 30 days and the amount of deal-2001, so a job of its own at the home.
    const marked = await member.browser.request("PUT", `/app/api/v1/leads/${leadId}/won`, {
      body: { amount: 250, closed_on: today() },
    });
    assert.equal(marked.status, 200, marked.text);
    const revenue = await member.browser.request("GET", "/app/api/v1/revenue");
    const app = (revenue.body.conversions as { reported_by: string; customer_name: string | null }[]).find(
      (conversion) => conversion.reported_by === "app",
    );
    assert.equal(app?.customer_name, "Marge Simpson");
  });
});
