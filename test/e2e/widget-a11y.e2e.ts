/**
 * Widgets that open over a screen, judged open by axe-core (a screen's check sees them closed): the
 * builder's "Insert merge field" menu and Settings' Brand color picker. Screenshots at 1280 px.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { ARTIFACTS, seriousViolations } from "./browser.ts";
import { type App, startApp } from "./session.ts";

const OWNER = { email: "owner@widgets.test", name: "Wren Widget", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let orgId: string;
let automationId: string;

describe("widgets opened over a screen", () => {
  before(async () => {
    app = await startApp({ name: "widgets" });
    page = await app.newPage();
    ({ open } = app.screens(page));
    orgId = await app.signUpOwner(page, "Wren Roofing", OWNER);
    automationId = (
      await app.operator("POST", `/orgs/${orgId}/automations`, {
        name: "Roof check postcard",
        trigger: { type: "custom_api", event_type: "job.completed" },
      })
    ).id;
  });
  after(async () => {
    await app?.close();
  });

  it("the Insert merge field menu, open: no serious axe finding, and a field chosen lands in the message", async () => {
    await open(`/automations/${automationId}`, "Roof check postcard");
    await page.getByRole("button", { name: "Insert merge field" }).click();
    const menu = page.getByRole("menu");
    await menu.waitFor();
    const item = menu.getByRole("menuitem", { name: /Customer name/ });
    await item.hover();
    const violations = await seriousViolations(page);
    // The window as it is (a full-page shot resizes it, and the menu closes).
    await page.screenshot({ path: path.join(ARTIFACTS, "merge-field-menu-desktop.png") });
    assert.deepEqual(violations, [], `axe with the merge field menu open:\n${violations.join("\n")}`);
    await item.click();
    const message = page.getByRole("textbox", { name: /^Message/ });
    assert.match(await message.inputValue(), /\{\{client_name\}\}/);

    // By keyboard: opened with Enter, the arrow keys walk the fields, Enter inserts one.
    await message.fill("Hi ");
    const button = page.getByRole("button", { name: "Insert merge field" });
    await button.focus();
    await page.keyboard.press("Enter");
    await menu.waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await menu.waitFor({ state: "hidden" });
    assert.match(await message.inputValue(), /^Hi \{\{(client_name|street)\}\}/);
  });

  it("the Brand color picker, open: no serious axe finding", async () => {
    await open("/settings?tab=profile", "Settings");
    await page.getByRole("textbox", { name: /^Brand color/ }).click();
    await page.locator(".mantine-ColorInput-dropdown").waitFor();
    const violations = await seriousViolations(page);
    await page.screenshot({ path: path.join(ARTIFACTS, "brand-color-open-desktop.png") });
    const sliders = page.locator(".mantine-ColorInput-dropdown [role=slider]");
    assert.equal(await sliders.count(), 2);
    assert.deepEqual(violations, [], `axe with the colour picker open:\n${violations.join("\n")}`);
  });
});
