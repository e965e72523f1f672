/**
 * A second contractor's walk, fixed and checked as a person meets it, in a real browser against the
 * real service: Add filter takes the keyboard to the new filter, a failed save shows its errors with no
 * list over them, a saved automation is confirmed and its row has the focus, the API keys table reads
 * whole on a phone, the landing page's "mailed to" box is evenly spaced, Overview loads under one
 * loader, and busy buttons keep the focus. Screens: axe-core and screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { screenshot, seriousViolations, VIEWPORTS } from "./browser.ts";
import { clickWithRequestHeld, holdNextRequest, waitForFocus } from "./page-probes.ts";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@walk2.test", name: "Wanda Walker", password: "correct horse battery" };

let app: App;
let page: Page;
let orgId: string;
let apiKey: string;
let screens: ReturnType<App["screens"]>;

const openLists = () => page.locator('[role="listbox"]:visible').count();

describe("fixes from a second walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-2" });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Walk Gutters", OWNER);
    apiKey = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    // A sample of the event, so the filter's property picker offers its properties.
    await app.sendEvent(
      apiKey,
      jobEvent("walk2-sample-1", { street: "742 Evergreen Terrace", status: "done" }),
    );
  });

  after(async () => {
    await app?.close();
  });

  it("Overview's first load shows one loader, not one per section", async () => {
    const held = holdNextRequest(page, "GET", /\/app\/api\/v1\/overview$/);
    await held.start();
    await page.goto(`${app.base}/app/`);
    await held.held;
    await page.getByText("Loading your overview…").waitFor();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    // The other reads answer meanwhile: still the one loader.
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator(".mantine-Loader-root:visible").count(), 1, "one loader shows");
    await screenshot(page, "walk2-overview-loading", "desktop");
    held.release();
    await page.getByRole("heading", { name: "Needs attention" }).waitFor();
    assert.equal(await page.locator(".mantine-Loader-root:visible").count(), 0, "no section spins after");
    await screens.checkBothWidths("walk2-overview");
  });

  it("Add filter takes the focus to the new filter; a failed save shows its error with no list over it", async () => {
    await screens.open("/automations/new?event_type=job.completed", "New automation");
    await page.getByRole("textbox", { name: "Name" }).fill("Filtered postcard");
    await waitUntil(
      async () => (await page.getByRole("combobox", { name: "Sample record" }).inputValue()) !== "",
      "the sample is picked",
      30_000,
    );
    await page.getByRole("button", { name: "Add filter" }).click();
    const property = page.getByRole("combobox", { name: "Filter 1 property" });
    await waitForFocus(page, property, "Filter 1 property");
    assert.equal(await openLists(), 0, "the focus alone opens no list");

    // The list opened and Enter pressed with no property picked: the save fails on the property.
    await property.click();
    await page.getByRole("option", { name: "status" }).waitFor();
    await page.keyboard.press("Enter");
    const error = page.getByText("Pick a property");
    await error.waitFor();
    await waitForFocus(page, property, "Filter 1 property");
    assert.equal(await openLists(), 0, "no list covers the error");
    assert.ok(await error.isVisible());
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `axe on the failed save:\n${violations.join("\n")}`);
    await screens.checkBothWidths("walk2-builder-filter-refused");

    // Typing clears the error and the list offers the properties again.
    await property.click();
    await property.fill("sta");
    await page.getByRole("option", { name: "status" }).click();
    await page.getByLabel("Filter 1 value", { exact: true }).fill("done");
  });

  it("Test with a sample keeps the focus on its button; Save says the automation is saved and focuses its row", async () => {
    const test = page.getByRole("button", { name: "Test with a sample" });
    await test.click();
    await page.locator('.mantine-Alert-root[role="status"]').first().waitFor();
    await waitForFocus(page, test, "Test with a sample");

    // The focus goes to the row once, not first to the screen's main region (a screen reader said both).
    await page.evaluate(() => {
      const seen = window as unknown as { mainFocused?: boolean };
      seen.mainFocused = false;
      document.addEventListener("focusin", (event) => {
        if ((event.target as HTMLElement).id === "main-content") seen.mainFocused = true;
      });
    });
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();
    const toast = page.locator(".mantine-Notification-root").filter({ hasText: "Automation saved" });
    await toast.getByText("Filtered postcard is saved.").waitFor();
    assert.ok(await toast.isVisible(), "the confirmation shows");
    await waitForFocus(
      page,
      page.getByRole("link", { name: "Filtered postcard" }),
      "the saved automation's link",
    );
    assert.equal(
      await page.evaluate(() => (window as unknown as { mainFocused?: boolean }).mainFocused),
      false,
      "main never took the focus on the way",
    );
    await screenshot(page, "walk2-automation-saved", "desktop");
  });

  it("the API keys table reads whole on a phone: the Created date is not under Revoke", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await screens.open("/developers?tab=keys", "Developers");
    const table = page.getByRole("region", { name: "API keys" });
    const row = table.getByRole("row").nth(1);
    await row.waitFor();
    const created = row.getByText(/^Created /);
    const revoke = row.getByRole("button", { name: /^Revoke/ });
    await waitUntil(async () => {
      const [createdBox, revokeBox] = [await created.boundingBox(), await revoke.boundingBox()];
      return createdBox !== null && revokeBox !== null && createdBox.x + createdBox.width <= revokeBox.x;
    }, "the Created date ends left of Revoke");
    const createdBox = (await created.boundingBox())!;
    assert.ok(createdBox.x >= 0 && createdBox.x + createdBox.width <= VIEWPORTS.phone.width, "in the screen");
    const width = await table.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
    }));
    assert.ok(width.scroll <= width.client, `the table fits without scrolling (${JSON.stringify(width)})`);
    await screens.checkBothWidths("walk2-developers-keys");
  });

  it("Create API key, failed, gives the focus back to Create key; Save name keeps it", async () => {
    await screens.open("/developers?tab=keys", "Developers");
    await page.getByRole("button", { name: "Create API key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create API key" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Website");
    const create = dialog.getByRole("button", { name: "Create key" });
    const failing = await clickWithRequestHeld(page, create, "POST", /\/keys$/);
    failing.release({ status: 500, code: "internal_error", message: "Something went wrong on our side." });
    await dialog.getByText("Something went wrong on our side.").waitFor();
    await waitForFocus(page, create, "Create key");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });

    await screens.open("/settings?tab=account", "Settings");
    await page.getByRole("textbox", { name: "Your name" }).fill("Wanda W. Walker");
    const saveName = page.getByRole("button", { name: "Save name" });
    await saveName.click();
    await page.getByText("Your name is saved.").waitFor();
    await waitForFocus(page, saveName, "Save name");
  });

  it("Upload logo, refused, gives the focus to the file field that says why", async () => {
    await screens.open("/settings?tab=profile", "Settings");
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: Buffer.from("not a picture") });
    const upload = page.getByRole("button", { name: "Upload logo" });
    await upload.click();
    const fileField = page.getByRole("button", { name: "Logo file" });
    await waitUntil(
      async () => (await fileField.getAttribute("aria-invalid")) === "true",
      "the refusal shows",
    );
    await waitForFocus(page, fileField, "the Logo file field");
  });

  it("the landing page's 'This card was mailed to' box is as tall above its text as below", async () => {
    await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    await app.sendEvent(apiKey, jobEvent("walk2-job-1", { street: "742 Evergreen Terrace" }));
    let landingUrl = "";
    await waitUntil(async () => {
      const piece = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces)[0];
      landingUrl = piece?.status === "mailed" ? piece.landing_url : "";
      return landingUrl !== "";
    }, "the card is mailed");
    await page.goto(landingUrl);
    const box = page.locator(".card").filter({ hasText: "This card was mailed to" });
    await box.waitFor();
    const spacing = await box.evaluate((card) => {
      const style = getComputedStyle(card);
      const frame = card.getBoundingClientRect();
      const texts = [...card.children].map((child) => child.getBoundingClientRect());
      const first = texts[0]!;
      const last = texts[texts.length - 1]!;
      return {
        top: first.top - frame.top,
        bottom: frame.bottom - last.bottom,
        padding: Number.parseFloat(style.paddingTop),
      };
    });
    assert.ok(Math.abs(spacing.top - spacing.bottom) <= 1, `even spacing: ${JSON.stringify(spacing)}`);
    assert.ok(Math.abs(spacing.top - spacing.padding) <= 1, `the padding alone: ${JSON.stringify(spacing)}`);
    await screens.checkBothWidths("walk2-landing-page");
  });
});
