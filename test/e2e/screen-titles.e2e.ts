/**
 * Where a link leads, said as a person with a screen reader or ten browser tabs meets it, in a real
 * browser against the real service: every screen's document title is its heading and the product
 * ("Mail · Porchlight"), so the tab, the history and the screen reader name it; and a link followed
 * from inside a screen (Mail's list to a card) leaves the keyboard's focus on the new screen, not on
 * <body> where the next Tab would start over at the top. Screens: axe-core and screenshots in
 * test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { NAVIGATION_LINKS } from "./browser.ts";
import { describeFocus } from "./page-probes.ts";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@titles.test", name: "Tia Titles", password: "correct horse battery" };

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;
let orgId: string;
let apiKey: string;

const heading = () => page.getByRole("heading", { level: 1 });

/** The document's title once it has become `${screen} · Porchlight`. */
async function titled(screen: string) {
  const expected = `${screen} · Porchlight`;
  await waitUntil(async () => (await page.title()) === expected, `the title reads "${expected}"`);
  return page.title();
}

describe("screens named in the document title, and the focus after a link inside a screen", () => {
  before(async () => {
    app = await startApp({ name: "screen-titles" });
    page = await app.newPage();
    screens = app.screens(page);
    ({ orgId, apiKey } = await app.ownerWithAutomation(page, "Title Plumbing", OWNER));
  });

  after(async () => {
    await app?.close();
  });

  it("each screen of the navigation is titled with its heading", async () => {
    await screens.open("/", "Overview");
    for (const screen of NAVIGATION_LINKS) {
      await page
        .getByRole("navigation", { name: "Main navigation" })
        .getByRole("link", { name: screen })
        .click();
      await heading().filter({ hasText: screen }).waitFor();
      assert.equal(await titled(screen), `${screen} · Porchlight`);
    }
  });

  it("a card opened from Mail's list by the keyboard: its title names the card, and the focus is on the new screen", async () => {
    await app.sendEvent(apiKey, jobEvent("titles-1", { street: "12 Title Lane", client_name: "Tom Tailor" }));
    await app.newPieces(orgId)("the job's card");
    await screens.open("/mail", "Mail");
    const link = page.getByRole("link", { name: "Tom Tailor" });
    await link.focus();
    await page.keyboard.press("Enter");
    await heading().filter({ hasText: "Postcard to Tom Tailor" }).waitFor();
    await titled("Postcard to Tom Tailor");
    await waitUntil(async () => (await describeFocus(page)) !== "body", "the focus is not left on <body>");
    assert.equal(
      await page.evaluate(() => document.activeElement?.closest("#main-content") != null),
      true,
      `the focus is on the card's screen (${await describeFocus(page)})`,
    );
    // The next Tab goes on inside the card's screen, not back to the skip link at the top.
    await page.keyboard.press("Tab");
    assert.equal(
      await page.evaluate(() => document.activeElement?.closest("#main-content") != null),
      true,
      `Tab went on in the screen (${await describeFocus(page)})`,
    );
    await screens.checkScreen("titles-piece-from-list", "desktop");

    // Back: the list is titled again.
    await page.goBack();
    await heading().filter({ hasText: "Mail" }).waitFor();
    await titled("Mail");
  });

  it("a screen reached by its address names itself too: a missing page, the sign-in", async () => {
    await page.goto(`${app.base}/app/no-such-screen`);
    await heading().filter({ hasText: "Page not found" }).waitFor();
    await titled("Page not found");
    const signedOut = await app.newPage();
    await signedOut.goto(`${app.base}/app/sign-in`);
    await signedOut.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await waitUntil(
      async () => (await signedOut.title()) === "Sign in · Porchlight",
      "the sign-in is titled",
    );
    await signedOut.context().close();
  });
});
