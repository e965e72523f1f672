/**
 * A tab left open across a release asks for a screen's code the release replaced (content-hashed
 * files): the app loads itself again, once, and opens the screen (TanStack Router's lazy route
 * components reload the page on a module that is not found, once for each file a tab misses).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@release.test", name: "Rita Lease", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];

describe("a tab open across a release", () => {
  before(async () => {
    app = await startApp({ name: "new-release" });
    page = await app.newPage();
    ({ open } = app.screens(page));
    await app.ownerWithAutomation(page, "Release Roofing", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("a screen whose code the release removed opens after one reload of the app", async () => {
    await open("/", "Overview");
    // The release: the old Revenue screen's file is gone until the app loads itself again.
    let loads = 0;
    page.on("load", () => {
      loads += 1;
    });
    const asked: number[] = [];
    await page.route(/\/app\/assets\/RevenuePage-[^/]+\.js$/, (route) => {
      asked.push(loads === 0 ? 404 : 200);
      return loads === 0 ? route.fulfill({ status: 404, body: "gone" }) : route.continue();
    });
    // Resting the mouse on the link preloads the screen: a failed preload reloads nothing (a form being
    // typed in would lose what was typed), only opening the screen does.
    const revenueLink = page.getByRole("link", { name: "Revenue" }).first();
    await revenueLink.hover();
    // The preload has failed (its answer came and went) before the click: a click joining a preload
    // still on its way shows the screen's error instead (the router's, with its retry).
    await waitUntil(async () => asked.includes(404), "the hover's preload was refused the file");
    await page.waitForTimeout(1_000);
    assert.equal(loads, 0, "a hover reloads nothing");
    await revenueLink.click();
    await page.getByRole("heading", { level: 1, name: "Revenue" }).waitFor();
    assert.equal(asked.at(-1), 200, "asked again after the reload, and served");
    assert.ok(asked.includes(404), "the old tab was refused the file first");
    assert.equal(loads, 1, "the app loaded itself again once");
    assert.match(page.url(), /\/app\/revenue/);
  });
});
