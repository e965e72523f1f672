/**
 * Widgets that open over a screen, judged open by axe-core (a screen's check sees them closed): the
 * builder's "Insert merge field" menu and Settings' Brand color picker (screenshots at 1280 px); and
 * Approvals at a phone's width with a name no line can hold.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { ARTIFACTS, seriousAndStructureViolations, seriousViolations, VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@widgets.test", name: "Wren Widget", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let screens: ReturnType<App["screens"]>;
let orgId: string;
let automationId: string;
let apiKey: string;

describe("widgets opened over a screen", () => {
  before(async () => {
    app = await startApp({ name: "widgets" });
    page = await app.newPage();
    screens = app.screens(page);
    ({ open } = screens);
    orgId = await app.signUpOwner(page, "Wren Roofing", OWNER);
    automationId = (
      await app.operator("POST", `/orgs/${orgId}/automations`, {
        name: "Roof check postcard",
        trigger: { type: "custom_api", event_type: "job.completed" },
      })
    ).id;
    apiKey = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
  });
  after(async () => {
    await app?.close();
  });

  it("the Insert merge field menu, open: no serious or structure axe finding, and a field chosen lands in the message", async () => {
    await open(`/automations/${automationId}`, "Roof check postcard");
    await page.getByRole("button", { name: "Insert merge field" }).click();
    const menu = page.getByRole("menu");
    await menu.waitFor();
    const item = menu.getByRole("menuitem", { name: /Customer name/ });
    await item.hover();
    // Open, the menu's fields are inside the page's landmarks (it opens in place, not in a portal).
    const { serious, structure } = await seriousAndStructureViolations(page);
    const violations = [...serious, ...structure];
    // The window as it is (a full-page shot resizes it, and the menu closes).
    await page.screenshot({ path: path.join(ARTIFACTS, "merge-field-menu-desktop.png") });
    assert.deepEqual(violations, [], `axe with the merge field menu open:\n${violations.join("\n")}`);
    await item.click();
    const message = page.getByRole("textbox", { name: /^Message/ });
    assert.match(await message.inputValue(), /\{\{client_name\}\}/);
    // Closed for good (it fades out): the next open is a new menu, not this one leaving.
    await menu.waitFor({ state: "hidden" });

    // By keyboard: opened with Enter, the arrow keys walk the fields, Enter inserts one.
    await message.fill("Hi ");
    const button = page.getByRole("button", { name: "Insert merge field" });
    await button.focus();
    await page.keyboard.press("Enter");
    await menu.waitFor();
    // The opened menu takes the focus (its frame, or its first field), so the arrow keys walk it.
    await waitUntil(
      () => menu.evaluate((element) => element.contains(document.activeElement)),
      "the opened menu has the focus",
      5_000,
    );
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

    // A colour nobody can read is kept as typed and refused on the field, not erased without a word.
    const color = page.getByRole("textbox", { name: /^Brand color/ });
    await color.fill("blue-ish");
    await page.keyboard.press("Escape");
    await page.getByLabel("Phone").first().focus();
    assert.equal(await color.inputValue(), "blue-ish");
    assert.equal(await color.getAttribute("aria-invalid"), "true");
    await page.getByText("Use a color like #1f6feb").waitFor();
    await color.fill("#1f6feb");
    await page.getByLabel("Phone").first().focus();
    assert.equal(await page.getByText("Use a color like #1f6feb").count(), 0);
  });

  it("Approvals at a phone's width: a name with no place to break wraps inside its card", async () => {
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    const name = `Bartholomew${"x".repeat(60)}Longname`;
    await app.sendEvent(apiKey, jobEvent("long-name-1", { street: "12 Approval Ave", client_name: name }));
    await waitUntil(
      async () =>
        (await app.campaigns(orgId)).some((campaign) =>
          campaign.pieces.some((piece) => piece.status === "awaiting_approval"),
        ),
      "the card waits for approval",
      120_000,
    );
    await page.setViewportSize(VIEWPORTS.phone);
    await open("/approvals", "Approvals");
    const card = page.getByRole("listitem", { name: new RegExp(`^Card to ${name}`) });
    await card.getByRole("heading", { name }).waitFor();
    await screens.checkScreen("approvals-long-name", "phone");
    const box = (await card.boundingBox())!;
    assert.ok(
      box.x + box.width <= VIEWPORTS.phone.width,
      `the card ends inside the screen: ${JSON.stringify(box)}`,
    );
    const heading = (await card.getByRole("heading", { name }).boundingBox())!;
    assert.ok(heading.x + heading.width <= box.x + box.width, "the name stays inside its card");
    await page.setViewportSize(VIEWPORTS.desktop);
  });
});
