/**
 * A sixth walk's fixes, checked as a person meets them in a real browser against the real service:
 * a card that names nobody is to "Current Resident" in the app as on the printed card, and a list
 * that fits one page shows no pager ("Page 1" alone said nothing). Screens: axe-core and screenshots
 * in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@walk6.test", name: "Vera Walker", password: "correct horse battery" };

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;

describe("fixes from a sixth walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-6" });
    page = await app.newPage();
    screens = app.screens(page);
    const { orgId, apiKey } = await app.ownerWithAutomation(page, "Walk Six Roofing", OWNER);
    const next = app.newPieces(orgId);
    await app.sendEvent(apiKey, jobEvent("walk6-1", { street: "31 Oak St" }));
    await next("a job at 31 Oak St, named nobody");
  });

  after(async () => {
    await app?.close();
  });

  it("Mail names a card to nobody as the card prints it, and one page of cards has no pager", async () => {
    await screens.open("/mail", "Mail");
    const row = page.getByRole("row").filter({ hasText: "31 Oak St" });
    await row.getByRole("link", { name: "Current Resident", exact: true }).waitFor();
    assert.equal(await page.getByText(/^Page \d+$/).count(), 0, "no page number under one page");
    assert.equal(await page.getByRole("button", { name: /^(Older|Newer)$/ }).count(), 0);
    await screens.checkBothWidths("walk6-mail-one-page");

    // A phone shows Proof, Recipient and Status: the address is said under the name, on the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    const underName = row.getByRole("cell").nth(1).getByText("31 Oak St, Springfield, IL 62704");
    await underName.waitFor();
    // The app's frame slides the navigation away when the window narrows: judged once it has.
    await waitUntil(async () => {
      const box = await underName.boundingBox();
      return box !== null && box.x + box.width <= 390;
    }, "the address under the name is on the phone's screen");
    await page.setViewportSize({ width: 1280, height: 800 });
    // The row is laid out again once the app has seen the window widen (a media query's listener).
    await underName.waitFor({ state: "hidden", timeout: 5_000 });
    // A wide screen has the Address column instead.
    await row.getByRole("cell", { name: "31 Oak St, Springfield, IL 62704", exact: true }).waitFor();

    await row.getByRole("link", { name: "Current Resident", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Postcard to Current Resident" }).waitFor();
  });

  it("Leads, with one page of leads or none, has no pager either", async () => {
    await screens.open("/leads", "Leads");
    await page.getByRole("heading", { name: "No leads yet" }).waitFor();
    assert.equal(await page.getByText(/^Page \d+$/).count(), 0);
  });
});
