/**
 * Leads and revenue in a real browser (issue 28), against the real service as a process (local
 * print provider, email to DATA_DIR/mail-outbox/): the owner finds lead alerts on in Settings; a
 * homeowner answers a mailed card on its landing page; the lead shows in Leads and on its own page,
 * and exactly one alert email names it and links to it. A won deal posted through the developer API
 * at the mailed home shows in Revenue with its amount, in the conversions list and in the CSV.
 * Every screen: axe-core (no serious or critical WCAG A/AA violation) and a screenshot at desktop
 * and phone width in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { formatCalendarDay } from "../../web/src/ui/format.ts";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@leads.test", name: "Lena Leads", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";
const AUTOMATION = "Job done postcard";
const HOME = { street: "742 Evergreen Terrace", city: "Springfield", state: "IL", zip: "62704" };
const LEAD = { first: "Marge", last: "Simpson", email: "marge@example.test", phone: "2175550123" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let apiKey: string;
let mailed: ListedPiece;
let leadPath: string;
let automationId: string;

const leadAlerts = () => app.outbox().filter((eml) => /\r\nSubject: New lead for [^:\r\n]+: /.test(eml));

describe("leads and revenue in the browser", () => {
  before(async () => {
    app = await startApp({ name: "leads" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));

    const orgId = await app.signUpOwner(page, "Reliable Roofing", OWNER);
    apiKey = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    ({ id: automationId } = await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: AUTOMATION,
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
    }));

    const sent = await app.sendEvent(apiKey, jobEvent("job-742", { ...HOME, client_name: "Marge Simpson" }));
    assert.equal(sent.outcomes[0]?.reason, "queued", JSON.stringify(sent));
    await waitUntil(async () => {
      const piece = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces)[0];
      if (piece) mailed = piece;
      return piece?.status === "mailed";
    }, "the card to 742 Evergreen Terrace is mailed");
  });

  after(async () => {
    await app?.close();
  });

  it("a lead from a card's landing page shows in Leads and on its page, and alerts the member once", async () => {
    await open("/settings?tab=account", "Settings");
    const alertsSwitch = page.getByRole("switch", { name: "Email me about every new lead" });
    // An owner gets lead alerts until they turn them off (issue 39).
    assert.equal(await alertsSwitch.isChecked(), true, "an owner's alerts start on");

    await page.goto(mailed.landing_url);
    await page.getByLabel("First name").fill(LEAD.first);
    await page.getByLabel("Last name").fill(LEAD.last);
    await page.getByLabel("Email").fill(LEAD.email);
    await page.getByLabel("Phone").fill(LEAD.phone);
    await page.getByLabel("Message").fill("The gutter on the north side leaks.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();

    await open("/leads", "Leads");
    const row = page.getByRole("row", { name: /Marge Simpson/ });
    await row.waitFor();
    // Nobody has opened the lead yet: its name carries a "New" badge that says so in words.
    const newBadge = row.getByRole("cell").first().locator(".mantine-Badge-root");
    assert.ok(await newBadge.isVisible());
    assert.equal(await newBadge.textContent(), "New, not opened yet", "read out as a whole phrase");
    const cells = await row.getByRole("cell").allInnerTexts();
    assert.match(cells[0] ?? "", /^Marge Simpson\s+NEW/);
    assert.match(cells[1] ?? "", /marge@example\.test/);
    assert.match(cells[2] ?? "", /742 Evergreen Terrace/);
    assert.equal(cells[3], AUTOMATION, "the postcard column names the automation");
    assert.equal(cells[4], "Landing page");
    assert.equal(
      await row.getByRole("link", { name: AUTOMATION }).getAttribute("href"),
      `/app/mail/${mailed.id}`,
      "the lead links the piece that earned it",
    );
    await checkBothWidths("lr-leads");

    await row.getByRole("link", { name: "Marge Simpson" }).click();
    await page.getByRole("heading", { level: 1, name: "Marge Simpson" }).waitFor();
    leadPath = new URL(page.url()).pathname;
    assert.match(leadPath, /^\/app\/leads\/[0-9a-f-]{36}$/);
    await page.getByText(/^Landing page lead received/).waitFor();
    // The email writes and the phone calls: mailto: and tel: links.
    assert.equal(
      await page.getByRole("link", { name: LEAD.email }).getAttribute("href"),
      `mailto:${LEAD.email}`,
    );
    assert.equal(
      await page.getByRole("link", { name: LEAD.phone }).getAttribute("href"),
      `tel:${LEAD.phone}`,
    );
    await page.getByText("How it came: Answered the card").waitFor();
    await page.getByText("The gutter on the north side leaks.").waitFor();
    await page.getByRole("link", { name: AUTOMATION }).waitFor();
    await checkBothWidths("lr-lead");
    // Opened, the lead is no longer new: back in the list (the app's own link) and on a fresh load.
    await page.getByRole("link", { name: "← All leads" }).click();
    await page.getByRole("heading", { level: 1, name: "Leads" }).waitFor();
    await row.waitFor();
    assert.equal(await newBadge.count(), 0, "the badge goes once the lead is opened");
    await open("/leads", "Leads");
    await row.waitFor();
    assert.equal(await newBadge.count(), 0, "and stays gone for the next visit");
    assert.equal((await row.getByRole("cell").first().innerText()).trim(), "Marge Simpson");

    await waitUntil(async () => leadAlerts().length > 0, "the lead alert email is written");
    const [alert] = leadAlerts();
    assert.match(alert!, new RegExp(`\\r\\nTo: ${OWNER.email.replace(".", "\\.")}\\r\\n`));
    // The subject names the home the card went to; what the visitor typed comes under its own line.
    assert.match(
      alert!.replace(/\r\n[ \t]/g, " "),
      /\r\nSubject: New lead for [^:\r\n]+: 742 Evergreen Terrace, Springfield, IL 62704\r\n/,
    );
    assert.match(alert!, /\(their words, not Porchlight's\):\r\nName: Marge Simpson\r\n/);
    assert.match(alert!, /Email: marge@example\.test/);
    const links: string[] = alert!.match(/https?:\/\/\S+/g) ?? [];
    assert.ok(links.includes(`${app.base}${leadPath}`), `the alert links the lead: ${links.join(" ")}`);
    assert.equal(leadAlerts().length, 1, "exactly one alert for one lead");
  });

  it("a won deal at the mailed home shows in Revenue with its amount, in the conversions list and the CSV", async () => {
    const profile = await page.request.patch(`${app.base}/app/api/v1/organization`, {
      headers: { origin: app.base },
      data: { cost_per_card_cents: 85 },
    });
    assert.equal(profile.status(), 200, await profile.text());
    // Sent without a deal_date: the deal is dated the day it is received.
    const received = new Date().toISOString().slice(0, 10);
    const won = await app.request("POST", "/api/v1/conversions", apiKey, {
      address: `${HOME.street}, ${HOME.city}, ${HOME.state} ${HOME.zip}`,
      deal_id: "D-742",
      deal_name: "Gutter replacement",
      deal_amount: "4250",
      deal_stage: "closedwon",
    });
    assert.equal(won.matched, true, JSON.stringify(won));

    await open("/revenue", "Revenue");
    // No neighbour mail yet: the empty section says how to start it, with a link to build one, in the
    // same type as the section's own description and every other empty state (it was larger).
    const bySourceJob = page.locator("section[aria-labelledby=revenue-by-source-job]");
    await bySourceJob.getByRole("link", { name: "build an automation" }).waitFor();
    await bySourceJob.getByRole("heading", { level: 3, name: "No neighbor mail yet" }).waitFor();
    const fontSize = (text: string) =>
      bySourceJob.getByText(text).evaluate((element) => getComputedStyle(element).fontSize);
    assert.equal(
      await fontSize("No neighbor automation has mailed around a job yet."),
      await fontSize("Neighbor mail: the cards each finished job sent"),
    );
    const byAutomation = page.getByRole("region", { name: "Revenue by automation" });
    const automationRow = byAutomation.getByRole("row", { name: new RegExp(AUTOMATION) });
    await automationRow.waitFor();
    assert.deepEqual(
      (await automationRow.getByRole("cell").allInnerTexts()).slice(0, 4),
      ["1", "1", "1", "$4,250"],
      "cards mailed, leads, won deals, revenue",
    );
    // $4,250 from one card at $0.85: a return a person reads, not "5000×".
    assert.equal((await automationRow.getByRole("cell").allInnerTexts())[5], "$5,000 back per $1");
    const conversions = page.getByRole("region", { name: "Won deals attributed", exact: true }).last();
    const conversionRow = conversions.getByRole("row", { name: /Gutter replacement/ });
    await conversionRow.waitFor();
    const conversionCells = await conversionRow.getByRole("cell").allInnerTexts();
    assert.equal(conversionCells[0], formatCalendarDay(received), "an undated deal is dated when received");
    assert.equal(conversionCells[1], "Gutter replacement");
    assert.match(conversionCells[5] ?? "", /^Answered the card/i, "direct in words");
    assert.match(conversionCells[2] ?? "", /742 Evergreen Terrace/);
    assert.equal(conversionCells[3], "$4,250");
    assert.equal(conversionCells[4], AUTOMATION);

    const href = await page.getByRole("link", { name: "Download CSV" }).getAttribute("href");
    const csv = await page.request.get(new URL(href ?? "", app.base).toString());
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()["content-type"] ?? "", /^text\/csv/);
    const lines = (await csv.text()).trim().split(/\r?\n/);
    const dealLine = lines.find((line) => line.includes("D-742") || line.includes("Gutter replacement"));
    assert.ok(dealLine, `the CSV has the deal:\n${lines.join("\n")}`);
    assert.match(dealLine, /4250/);
    assert.ok(dealLine.includes(`,${received},`), `the CSV dates the deal: ${dealLine}`);
    assert.match(dealLine, /742 Evergreen Terrace/);
    await checkBothWidths("lr-revenue");
    await open("/", "Overview");
    await page.getByRole("region", { name: "Last 12 months" }).getByText("$5,000 back per $1").waitFor();
    // The monthly bars carry their numbers as text: this month's bar reads the deal's amount.
    const revenueBars = page.getByRole("figure", {
      name: "Attributed revenue per month over the last 12 months",
    });
    await revenueBars.getByText("$4,250", { exact: true }).waitFor();
    const cardBars = page.getByRole("figure", { name: "Cards mailed per month over the last 12 months" });
    assert.equal(await cardBars.getByText(/^\d+$/).count(), 12, "a number for each of the 12 months");
    await checkBothWidths("lr-overview");
  });

  it("a deal's cents show as sent; an automation given a holdout says its comparison starts then, with nothing in it yet", async () => {
    const won = await app.request("POST", "/api/v1/conversions", apiKey, {
      address: `${HOME.street}, ${HOME.city}, ${HOME.state} ${HOME.zip}`,
      deal_id: "D-743",
      deal_name: "Skylight",
      deal_amount: "9200.50",
    });
    assert.equal(won.matched, true, JSON.stringify(won));
    // Held out from now on: the card mailed before is no part of the comparison.
    const raised = await app.operator("PATCH", `/automations/${automationId}`, { holdout_percent: 10 });
    assert.equal(raised.holdout_percent, 10, JSON.stringify(raised));

    await open("/revenue", "Revenue");
    const conversions = page.getByRole("region", { name: "Won deals attributed", exact: true }).last();
    // The list may come after the page's heading: wait for the deal's row before reading it.
    const amountOf = async (deal: string) => {
      const row = conversions.getByRole("row", { name: new RegExp(deal) });
      await row.waitFor();
      return (await row.getByRole("cell").allInnerTexts())[3];
    };
    assert.equal(await amountOf("Skylight"), "$9,200.50", "never rounded to $9,201");
    assert.equal(await amountOf("Gutter replacement"), "$4,250", "a whole amount shows no cents");
    const automationRow = page
      .getByRole("region", { name: "Revenue by automation" })
      .getByRole("row", { name: new RegExp(AUTOMATION) });
    assert.deepEqual(
      (await automationRow.getByRole("cell").allInnerTexts()).slice(0, 4),
      ["1", "1", "2", "$13,450.50"],
      "a total agrees to the cent with its deals",
    );
    const holdout = page
      .getByRole("region", { name: "What the mail added" })
      .getByRole("article", { name: `Holdout of ${AUTOMATION}` });
    await holdout.getByText("10 % held out").waitFor();
    // The holdout was turned on after the card was mailed: the comparison starts then, with nothing in it yet.
    await holdout
      .getByText(
        /^This automation began holding homes out on .+\. No home has been mailed or held out since, so there is nothing to compare yet; the cards it mailed before then are not part of it\.$/,
      )
      .waitFor();
    assert.doesNotMatch(await holdout.innerText(), /0 of 0/, "nothing that reads against the table above");
    await holdout.scrollIntoViewIfNeeded();
    await checkBothWidths("lr-revenue-holdout");

    // A card's page lists the same deals with the same amounts.
    await open(`/mail/${mailed.id}`, /Postcard to/);
    const deals = page.getByRole("row", { name: /Skylight/ });
    assert.equal((await deals.getByRole("cell").allInnerTexts())[1], "$9,200.50");
    assert.equal(
      (
        await page
          .getByRole("row", { name: /Gutter replacement/ })
          .getByRole("cell")
          .allInnerTexts()
      )[1],
      "$4,250",
    );
  });
});
