/**
 * The automation builder in a real browser against the real service: edits are never lost without a
 * word (a dialog for a move inside the app, the browser's prompt for a reload), while an untouched or
 * just-saved builder lets the contractor go without asking; the one Save saves a saved automation's
 * Safety section with the rest (a wrong safety field saves nothing); and a new automation can hold its very
 * first card for approval, chosen before its first save (the card an event then makes is checked
 * through the operator API).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Dialog, Page } from "playwright-core";
import { screenshot, seriousViolations, VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, startApp, waitForSamplePicked, waitUntil } from "./session.ts";

const OWNER = { email: "owner@builder.test", name: "Bea Builder", password: "correct horse battery" };
const LEAVE_DIALOG = "Leave without saving?";

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;
let automationId: string;
/** The browser's own prompts (beforeunload) seen since the test began, by type. */
let browserPrompts: string[] = [];

const navigation = () => page.getByRole("navigation", { name: "Main navigation" });
const leaveDialog = () => page.getByRole("dialog", { name: LEAVE_DIALOG });
const message = () => page.getByRole("textbox", { name: "Message" });
const safetySection = () => page.getByRole("group", { name: "Safety" });
const hold = () => safetySection().getByLabel("Hold window (minutes)");
const offer = () => page.getByLabel("Offer", { exact: true });
const savedSafety = async () =>
  (await page.request.get(`${app.base}/app/api/v1/automations/${automationId}/safety`)).json();
const savedOffer = async () =>
  (await (await page.request.get(`${app.base}/app/api/v1/automations/${automationId}`)).json()).template
    .offer;

/** Opens the saved automation and waits until its whole form shows, sample picked. */
async function openSavedAutomation() {
  await open(`/automations/${automationId}`, "Job done postcard");
  await waitForSamplePicked(page);
  await page.getByRole("button", { name: "Save", exact: true }).waitFor();
}

/** Clicks Leads in the navigation and waits for the Leads screen: nothing asked on the way. */
async function leaveForLeadsUnasked() {
  await navigation().getByRole("link", { name: "Leads" }).click();
  await page.getByRole("heading", { level: 1, name: "Leads" }).waitFor();
  assert.deepEqual(browserPrompts, [], "the browser asked nothing");
  assert.equal(await leaveDialog().count(), 0, "no leave dialog");
}

describe("the automation builder keeps edits from being lost, and a new automation can wait for approval", () => {
  before(async () => {
    app = await startApp({ name: "builder" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Careful Carpentry", OWNER));
    // A sample of job.completed: the builder fills in its object type and picks it by itself.
    await app.sendEvent(
      apiKey,
      jobEvent("job-builder-1", { street: "1 Sample St", client_name: "Sue Sample" }),
    );
    page.on("dialog", (dialog: Dialog) => {
      browserPrompts.push(dialog.type());
    });
  });

  after(async () => {
    await app?.close();
  });

  it("an untouched builder, new or saved, lets the contractor leave without asking", async () => {
    browserPrompts = [];
    await open("/automations/new?event_type=job.completed", "New automation");
    await page.getByRole("button", { name: "Save", exact: true }).waitFor();
    await waitUntil(
      async () => (await page.getByLabel("Object type").inputValue()) === "job",
      "the sample's object type is filled in",
    );
    await leaveForLeadsUnasked();

    // The saved automation has no object type ("Any"): that is its choice, never filled in behind it.
    await openSavedAutomation();
    assert.equal(await page.getByLabel("Object type").inputValue(), "");
    await leaveForLeadsUnasked();
  });

  it("a new automation's object type follows its sample until the contractor picks one, Any included", async () => {
    await open("/automations/new?event_type=job.completed", "New automation");
    const objectType = page.getByLabel("Object type");
    await waitUntil(
      async () => (await objectType.inputValue()) === "job",
      "the sample's object type is filled in",
    );
    await objectType.selectOption({ label: "Any" });
    // Another sample picked re-runs the fill-in; the contractor's "Any" stays.
    await page.getByLabel("Sample record").selectOption({ index: 0 });
    await page.getByLabel("Kind").selectOption({ index: 0 });
    assert.equal(await objectType.inputValue(), "");
    // "Any" is the contractor's change: leaving asks, and Leave goes.
    await navigation().getByRole("link", { name: "Leads" }).click();
    await leaveDialog().getByRole("button", { name: "Leave" }).click();
    await page.getByRole("heading", { level: 1, name: "Leads" }).waitFor();
  });

  it("an edited message asks before leaving: Stay keeps the edit, Leave goes; a reload asks the browser's way", async () => {
    await openSavedAutomation();
    const edited = `${await message().inputValue()} Ask about our winter discount.`;
    await message().fill(edited);

    await navigation().getByRole("link", { name: "Leads" }).click();
    await leaveDialog().waitFor();
    await leaveDialog()
      .getByText("Your changes on this page are not saved. If you leave, they are lost.")
      .waitFor();
    await screenshot(page, "automation-builder-leave", "desktop");
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `axe with the leave dialog open:\n${violations.join("\n")}`);
    await leaveDialog().getByRole("button", { name: "Stay" }).click();
    await leaveDialog().waitFor({ state: "detached" });
    await page.getByRole("heading", { level: 1, name: "Job done postcard" }).waitFor();
    assert.equal(await message().inputValue(), edited, "Stay keeps the edit");

    // The header's way back, on a phone: the same dialog.
    await page.setViewportSize(VIEWPORTS.phone);
    try {
      await page.getByRole("link", { name: "Back to Automations" }).click();
      await leaveDialog().waitFor();
      await screenshot(page, "automation-builder-leave", "phone");
      const onPhone = await seriousViolations(page);
      assert.deepEqual(onPhone, [], `axe with the leave dialog open on a phone:\n${onPhone.join("\n")}`);
      await page.keyboard.press("Escape");
      await leaveDialog().waitFor({ state: "detached" });
      assert.equal(await message().inputValue(), edited, "Escape stays too");
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }

    // A reload: the browser's own prompt; dismissed, the page and the edit stay.
    browserPrompts = [];
    const prompt = page.waitForEvent("dialog");
    // A cancelled reload never finishes: its promise fails at the timeout (the default 30 s wasted).
    const reload = page.reload({ timeout: 5_000 }).then(
      () => "reloaded",
      () => "cancelled",
    );
    const shown = await prompt;
    assert.equal(shown.type(), "beforeunload");
    await shown.dismiss();
    assert.equal(await reload, "cancelled", "the reload was cancelled");
    assert.equal(await message().inputValue(), edited, "the edit is still there");

    await navigation().getByRole("link", { name: "Leads" }).click();
    await leaveDialog().getByRole("button", { name: "Leave" }).click();
    await page.getByRole("heading", { level: 1, name: "Leads" }).waitFor();
    const saved = await page.request.get(`${app.base}/app/api/v1/automations/${automationId}`);
    assert.ok(!(await saved.json()).template.message.includes("winter discount"), "nothing was saved");
  });

  it("after a save of a saved automation, leaving asks nothing", async () => {
    await openSavedAutomation();
    await page.getByLabel("Headline").fill("Fresh work on {{street}}");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Job done postcard is saved.").waitFor();
    browserPrompts = [];
    await leaveForLeadsUnasked();
  });

  it("a headline the card cannot print (an emoji) is said in words on the field and by the proof, not as a code", async () => {
    await openSavedAutomation();
    await page.getByLabel("Headline").fill("Fresh work on {{street}} 🏡");
    const proofSays = page.getByText(
      "Change the card's text to see it: The card's typeface cannot print 🏡",
      {
        exact: false,
      },
    );
    await proofSays.waitFor();
    assert.equal(await page.getByText("template.headline").count(), 0, "no field code shows");
    assert.equal(await page.getByRole("button", { name: "Try again" }).count(), 0, "nothing to try again");
    await waitUntil(
      async () => (await page.getByText("The text fits the", { exact: false }).count()) === 0,
      "the text is no longer said to fit",
    );
    await checkBothWidths("automation-builder-unprintable");
    await page.getByLabel("Headline").fill("Fresh work on {{street}}");
    await proofSays.waitFor({ state: "hidden" });
  });

  it("the one Save saves a changed hold window and a changed offer; reopened, both are kept and leaving asks nothing", async () => {
    await openSavedAutomation();
    const newHold = String((await savedSafety()).hold_minutes === 45 ? 50 : 45);
    await hold().fill(newHold);
    await offer().fill("15% off your next gutter cleaning");
    await safetySection().scrollIntoViewIfNeeded();
    await checkBothWidths("automation-builder-safety");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Job done postcard is saved.").waitFor();
    assert.equal((await savedSafety()).hold_minutes, Number(newHold), "the hold window is saved");
    assert.equal(await savedOffer(), "15% off your next gutter cleaning", "the offer is saved");
    // Nothing is left unsaved: leaving asks nothing.
    browserPrompts = [];
    await leaveForLeadsUnasked();
    await openSavedAutomation();
    assert.equal(await hold().inputValue(), newHold, "reopened, the hold window is the one saved");
    assert.equal(await offer().inputValue(), "15% off your next gutter cleaning", "and the offer");
  });

  it("a changed hold window alone asks before leaving: Stay keeps it, Leave saves nothing", async () => {
    await openSavedAutomation();
    const holdBefore = (await savedSafety()).hold_minutes;
    await hold().fill(String(holdBefore + 30));
    await navigation().getByRole("link", { name: "Mail" }).click();
    await leaveDialog().waitFor();
    await leaveDialog().getByRole("button", { name: "Stay" }).click();
    await leaveDialog().waitFor({ state: "detached" });
    assert.equal(await hold().inputValue(), String(holdBefore + 30), "Stay keeps the change");
    await navigation().getByRole("link", { name: "Mail" }).click();
    await leaveDialog().getByRole("button", { name: "Leave" }).click();
    await page.getByRole("heading", { level: 1, name: "Mail" }).waitFor();
    assert.equal((await savedSafety()).hold_minutes, holdBefore, "leaving saved nothing");
  });

  it("a hold window out of range: Save saves nothing, not the offer either, says why on the field and focuses it", async () => {
    await openSavedAutomation();
    const holdBefore = (await savedSafety()).hold_minutes;
    const offerBefore = await savedOffer();
    await offer().fill("20% off a second visit");
    await hold().fill("99999999");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await safetySection().getByText("Enter a whole number of minutes from 0 to 43,200 (30 days).").waitFor();
    await waitUntil(
      () => hold().evaluate((field) => field === document.activeElement),
      "the refused hold window has the focus",
    );
    assert.equal(await page.getByText("Job done postcard is saved.").count(), 0, "nothing is said saved");
    assert.equal(await savedOffer(), offerBefore, "the offer was not saved");
    assert.equal((await savedSafety()).hold_minutes, holdBefore, "the hold window was not saved");
    await navigation().getByRole("link", { name: "Leads" }).click();
    await leaveDialog().getByRole("button", { name: "Leave" }).click();
    await page.getByRole("heading", { level: 1, name: "Leads" }).waitFor();
  });

  it("a member's shorter hold window is refused on Save: said on the field, nothing saved, never said saved", async () => {
    const holdBefore = (await savedSafety()).hold_minutes;
    assert.ok(holdBefore > 0, "the hold window was set by an earlier test");
    const offerBefore = await savedOffer();
    const memberPage = await app.signInMember(orgId, {
      email: "member@builder.test",
      name: "Mo Member",
      password: "correct horse battery",
    });
    try {
      await app.screens(memberPage).open(`/automations/${automationId}`, "Job done postcard");
      const memberHold = memberPage
        .getByRole("group", { name: "Safety" })
        .getByLabel("Hold window (minutes)");
      await memberHold.fill("0");
      await memberPage.getByLabel("Offer", { exact: true }).fill("A member's offer");
      await memberPage.getByRole("button", { name: "Save", exact: true }).click();
      await memberPage.getByText("That did not work").waitFor();
      const refusal = "Only an owner can shorten the hold window.";
      await memberPage.getByRole("group", { name: "Safety" }).getByText(refusal, { exact: true }).waitFor();
      await waitUntil(
        () => memberHold.evaluate((field) => field === document.activeElement),
        "the refused hold window has the focus",
      );
      assert.equal(await memberHold.getAttribute("aria-invalid"), "true");
      assert.equal(await memberPage.getByText("Job done postcard is saved.").count(), 0, "never said saved");
      assert.equal(await memberPage.getByText("hold_minutes").count(), 0, "no field code shows");
      assert.equal((await savedSafety()).hold_minutes, holdBefore, "the hold window was not saved");
      assert.equal(await savedOffer(), offerBefore, "nor the offer");
    } finally {
      await memberPage.close();
    }
  });

  it("a new automation set to approve each card saves without asking, and its first card waits for approval", async () => {
    await open("/automations/new", "New automation");
    await page.getByRole("textbox", { name: /^Name/ }).fill("Roof check-in");
    await page.getByRole("combobox", { name: "Event type" }).fill("roof.inspected");
    await page.keyboard.press("Escape");
    const safety = page.getByRole("group", { name: "Safety" });
    const approval = safety.getByRole("switch", { name: "Approve each card before print" });
    // Mantine's switch input is visually hidden; a click event on it toggles it as a label click would.
    await approval.dispatchEvent("click");
    assert.equal(await approval.isChecked(), true);
    assert.equal(await page.getByRole("switch", { name: "Enabled" }).isChecked(), true);
    await safety.scrollIntoViewIfNeeded();
    await checkBothWidths("automation-builder-new-approval");

    browserPrompts = [];
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();
    await page.getByRole("link", { name: "Roof check-in" }).waitFor();
    assert.deepEqual(browserPrompts, [], "the browser asked nothing");
    assert.equal(await leaveDialog().count(), 0, "the save asked nothing");

    const answer = await app.sendEvent(
      apiKey,
      jobEvent("roof-inspected-1", { street: "9 Rafter Row", client_name: "Ray Rafter" }, "roof.inspected"),
    );
    assert.equal(answer.outcomes?.[0]?.reason, "queued", JSON.stringify(answer));
    let status = "";
    await waitUntil(async () => {
      const campaigns = await app.campaigns(orgId);
      const piece = campaigns
        .flatMap((campaign) => campaign.pieces)
        .find((p) => p.address.startsWith("9 Rafter"));
      status = piece?.status ?? "";
      return status !== "" && status !== "queued";
    }, "the card of roof.inspected leaves queued");
    assert.equal(status, "awaiting_approval", "the very first card waits for approval");
  });

  it("with an offer in Settings, a new automation's own text fits as offered; text that does not names that offer", async () => {
    await open("/settings?tab=profile", "Settings");
    await page.getByLabel("Offer", { exact: true }).fill("Free gutter check with any roof repair");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your business profile is saved.").waitFor();

    await open("/automations/new", "New automation");
    await page.getByRole("textbox", { name: /^Name/ }).fill("Offer fits");
    await page.getByRole("combobox", { name: "Event type" }).fill("job.completed");
    await page.keyboard.press("Escape");
    await page.getByText("The text fits the 4x6 card, merge fields counted at their longest.").waitFor();
    const typed = await message().inputValue();
    await message().fill(
      `${typed} ${"We also clean gutters and fix storm damage on every street nearby. ".repeat(3)}`,
    );
    const tooLong = page.getByRole("status").filter({ hasText: "The text does not fit the card" });
    await tooLong
      .getByText("Your offer from Settings (Business profile) prints under the message", { exact: false })
      .waitFor();
    await message().fill(typed);
    await page.getByText("The text fits the 4x6 card, merge fields counted at their longest.").waitFor();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();
    await page.getByRole("link", { name: "Offer fits" }).waitFor();
  });
});
