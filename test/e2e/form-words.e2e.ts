/**
 * Forms say a refused value in words on its field, and keep it as typed (the number fields no longer
 * clamp on blur and save the clamped value as "Saved"); a deep link to a missing record gets the
 * not-found page with its way back; Mail and Leads show their key facts at phone width, and a lead's
 * long unbroken name wraps instead of widening the page. Screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@words.test", name: "Wendy Words", password: "correct horse battery" };
const LONG_NAME = "Bartholomew".repeat(6);

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;
let automationId: string;
let mailed: ListedPiece;

/** Types `value` into `field`, leaves it, and checks it still reads as typed (not clamped). */
async function typeAndLeave(field: Locator, value: string, shown = value) {
  await field.fill(value);
  await field.blur();
  assert.equal(await field.inputValue(), shown, `the field keeps ${value} as typed`);
}

/** The field says `words`, and no "Saved" notice came. */
async function refusedInWords(field: Locator, words: string) {
  await page.getByText(words, { exact: true }).first().waitFor();
  assert.equal(await field.getAttribute("aria-invalid"), "true");
  assert.equal(await page.getByText("Saved", { exact: true }).count(), 0, "nothing is said saved");
}

describe("form words, missing records and phone lists", () => {
  before(async () => {
    app = await startApp({ name: "form-words" });
    page = await app.newPage();
    screens = app.screens(page);
    const owner = await app.ownerWithAutomation(page, "Wordy Windows", OWNER);
    automationId = owner.automationId;
    const sent = await app.sendEvent(
      owner.apiKey,
      jobEvent("words-1", { street: "742 Evergreen Terrace", client_name: "Marge Simpson" }),
    );
    assert.equal(sent.outcomes[0]?.reason, "queued", JSON.stringify(sent));
    await waitUntil(async () => {
      const piece = (await app.campaigns(owner.orgId)).flatMap((campaign) => campaign.pieces)[0];
      if (piece) mailed = piece;
      return piece?.status === "mailed";
    }, "the card to 742 Evergreen Terrace is mailed");
  });

  after(async () => {
    await app?.close();
  });

  it("a cost per card out of range is refused in dollars on its field and not saved", async () => {
    await screens.open("/settings?tab=profile", "Settings");
    const cost = page.getByLabel("Cost per card (USD)");
    const save = page.getByRole("button", { name: "Save profile" });
    for (const typed of ["-3", "2500"]) {
      await cost.fill(typed);
      await cost.blur();
      assert.match(await cost.inputValue(), new RegExp(typed.replace("-", "-?\\$?")), "not clamped");
      await save.click();
      await refusedInWords(cost, "Enter an amount from $0.00 to $1,000.00.");
    }
    await screens.open("/settings?tab=profile", "Settings");
    assert.equal(await page.getByLabel("Cost per card (USD)").inputValue(), "", "no cost was saved");
  });

  it("an automation's hold window out of range or not whole is refused in words and not saved", async () => {
    await screens.open(`/automations/${automationId}`, "Job done postcard");
    const safety = page.getByRole("group", { name: "Safety" });
    const hold = safety.getByLabel("Hold window (minutes)");
    for (const typed of ["999999999", "1.5"]) {
      await typeAndLeave(hold, typed);
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await refusedInWords(hold, "Enter a whole number of minutes from 0 to 43,200 (30 days).");
      assert.equal(await page.getByText("Job done postcard is saved.").count(), 0, "nothing is said saved");
    }
    // Put back as saved, so the builder lets the next test leave without asking.
    await hold.fill("0");
    await screens.open(`/automations/${automationId}`, "Job done postcard");
    assert.equal(
      await page.getByRole("group", { name: "Safety" }).getByLabel("Hold window (minutes)").inputValue(),
      "0",
    );
  });

  it("the builder's homes, feet, holdout and follow-up days out of range are refused in words and not saved", async () => {
    await screens.open(`/automations/${automationId}`, "Job done postcard");
    const holdout = page.getByLabel("Holdout (% of homes that get no card)");
    await typeAndLeave(holdout, "90", "90 %");
    await page.getByRole("button", { name: "Add a follow-up card" }).click();
    const days = page
      .getByRole("region", { name: "Follow-up card 1" })
      .getByLabel("Days after the first card is mailed");
    await typeAndLeave(days, "400");
    await page.getByRole("radio", { name: "Neighbors of the record's home" }).check();
    const homes = page.getByLabel("Homes to mail");
    await typeAndLeave(homes, "500");
    const feet = page.getByLabel("Within (feet)");
    await typeAndLeave(feet, "99999", "99,999 ft");

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await refusedInWords(homes, "Enter a whole number of homes from 1 to 200.");
    await refusedInWords(feet, "Enter a whole number of feet from 33 to 16,404 (a mile is 5,280 ft).");
    await refusedInWords(days, "Enter a whole number of days from 1 to 365.");
    assert.equal(await holdout.getAttribute("aria-invalid"), "true");
    await screens.checkScreen("fw-builder-ranges", "desktop");

    const answer = await page.request.get(`${app.base}/app/api/v1/automations/${automationId}`);
    const saved = await answer.json();
    assert.equal(saved.holdout_percent, 0, "the holdout was not saved");
    assert.equal(saved.audience.type, "home", "the neighbours audience was not saved");
    assert.equal(saved.steps.length, 0, "no follow-up was saved");
  });

  it("Mail safety refuses a frequency cap and a monthly cap out of range in words", async () => {
    await screens.open("/settings?tab=safety", "Settings");
    const days = page.getByLabel("Frequency cap per home (days)");
    const daysBefore = await days.inputValue();
    await typeAndLeave(days, "100000");
    await refusedInWords(days, "Enter a whole number of days from 0 to 3,650 (10 years).");
    await days.fill(daysBefore);

    await page.getByLabel("Monthly cap of the organization").selectOption("cards");
    const cards = page.getByLabel("Cards per month");
    for (const typed of ["-10", "99999999999"]) {
      await typeAndLeave(cards, typed);
      await page.getByRole("button", { name: "Save mail safety" }).click();
      await refusedInWords(cards, "Enter a whole number of cards from 0 to 100,000,000.");
    }
    await screens.open("/settings?tab=safety", "Settings");
    assert.equal(await page.getByLabel("Monthly cap of the organization").inputValue(), "none");
    assert.equal(await page.getByLabel("Frequency cap per home (days)").inputValue(), daysBefore);
  });

  it("inviting someone already on the team says so on the email field", async () => {
    await screens.open("/settings?tab=team", "Settings");
    const email = page.getByLabel("Email");
    await email.fill(OWNER.email);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText("This person is already on your team.", { exact: false }).first().waitFor();
    assert.equal(await email.getAttribute("aria-invalid"), "true");
  });

  it("a link to a missing automation or import gets the not-found page and its way back", async () => {
    for (const [path, heading, back] of [
      [
        "/automations/00000000-0000-4000-8000-000000000000",
        "This automation was not found",
        "Back to Automations",
      ],
      ["/automations/bogus", "This automation was not found", "Back to Automations"],
      ["/customers/batches/abc", "This import was not found", "Back to Customers"],
    ] as const) {
      await screens.open(path, heading);
      await page.getByRole("link", { name: back }).waitFor();
      const text = await page.locator("main").innerText();
      assert.doesNotMatch(
        text,
        /not found"|must match format|automation not found/,
        `${path} shows no API words`,
      );
    }
  });

  it("Mail and Leads show their key facts at phone width; a long name wraps", async () => {
    await page.goto(mailed.landing_url);
    await page.getByLabel("First name").fill(LONG_NAME);
    await page.getByLabel("Last name").fill("Simpson");
    await page.getByLabel("Email").fill("long@example.test");
    await page.getByLabel("Phone").fill("2175550123");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();

    await page.setViewportSize(VIEWPORTS.phone);
    const withinPhone = async (locator: Locator, what: string) => {
      const box = await locator.boundingBox();
      assert.ok(
        box && box.x >= 0 && box.x + box.width <= VIEWPORTS.phone.width,
        `${what} shows on a phone: ${JSON.stringify(box)}`,
      );
    };

    await screens.open("/mail", "Mail");
    const row = page.getByRole("row", { name: /Marge Simpson/ });
    await withinPhone(row.getByText("Mailed", { exact: true }).first(), "the status");
    await screens.checkScreen("fw-mail", "phone");

    await screens.open("/leads", "Leads");
    const lead = page.getByRole("row", { name: /Simpson/ });
    await withinPhone(lead.getByText("long@example.test").first(), "the email");
    await withinPhone(lead.getByText("2175550123").first(), "the phone");
    await screens.checkScreen("fw-leads", "phone");

    await lead.getByRole("link", { name: new RegExp(LONG_NAME) }).click();
    await page.getByRole("heading", { level: 1, name: new RegExp(LONG_NAME) }).waitFor();
    await screens.checkScreen("fw-lead", "phone");

    await page.setViewportSize(VIEWPORTS.desktop);
    await screens.open("/leads", "Leads");
    await screens.checkScreen("fw-leads", "desktop");
    // The table fills its scrolling region and no more: the long name wraps instead of widening it.
    const region = page.getByRole("region", { name: "Leads" });
    const [tableWidth, regionWidth] = await region.evaluate((element) => [
      element.scrollWidth,
      element.clientWidth,
    ]);
    assert.ok(tableWidth <= regionWidth, `the Leads table is ${tableWidth} px in ${regionWidth} px`);
  });
});
