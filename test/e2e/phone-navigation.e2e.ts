/**
 * The navigation at phone width (390 px), behind its menu button, in a real browser against the real
 * service: closed, its links are out of the Tab order (a keyboard user never lands on a link they
 * cannot see) and the button says it is collapsed (aria-expanded, aria-controls naming the
 * navigation); opened, Tab reaches every link, and choosing one opens its page and closes the menu.
 * On a desktop (1280 px) the navigation always shows and Tab reaches its links. Each screen: axe-core
 * and a screenshot in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { ARTIFACTS, NAVIGATION_LINKS, settled, VIEWPORTS, type ViewportName } from "./browser.ts";
import { describeFocus } from "./page-probes.ts";
import { type App, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@phone-nav.test", name: "Nora Navigate", password: "correct horse battery" };
/** More Tab presses than the Overview has stops (skip link, header, navigation, the page's links). */
const TAB_PRESSES = 30;

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;

/** The navbar by its element: closed on a phone it is inert, and role queries no longer find it. */
const navbar = () => page.locator("nav.mantine-AppShell-navbar");

/** What a person sees: the screen as it is, the fixed header and navigation where they stand. */
const viewScreenshot = (name: string, viewport: ViewportName) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}-${viewport}.png`) });

interface Stop {
  /** The focused element's tag and name, as `describeFocus` says it. */
  what: string;
  inNavbar: boolean;
  inMain: boolean;
  /** The navigation link's own label when the stop is one (its text before any badge). */
  link: string | null;
}

/**
 * Where the focus is after each of up to `presses` Tab presses from where it is now; the walk ends at
 * the page's end (past its last stop the focus leaves the page: "body"), before it starts over.
 */
async function tabWalk(presses: number): Promise<Stop[]> {
  const stops: Stop[] = [];
  for (let press = 0; press < presses; press++) {
    await page.keyboard.press("Tab");
    const what = await describeFocus(page);
    if (what === "body") break;
    // No named functions inside: the test runner's transform would wrap them in a helper the page lacks.
    const place = await page.evaluate(() => {
      const active = document.activeElement;
      const nav = document.querySelector("nav.mantine-AppShell-navbar");
      const inNavbar = active !== null && nav?.contains(active) === true;
      return {
        inNavbar,
        inMain: active?.closest("#main-content") != null,
        link: inNavbar
          ? (active?.querySelector(".mantine-NavLink-label")?.textContent?.trim() ?? null)
          : null,
      };
    });
    stops.push({ what, ...place });
  }
  return stops;
}

/**
 * Opens the Overview fresh (the focus on the document, Tab starting from the top), once its links
 * have come (the first-run checklist loads after the heading), and lets it settle.
 */
async function openOverviewFromTop() {
  await screens.open("/", "Overview");
  await page.getByRole("region", { name: "Get started" }).getByRole("link").first().waitFor();
  await page.waitForLoadState("networkidle");
  await settled(page);
}

/**
 * The navigation landmarks in Chromium's own accessibility tree, what a screen reader is given
 * (Playwright's role queries do not leave out inert elements).
 */
async function navigationsInTree(): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    return nodes
      .filter((node) => !node.ignored && node.role?.value === "navigation")
      .map((node) => String(node.name?.value ?? ""));
  } finally {
    await cdp.detach();
  }
}

async function burgerState() {
  const burger = page.locator("header .mantine-Burger-root");
  return {
    expanded: await burger.getAttribute("aria-expanded"),
    controls: await burger.getAttribute("aria-controls"),
    label: await burger.getAttribute("aria-label"),
  };
}

describe("the navigation on a phone: out of the Tab order while closed, reachable once opened", () => {
  before(async () => {
    app = await startApp({ name: "phone-navigation" });
    page = await app.newPage();
    screens = app.screens(page);
    await app.signUpOwner(page, "Pocket Painting", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("closed at phone width: Tab never lands in the navigation, and the menu button says it is collapsed", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await openOverviewFromTop();
    const stops = await tabWalk(TAB_PRESSES);
    const inNavbar = stops.filter((stop) => stop.inNavbar).map((stop) => stop.what);
    assert.deepEqual(inNavbar, [], "no Tab press lands in the closed navigation");
    assert.ok(
      stops.some((stop) => stop.what === "button: Open navigation"),
      `Tab reaches the menu button: ${stops.map((stop) => stop.what).join(" | ")}`,
    );
    // The walk went past where the navigation stands in the page, into the page's own links.
    assert.ok(
      stops.some((stop) => stop.inMain),
      `Tab goes on into the page: ${stops.map((stop) => stop.what).join(" | ")}`,
    );

    const burger = page.getByRole("button", { name: "Open navigation" });
    await burger.waitFor();
    const navbarId = await navbar().getAttribute("id");
    assert.ok(navbarId, "the navbar has an id for the button to name");
    assert.deepEqual(await burgerState(), {
      expanded: "false",
      controls: navbarId,
      label: "Open navigation",
    });
    assert.equal(await navbar().evaluate((element) => (element as HTMLElement).inert), true);
    assert.deepEqual(await navigationsInTree(), [], "the closed navigation is out of the accessibility tree");

    await page.evaluate(() => window.scrollTo(0, 0));
    await viewScreenshot("phone-navigation-closed-screen", "phone");
    await screens.checkScreen("phone-navigation-closed", "phone");
  });

  it("opened: the button says so, opening moves nothing, Tab reaches every link; Enter on one opens it and closes the menu", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await openOverviewFromTop();
    const burger = page.getByRole("button", { name: "Open navigation" });
    await burger.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Close navigation" }).waitFor();
    await settled(page);
    const navbarId = await navbar().getAttribute("id");
    assert.deepEqual(await burgerState(), {
      expanded: "true",
      controls: navbarId,
      label: "Close navigation",
    });
    assert.equal(await navbar().evaluate((element) => (element as HTMLElement).inert), false);
    assert.deepEqual(await navigationsInTree(), ["Main navigation"], "the opened navigation is a landmark");
    assert.equal(await describeFocus(page), "button: Close navigation", "the focus stays on the button");
    assert.equal(await page.evaluate(() => window.scrollY), 0, "opening scrolls nothing");
    const box = (await navbar().boundingBox())!;
    assert.ok(
      box.x >= 0 && box.x + box.width <= VIEWPORTS.phone.width + 1,
      `the opened navigation is on the screen: ${JSON.stringify(box)}`,
    );

    assert.match(
      await navbar().innerText(),
      /Signed in to Pocket Painting as /,
      "the opened menu names the business, which a phone's header has no room for",
    );
    await viewScreenshot("phone-navigation-open-screen", "phone");
    await screens.checkScreen("phone-navigation-open", "phone");
    await page.getByRole("button", { name: "Close navigation" }).focus();

    // From the button on, Tab reaches every link of the navigation, in order.
    const stops = await tabWalk(TAB_PRESSES);
    const links = stops.filter((stop) => stop.link !== null).map((stop) => stop.link);
    assert.deepEqual(
      links,
      NAVIGATION_LINKS,
      `Tab reaches each navigation link: ${stops.map((stop) => stop.what).join(" | ")}`,
    );

    // Escape in the opened menu closes it, and the focus goes back to its button.
    await page.getByRole("button", { name: "Close navigation" }).focus();
    // Past Sign out (the header's), into the navigation.
    await tabWalk(2);
    assert.ok(
      await page.evaluate(() => document.activeElement?.closest("nav") != null),
      `Tab from the button goes into the navigation: it is on ${await describeFocus(page)}`,
    );
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Open navigation" }).waitFor();
    assert.equal(
      await describeFocus(page),
      "button: Open navigation",
      "Escape gives the focus back to the button",
    );
    assert.equal((await burgerState()).expanded, "false");
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Close navigation" }).waitFor();
    await settled(page);

    // From the button again, Tab to Customers and Enter: its page opens and the menu closes.
    await page.getByRole("button", { name: "Close navigation" }).focus();
    let stop: Stop | undefined;
    for (let press = 0; press < TAB_PRESSES && stop?.link !== "Customers"; press++) [stop] = await tabWalk(1);
    assert.equal(stop?.link, "Customers", "Tab reaches Customers");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Customers" }).waitFor();
    await page.getByRole("button", { name: "Open navigation" }).waitFor();
    await settled(page);
    assert.equal((await burgerState()).expanded, "false");
    assert.equal(await navbar().evaluate((element) => (element as HTMLElement).inert), true);
    assert.ok(
      await page.evaluate(() => document.activeElement?.closest("#main-content") != null),
      `the focus goes on to the page chosen: it is on ${await describeFocus(page)}`,
    );
    // The next Tab goes into the page, not back into the closed navigation.
    const next = await tabWalk(3);
    assert.deepEqual(
      next.filter((stop) => stop.inNavbar).map((stop) => stop.what),
      [],
      "after choosing, Tab stays out of the closed navigation",
    );
    await viewScreenshot("phone-navigation-chosen-screen", "phone");
  });

  it("a tap on a link in the opened menu opens its page and closes the menu", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await openOverviewFromTop();
    await page.getByRole("button", { name: "Open navigation" }).click();
    const leads = page
      .getByRole("navigation", { name: "Main navigation" })
      .getByRole("link", { name: "Leads" });
    await leads.waitFor();
    await settled(page);
    await leads.click();
    await page.getByRole("heading", { level: 1, name: "Leads" }).waitFor();
    await page.getByRole("button", { name: "Open navigation" }).waitFor();
    await settled(page);
    assert.equal((await burgerState()).expanded, "false");
    assert.equal(await navbar().evaluate((element) => (element as HTMLElement).inert), true);
    const box = (await navbar().boundingBox())!;
    assert.ok(box.x + box.width <= 0, `the closed navigation is off the screen: ${JSON.stringify(box)}`);
    await screens.checkScreen("phone-navigation-after-tap", "phone");
  });

  it("at desktop width the navigation is never inert: Tab reaches its links, and a phone-width window hides it again", async () => {
    await page.setViewportSize(VIEWPORTS.desktop);
    await openOverviewFromTop();
    assert.equal(await page.getByRole("button", { name: /navigation$/ }).isVisible(), false);
    assert.equal(await navbar().evaluate((element) => (element as HTMLElement).inert), false);
    const stops = await tabWalk(TAB_PRESSES);
    assert.deepEqual(
      stops.filter((stop) => stop.link !== null).map((stop) => stop.link),
      NAVIGATION_LINKS,
      `Tab reaches each navigation link: ${stops.map((stop) => stop.what).join(" | ")}`,
    );
    await screens.checkScreen("phone-navigation-desktop", "desktop");

    // The window narrowed to a phone's: the navigation slides away and leaves the Tab order with it.
    await page.setViewportSize(VIEWPORTS.phone);
    await waitUntil(
      () => navbar().evaluate((element) => (element as HTMLElement).inert),
      "the navigation turns inert at phone width",
      10_000,
    );
    assert.equal((await burgerState()).expanded, "false");
    // And widened again, it is back in the Tab order.
    await page.setViewportSize(VIEWPORTS.desktop);
    await waitUntil(
      async () => !(await navbar().evaluate((element) => (element as HTMLElement).inert)),
      "the navigation leaves inert at desktop width",
      10_000,
    );
  });
});
