/**
 * A lead marked won in the app, as a contractor without a CRM connection records a job: the lead's
 * page takes the amount and the day, refuses what cannot be meant on its fields, and once won says
 * where Revenue counts it; the amount can be changed (a lead whose card the CRM reported won is
 * contractor-fixes-s50.e2e.ts'); Leads marks the row, Revenue lists the deal,
 * and the home is a customer. Against the real service as a process; axe and both widths on the
 * lead's page before and after.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { formatCalendarDay } from "../../web/src/ui/format.ts";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@won.test", name: "Wendy Won", password: "correct horse battery" };
const AUTOMATION = "Job done postcard";
const HOME = { street: "742 Evergreen Terrace", city: "Springfield", state: "IL", zip: "62704" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let mailed: ListedPiece;
let leadId: string;
let orgIdOf: string;

/** The day as the browser's date field writes it (the page's own time zone). */
const localDay = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;

describe("a lead marked won in the browser", () => {
  before(async () => {
    app = await startApp({ name: "lead-won" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    const orgId = await app.signUpOwner(page, "Reliable Roofing", OWNER);
    orgIdOf = orgId;
    const apiKey = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    crmKey = apiKey;
    await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: AUTOMATION,
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    const sent = await app.sendEvent(apiKey, jobEvent("job-742", { ...HOME, client_name: "Marge Simpson" }));
    assert.equal(sent.outcomes[0]?.reason, "queued", JSON.stringify(sent));
    await waitUntil(async () => {
      const piece = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces)[0];
      if (piece) mailed = piece;
      return piece?.status === "mailed";
    }, "the card to 742 Evergreen Terrace is mailed");
    const lead = await page.request.post(mailed.landing_url, {
      data: { first_name: "Marge", last_name: "Simpson", email: "marge@example.test" },
    });
    assert.equal(lead.status(), 201, await lead.text());
    leadId = (await lead.json()).lead_id;
  });

  after(async () => {
    await app?.close();
  });

  /** The key the lead's org sends its CRM's deals with. */
  let crmKey = "";

  it("the lead's page records the job: refusals on their fields, then where Revenue counts it", async () => {
    await open(`/leads/${leadId}`, "Marge Simpson");
    const card = page.getByRole("heading", { level: 2, name: "Job won" }).locator("xpath=..");
    await card.getByText(/Won the job from this lead\?/).waitFor();
    const amount = card.getByRole("textbox", { name: "Job amount" });
    const day = card.getByLabel("Won on");
    assert.equal(await day.inputValue(), localDay(new Date()), "the day starts as today");
    await checkBothWidths("won-lead-form");
    // No lead delivery is set up: the page says so in the contractor's words, not "webhook subscription".
    await page
      .getByText("This lead was not sent to your CRM: no lead delivery was set up when it came in.", {
        exact: false,
      })
      .waitFor();

    await card.getByRole("button", { name: "Mark as won" }).click();
    await card.getByText("Enter the job's amount, from $0.01 to $10,000,000.").waitFor();
    assert.equal(
      await amount.evaluate((input) => input === document.activeElement),
      true,
      "focus on the field",
    );
    // A letter or a thousands dot is refused in words, never dropped ("24k" was recorded as $24).
    await amount.fill("24.000");
    await card.getByRole("button", { name: "Mark as won" }).click();
    await card
      .getByText("Write the amount in digits, like 12500, 12,500.50 or 24k", { exact: false })
      .waitFor();
    await amount.fill("24k");
    await card.getByText("Recorded as $24,000").waitFor();
    const dayAfterTomorrow = localDay(new Date(Date.now() + 2 * 86_400_000));
    await amount.fill("12500.50");
    await day.fill(dayAfterTomorrow);
    await card.getByRole("button", { name: "Mark as won" }).click();
    await card.getByText("The day the job was won cannot be in the future.").waitFor();

    await day.fill(localDay(new Date()));
    await card.getByRole("button", { name: "Mark as won" }).click();
    await page.getByText(`Revenue counts $12,500.50 toward ${AUTOMATION}.`).waitFor();
    await card.getByText("Won", { exact: true }).waitFor();
    await card.getByText("Amount: $12,500.50").waitFor();
    await card.getByText(`Won on: ${formatCalendarDay(localDay(new Date()))}`).waitFor();
    const credited = card.getByRole("link", { name: AUTOMATION });
    assert.equal(await credited.getAttribute("href"), `/app/mail/${mailed.id}`, "the card credited, linked");
    const change = card.getByRole("button", { name: "Change amount" });
    await waitUntil(
      async () => change.evaluate((button) => button === document.activeElement),
      "the focus goes to what replaced the form",
    );
    await checkBothWidths("won-lead-won");

    await change.click();
    const newAmount = card.getByRole("textbox", { name: "Job amount" });
    await waitUntil(
      async () => newAmount.evaluate((input) => input === document.activeElement),
      "focus on it",
    );
    await newAmount.fill("13000");
    await card.getByRole("button", { name: "Save amount" }).click();
    await card.getByText("Amount: $13,000").waitFor();
    await waitUntil(async () => change.evaluate((button) => button === document.activeElement), "focus back");
  });

  it("Leads marks the row won, Revenue lists the deal once, and the home is a customer", async () => {
    await open("/leads", "Leads");
    const row = page.getByRole("row", { name: /Marge Simpson/ });
    await row.getByText("Won", { exact: true }).waitFor();
    // No lead of the page was sent to a CRM: no column of "No webhook" on every row.
    assert.equal(await page.getByRole("columnheader", { name: "Sent to your CRM" }).count(), 0);
    assert.equal(await page.getByText("No webhook", { exact: true }).count(), 0);

    await open("/revenue", "Revenue");
    const deals = page.getByRole("region", { name: "Won deals attributed", exact: true }).last();
    const deal = deals.getByRole("row", { name: /Marge Simpson/ });
    await deal.waitFor();
    const cells = await deal.getByRole("cell").allInnerTexts();
    assert.equal(cells[3], "$13,000");
    assert.equal(cells[4], AUTOMATION);
    assert.equal(
      await deals.getByRole("row").count(),
      2,
      "a header and the lead's deal: the change replaced it",
    );

    await open("/customers", "Customers");
    await page
      .getByText(/742 Evergreen Terrace/)
      .first()
      .waitFor();
  });

  it("the CRM reporting the same job later: Revenue still counts it once, at the CRM's amount, and says so", async () => {
    const reported = await app.request("POST", "/api/v1/conversions", crmKey, {
      address: `${HOME.street}, ${HOME.city}, ${HOME.state} ${HOME.zip}`,
      deal_id: "D-742",
      deal_amount: "13400",
    });
    assert.equal(reported.matched, true, JSON.stringify(reported));
    await open("/revenue", "Revenue");
    const deals = page.getByRole("region", { name: "Won deals attributed", exact: true }).last();
    const deal = deals.getByRole("row", { name: /Marge Simpson/ });
    await deal.getByText("marked won in the app, then reported by your CRM (counted once)").waitFor();
    assert.equal((await deal.getByRole("cell").allInnerTexts())[3], "$13,400");
    assert.equal(await deals.getByRole("row").count(), 2, "a header and one deal: the job is counted once");

    await open(`/leads/${leadId}`, "Marge Simpson");
    const card = page.getByRole("heading", { level: 2, name: "Job won" }).locator("xpath=..");
    await card
      .getByText(
        "Your CRM reported this job too (deal D-742): Revenue counts it once, at the CRM's amount.",
        {
          exact: false,
        },
      )
      .waitFor();
    await card.getByText("Amount: $13,400").waitFor();
    assert.equal(await card.getByRole("button", { name: "Change amount" }).count(), 0);
    assert.equal(
      await card.getByRole("button", { name: "Not won after all" }).count(),
      0,
      "the CRM's to change",
    );
    await checkBothWidths("won-lead-reported-by-crm");
  });

  it("a lead marked won by mistake is taken back after a dialog: Revenue drops it and the page offers the mark again", async () => {
    const sent = await app.sendEvent(
      crmKey,
      jobEvent("job-744", { ...HOME, street: "744 Evergreen Terrace" }),
    );
    assert.equal(sent.outcomes[0]?.reason, "queued", JSON.stringify(sent));
    let card744: ListedPiece | undefined;
    await waitUntil(async () => {
      card744 = (await app.campaigns(orgIdOf))
        .flatMap((campaign) => campaign.pieces)
        .find((piece) => piece.address.startsWith("744 "));
      return card744?.status === "mailed";
    }, "the card to 744 Evergreen Terrace is mailed");
    const answered = await page.request.post(card744!.landing_url, {
      data: { first_name: "Ned", last_name: "Flanders", email: "ned@example.test" },
    });
    const wrongLead: string = (await answered.json()).lead_id;
    const marked = await page.request.put(`${app.base}/app/api/v1/leads/${wrongLead}/won`, {
      headers: { origin: app.base },
      data: { amount: 24, closed_on: localDay(new Date()) },
    });
    assert.equal(marked.status(), 200, await marked.text());

    await open(`/leads/${wrongLead}`, "Ned Flanders");
    const card = page.getByRole("heading", { level: 2, name: "Job won" }).locator("xpath=..");
    await card.getByRole("button", { name: "Not won after all" }).click();
    const dialog = page.getByRole("dialog", { name: "Take back this won job?" });
    await dialog.getByText(`Revenue no longer counts $24 toward ${AUTOMATION}.`, { exact: false }).waitFor();
    await checkBothWidths("won-lead-take-back");
    await dialog.getByRole("button", { name: "Take it back" }).click();
    await card.getByText(/Won the job from this lead\?/).waitFor();
    const amount = card.getByRole("textbox", { name: "Job amount" });
    await waitUntil(
      async () => amount.evaluate((input) => input === document.activeElement),
      "the focus goes to the form that marks it won",
    );
    await open("/revenue", "Revenue");
    const deals = page.getByRole("region", { name: "Won deals attributed", exact: true }).last();
    await deals.getByRole("row", { name: /Marge Simpson/ }).waitFor();
    assert.equal(await deals.getByRole("row", { name: /Ned Flanders/ }).count(), 0, "Revenue drops it");
  });
});
