/**
 * The developer guides as a CRM's developer reads them, in a real browser against the real service:
 * from the API reference's intro to the quickstart's page, between guides, and back. axe-core (no
 * serious or critical WCAG A/AA violation, no structure problem) and screenshots at desktop and
 * phone width in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { screenshot, seriousAndStructureViolations, VIEWPORTS } from "./browser.ts";
import { type App, startApp } from "./session.ts";

let app: App;
let page: Page;

async function checkGuide(name: string) {
  for (const viewport of ["desktop", "phone"] as const) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    const { serious, structure } = await seriousAndStructureViolations(page);
    assert.deepEqual(serious, [], `${name} at ${viewport}`);
    assert.deepEqual(structure, [], `${name} at ${viewport}`);
    await screenshot(page, name, viewport);
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

describe("the developer guides in the browser", () => {
  before(async () => {
    app = await startApp({ name: "docs-guides" });
  });

  after(async () => {
    await app?.close();
  });

  /** The top bar's logo, drawn in this browser's fonts: the version starts after the name ends. */
  async function logoReadsApart(reference: Page) {
    const source = await reference.locator(".topbar img").first().getAttribute("src");
    assert.ok(source?.startsWith("data:image/svg+xml;base64,"), "the top bar shows the product's logo");
    const svg = Buffer.from(String(source).slice(String(source).indexOf(",") + 1), "base64").toString("utf8");
    const drawn = await app.newPage();
    await drawn.setContent(svg);
    const [name, version] = await drawn
      .locator("tspan")
      .evaluateAll((spans) =>
        spans
          .map((span) => span.getBoundingClientRect())
          .map((box) => ({ left: box.left, right: box.right })),
      );
    assert.ok(
      name && version && name.right <= version.left,
      `name ${JSON.stringify(name)} before version ${JSON.stringify(version)}`,
    );
    const svgBox = await drawn.locator("svg").evaluate((element) => element.getBoundingClientRect().right);
    assert.ok(version.right <= svgBox, "the version is inside the logo");
    await drawn.context().close();
  }

  it("the reference's intro opens the quickstart as a page; its links lead between guides and back", async () => {
    const failures: string[] = [];
    const reference = await app.newPage();
    await reference.goto(`${app.base}/docs`);
    await logoReadsApart(reference);
    // Swagger UI opens the description's links in a new tab.
    const [opened] = await Promise.all([
      reference.context().waitForEvent("page"),
      reference.getByRole("link", { name: "quickstart" }).click(),
    ]);
    await opened.waitForURL("**/docs/guides/quickstart");
    await reference.close();
    page = opened;
    page.on("console", (message) => {
      if (message.type() === "error") failures.push(message.text());
    });
    await page.getByRole("heading", { level: 1, name: /^Quickstart/ }).waitFor();
    await page.getByRole("heading", { level: 2, name: "4. Send the first event" }).waitFor();
    const current = page.getByRole("navigation", { name: "Developer guides" }).getByRole("link", {
      name: "Quickstart",
    });
    assert.equal(await current.getAttribute("aria-current"), "page");
    await checkGuide("guide-quickstart");

    await page.getByRole("main").getByRole("link", { name: "webhooks.md" }).last().click();
    await page.waitForURL("**/docs/guides/webhooks#polling");
    const polling = page.getByRole("heading", { name: "Polling" });
    assert.ok(await polling.isVisible(), "the link lands on its section");
    await checkGuide("guide-webhooks");

    await page
      .getByRole("navigation", { name: "Developer guides" })
      .getByRole("link", { name: "API reference" })
      .click();
    await page.waitForURL("**/docs");
    assert.deepEqual(failures, [], "no console error (a style the policy refused, say)");
  });
});
