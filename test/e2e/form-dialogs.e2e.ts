/**
 * The form dialogs that create something shown only once, while their request is in flight, in a real
 * browser against the real service: Create API key (the key) and Add endpoint (its signing secret).
 * They share the confirm dialogs' rule (`web/src/ui/in-flight-modal.ts`): with the request held
 * (Playwright's page.route), Escape, the close button, Cancel and a click outside leave the dialog
 * open, the submit spins and the focus stays in it; let through, the key or secret is shown, and is
 * put away by its button, not by a click beside it. A double-click adds one endpoint.
 * Screens: axe-core and screenshots of the pending dialog in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { screenshot, seriousViolations, VIEWPORTS } from "./browser.ts";
import { holdNextRequest } from "./page-probes.ts";
import { type App, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@forms.test", name: "Fern Forms", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];

/** Holds the page's next app API request that matches until `release()` lets it through. */
async function holdNext(method: string, path: RegExp) {
  const request = holdNextRequest(page, method, path);
  await request.start();
  return request;
}

/**
 * While the dialog's request is held: its submit spins, the focus stays in it, and neither Escape,
 * the close button, Cancel nor a click outside closes it. Axe and a screenshot at both widths.
 */
async function tryToCloseWhilePending(dialog: Locator, submit: string, name: string) {
  const action = dialog.getByRole("button", { name: submit });
  await waitUntil(
    async () => (await action.getAttribute("data-loading")) !== null,
    `${submit} shows it is loading`,
    10_000,
  );
  const cancel = dialog.getByRole("button", { name: "Cancel" });
  assert.ok(await cancel.isDisabled(), "Cancel is disabled");
  const close = dialog.getByRole("button", { name: "Close" });
  assert.ok(await close.isDisabled(), "the close button is disabled");
  const inDialog = () => dialog.evaluate((element) => element.contains(document.activeElement));
  assert.ok(await inDialog(), "the focus stays in the dialog");
  await page.keyboard.press("Escape");
  await close.click({ force: true });
  await cancel.click({ force: true });
  // The overlay around the dialog, at the window's top-left corner.
  await page.mouse.click(5, 5);
  await page.waitForTimeout(400);
  assert.ok(await dialog.isVisible(), "the dialog is still open while its request is in flight");
  assert.ok(await inDialog(), "the focus is still in the dialog");
  for (const viewport of ["phone", "desktop"] as const) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    await screenshot(page, `${name}-pending`, viewport);
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `axe with ${name} pending (${viewport}):\n${violations.join("\n")}`);
  }
  assert.ok(await dialog.isVisible(), "still open after the screenshots");
}

describe("form dialogs that create something shown once, while their request is in flight", () => {
  before(async () => {
    app = await startApp({
      name: "form-dialogs",
      // A webhook endpoint on loopback is let through the SSRF guard; nothing is delivered to it here.
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1,localhost" },
    });
    page = await app.newPage();
    ({ open } = app.screens(page));
    await app.signUpOwner(page, "Careful Forms", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("Create API key stays open while the key is made, then shows the key", async () => {
    await open("/developers?tab=keys", "Developers");
    await page.getByRole("button", { name: "Create API key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create API key" });
    await dialog.getByRole("textbox", { name: /Name/ }).fill("Held CRM");
    const request = await holdNext("POST", /\/keys$/);
    await dialog.getByRole("button", { name: "Create key" }).click();
    await request.held;
    await tryToCloseWhilePending(dialog, "Create key", "create-api-key");
    request.release();
    const shown = page.getByRole("dialog", { name: "Your new API key" });
    await shown.waitFor();
    assert.match((await shown.getByLabel("New API key", { exact: true }).textContent()) ?? "", /\S{20,}/);
    await shown.getByRole("button", { name: "Done" }).click();
    await shown.waitFor({ state: "hidden" });
    await page.getByRole("cell").getByText("Held CRM", { exact: true }).waitFor();
  });

  it("Add endpoint stays open while the endpoint is added, then shows its signing secret", async () => {
    const target = "https://localhost:9/held";
    await open("/developers?tab=webhooks", "Developers");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByRole("textbox", { name: /Endpoint URL/ }).fill(target);
    const request = await holdNext("POST", /\/subscriptions$/);
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await request.held;
    await tryToCloseWhilePending(dialog, "Add endpoint", "add-endpoint");
    request.release();
    const shown = page.getByRole("dialog", { name: "Endpoint added" });
    await shown.waitFor();
    assert.match((await shown.getByLabel("Signing secret", { exact: true }).textContent()) ?? "", /\S{20,}/);
    await shown.getByRole("button", { name: "Done" }).click();
    await shown.waitFor({ state: "hidden" });
    await page.getByRole("region", { name: target }).waitFor();
  });

  it("a double-click on Add endpoint adds one, and a click beside its secret does not put it away", async () => {
    const target = "https://localhost:9/double";
    await open("/developers?tab=webhooks", "Developers");
    await page.getByRole("button", { name: "Add endpoint" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await dialog.getByRole("textbox", { name: /Endpoint URL/ }).fill(target);
    // The server would refuse a second add of the URL (409): what is counted is the requests sent.
    let adds = 0;
    const countAdds = (request: { method: () => string; url: () => string }) => {
      if (request.method() === "POST" && new URL(request.url()).pathname.endsWith("/subscriptions")) adds++;
    };
    page.on("request", countAdds);
    await dialog.getByRole("button", { name: "Add endpoint" }).dblclick();
    const shown = page.getByRole("dialog", { name: "Endpoint added" });
    await shown.getByLabel("Signing secret", { exact: true }).waitFor();
    // Where the second click of a double-click lands as the shorter dialog opens: beside it.
    await page.mouse.click(4, 4);
    await page.waitForTimeout(300);
    assert.ok(await shown.isVisible(), "a click beside the secret's dialog does not close it");
    await shown.getByRole("button", { name: "Done" }).click();
    await shown.waitFor({ state: "hidden" });
    await page.getByRole("region", { name: target }).waitFor();
    page.off("request", countAdds);
    assert.equal(adds, 1, "a double-click sent one add");
    assert.equal(await page.getByRole("region", { name: target }).count(), 1);
  });
});
