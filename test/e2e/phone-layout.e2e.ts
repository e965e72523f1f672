/**
 * The app at phone width (390 px), in a real browser against the real service on a fresh data
 * directory: a tab list wider than the screen (Developers, Settings) shows that more tabs follow, every
 * tab can be scrolled to and, selected by a tap or the arrow keys, stands in full view; and the
 * automation builder's "Preview card" shows the live proof, redrawn with what was just typed, without
 * scrolling the whole form, while the desktop layout keeps the proof beside the form. Each screen: a
 * screenshot in test/e2e/artifacts/ and axe.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { ARTIFACTS, settled, VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, startApp, waitForSamplePicked, waitUntil } from "./session.ts";

const OWNER = { email: "owner@phone.test", name: "Pat Phone", password: "correct horse battery" };
const PHONE_WIDTH = VIEWPORTS.phone.width;
/** The width of a scroller's edge shade (scroll-shades.css: 1.5rem). */
const SHADE = 24;

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;
let automationId: string;

interface Strip {
  tabs: { name: string; left: number; right: number; selected: boolean; focused: boolean }[];
  /** The box the tabs scroll in, and how far they reach beyond it. */
  box: { left: number; right: number; scrollWidth: number; clientWidth: number };
  /** Whether a shade shows at each edge of the box. */
  shades: { left: boolean; right: boolean };
  /** Whether the tabs sit on more than one line. */
  wrapped: boolean;
  /** Whether the tab list's own box (and the line under it) spans every tab. */
  listSpansTabs: boolean;
}

/**
 * The page's tab list as a person sees it: each tab's place on the screen, the box they scroll in
 * (the nearest ancestor that scrolls sideways) and whether a shade shows at its edges (a gradient
 * drawn by the box's frame, its ::before on the left and ::after on the right).
 */
async function tabStrip(): Promise<Strip> {
  // No named functions inside: the test runner's transform would wrap them in a helper the page lacks.
  return page.evaluate(() => {
    const list = document.querySelector<HTMLElement>("[role=tablist]")!;
    let scroller: HTMLElement = list;
    while (scroller.parentElement && !["auto", "scroll"].includes(getComputedStyle(scroller).overflowX))
      scroller = scroller.parentElement;
    const box = scroller.getBoundingClientRect();
    const frame = scroller.parentElement!;
    const tabs = [...list.querySelectorAll<HTMLElement>("[role=tab]")].map((tab) => {
      const place = tab.getBoundingClientRect();
      return {
        name: tab.textContent?.trim() ?? "",
        left: place.left,
        right: place.right,
        selected: tab.getAttribute("aria-selected") === "true",
        focused: tab === document.activeElement,
      };
    });
    const tops = new Set(
      [...list.querySelectorAll("[role=tab]")].map((tab) => Math.round(tab.getBoundingClientRect().top)),
    );
    return {
      tabs,
      box: {
        left: box.left,
        right: box.right,
        scrollWidth: scroller.scrollWidth,
        clientWidth: scroller.clientWidth,
      },
      shades: {
        left: getComputedStyle(frame, "::before").backgroundImage.includes("gradient"),
        right: getComputedStyle(frame, "::after").backgroundImage.includes("gradient"),
      },
      wrapped: tops.size > 1,
      listSpansTabs: tabs.every(
        (tab) =>
          tab.left >= list.getBoundingClientRect().left - 1 &&
          tab.right <= list.getBoundingClientRect().right + 1,
      ),
    };
  });
}

/** Fails unless the named tab stands in full view: on the screen, in its box, and under no shade. */
function assertInView(strip: Strip, name: string, what: string) {
  const tab = strip.tabs.find((each) => each.name === name);
  assert.ok(tab, `${what}: there is a tab ${name}`);
  const left = strip.box.left + (strip.shades.left ? SHADE : 0);
  const right = strip.box.right - (strip.shades.right ? SHADE : 0);
  assert.ok(
    tab.left >= Math.max(0, left) - 1 && tab.right <= Math.min(PHONE_WIDTH, right) + 1,
    `${what}: ${name} spans ${Math.round(tab.left)}-${Math.round(tab.right)} px, the free part of its box ${Math.round(left)}-${Math.round(right)} px`,
  );
}

const selectedTab = (strip: Strip) => strip.tabs.find((tab) => tab.selected)?.name;
const focusedTab = (strip: Strip) => strip.tabs.find((tab) => tab.focused)?.name;

/** Waits until the tab list has stopped moving (a scroll, a re-render after the URL changed). */
async function stripSettled(): Promise<Strip> {
  await settled(page);
  let previous = JSON.stringify(await tabStrip());
  for (let round = 0; round < 20; round++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await tabStrip();
    if (JSON.stringify(now) === previous) return now;
    previous = JSON.stringify(now);
  }
  return JSON.parse(previous);
}

/**
 * A tab list too wide for a phone (`tabs`: each tab's name and its `?tab=`, in order), opened at
 * `appPath` on its first tab: a shade on the right says more follow, the last tab is past the edge;
 * arrow keys walk every tab, each selected in full view (ArrowLeft from the first wraps to the last);
 * End brings the last into view with focus alone; a link to the last tab opens with it in view.
 */
async function walkTabsByKeyboard(appPath: string, heading: string, tabs: Record<string, string>) {
  await screens.open(appPath, heading);
  let strip = await stripSettled();
  const names = strip.tabs.map((tab) => tab.name);
  assert.deepEqual(names, Object.keys(tabs), `${heading}: the tabs, in order`);
  const tabQuery = (name: string) => tabs[name] ?? name;
  const [first, last] = [names[0]!, names.at(-1)!];
  assert.equal(selectedTab(strip), first);
  assert.ok(!strip.wrapped, `${heading}: the tabs stay on one line`);
  assert.ok(strip.listSpansTabs, `${heading}: the line under the tabs runs under every tab`);
  assert.ok(strip.box.scrollWidth > strip.box.clientWidth, `${heading}: the tabs are wider than a phone`);
  assert.ok(strip.box.right <= PHONE_WIDTH + 1, `${heading}: the tab box ends at the screen's edge`);
  assert.deepEqual(strip.shades, { left: false, right: true }, `${heading}: a shade says more tabs follow`);
  assert.ok(strip.tabs.at(-1)!.right > PHONE_WIDTH, `${heading}: the last tab (${last}) starts out of sight`);

  // The arrow keys go left from the first tab round to the last, then right through every tab.
  await page.getByRole("tab", { name: first, exact: true }).focus();
  await page.keyboard.press("ArrowLeft");
  await page.waitForURL(new RegExp(`tab=${tabQuery(last)}`));
  strip = await stripSettled();
  assert.equal(selectedTab(strip), last, `${heading}: ArrowLeft on the first tab selects the last`);
  assert.equal(focusedTab(strip), last);
  assertInView(strip, last, `${heading}, after ArrowLeft`);
  assert.deepEqual(strip.shades, { left: true, right: false }, `${heading}: the shade moves to the left`);
  for (const name of names) {
    await page.keyboard.press("ArrowRight");
    await page.waitForURL(new RegExp(`tab=${tabQuery(name)}`));
    strip = await stripSettled();
    assert.equal(selectedTab(strip), name, `${heading}: ArrowRight selects ${name}`);
    assert.equal(focusedTab(strip), name);
    assertInView(strip, name, `${heading}, ArrowRight to ${name}`);
  }

  // End moves the focus to the last tab without selecting it; the focused tab comes into view too.
  await page.keyboard.press("End");
  strip = await stripSettled();
  assert.equal(focusedTab(strip), last);
  assertInView(strip, last, `${heading}, after End`);
  await page.keyboard.press("Enter");
  await page.waitForURL(new RegExp(`tab=${tabQuery(last)}`));

  // A link straight to the last tab opens with it selected and in view.
  await screens.open(`${appPath.split("?")[0]}?tab=${tabQuery(last)}`, heading);
  strip = await stripSettled();
  assert.equal(selectedTab(strip), last);
  assertInView(strip, last, `${heading}, opened on ${last}`);
}

describe("the app at phone width: every tab in reach, the card's proof next to what is edited", () => {
  before(async () => {
    app = await startApp({ name: "phone" });
    page = await app.newPage();
    screens = app.screens(page);
    // The builder test leaves an edited form: the browser's "leave the page?" is answered Leave.
    page.on("dialog", (dialog) => dialog.accept());
    const owner = await app.ownerWithAutomation(page, "Pocket Plumbing", OWNER);
    automationId = owner.automationId;
    // A sample of the automation's event type: the builder's proof is drawn with its record.
    await app.sendEvent(
      owner.apiKey,
      jobEvent("job-phone-1", { street: "12 Pocket Lane", client_name: "Polly Pocket" }),
    );
  });

  after(async () => {
    await app?.close();
  });

  it("Developers: the cut-off tabs show a shade, the last is reached by a swipe and stands in view when tapped", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await screens.open("/developers?tab=keys", "Developers");
    let strip = await stripSettled();
    assert.deepEqual(
      strip.tabs.map((tab) => tab.name),
      ["API keys", "Webhooks", "Event samples", "MCP"],
    );
    assert.ok(strip.tabs.at(-1)!.left >= PHONE_WIDTH - 1 || strip.tabs.at(-1)!.right > PHONE_WIDTH);
    assert.deepEqual(strip.shades, { left: false, right: true }, "a shade on the right: more tabs follow");
    await screens.checkScreen("phone-developers-tabs-start", "phone");

    // A sideways swipe over the tabs (a wheel turned sideways) brings the last one into sight.
    const list = page.getByRole("tablist");
    const listBox = (await list.boundingBox())!;
    await page.mouse.move(listBox.x + 40, listBox.y + listBox.height / 2);
    await page.mouse.wheel(600, 0);
    await waitUntil(
      async () => (await tabStrip()).tabs.at(-1)!.right <= PHONE_WIDTH,
      "a sideways swipe brings MCP into sight",
      10_000,
    );
    strip = await stripSettled();
    assert.deepEqual(strip.shades, { left: true, right: false }, "at the end the shade is on the left");
    await screens.checkScreen("phone-developers-tabs-scrolled", "phone");

    const mcp = (await stripSettled()).tabs.at(-1)!;
    await page.mouse.click((mcp.left + mcp.right) / 2, listBox.y + listBox.height / 2);
    await page.waitForURL(/tab=mcp/);
    strip = await stripSettled();
    assert.equal(selectedTab(strip), "MCP");
    assertInView(strip, "MCP", "MCP tapped");
    await screens.checkScreen("phone-developers-tabs-mcp", "phone");
  });

  it("Developers and Settings: the arrow keys reach every tab, each selected in full view at phone width", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await walkTabsByKeyboard("/developers?tab=keys", "Developers", {
      "API keys": "keys",
      Webhooks: "webhooks",
      "Event samples": "samples",
      MCP: "mcp",
    });
    await screens.checkScreen("phone-developers-tabs-keyboard", "phone");
    await walkTabsByKeyboard("/settings?tab=profile", "Settings", {
      "Business profile": "profile",
      Team: "team",
      "Mail safety": "safety",
      Connections: "connections",
      "Your account": "account",
    });
    await screens.checkScreen("phone-settings-tabs-account", "phone");
  });

  it("tab lists that fit show no shade and no scrollbar: Customers on a phone, every tabbed page on a desktop", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await screens.open("/customers?tab=list", "Customers");
    let strip = await stripSettled();
    assert.equal(strip.box.scrollWidth, strip.box.clientWidth, "Customers' two tabs fit a phone");
    assert.deepEqual(strip.shades, { left: false, right: false });
    for (const [appPath, heading] of [
      ["/developers?tab=mcp", "Developers"],
      ["/settings?tab=account", "Settings"],
    ] as const) {
      await page.setViewportSize(VIEWPORTS.desktop);
      await screens.open(appPath, heading);
      strip = await stripSettled();
      assert.equal(strip.box.scrollWidth, strip.box.clientWidth, `${heading}'s tabs fit a desktop`);
      assert.deepEqual(strip.shades, { left: false, right: false }, `${heading}: no shade on a desktop`);
      await screens.checkScreen(`phone-layout-${heading.toLowerCase()}-tabs`, "desktop");
    }
  });

  it("the builder on a phone: Preview card shows the proof, redrawn with the headline just typed, without scrolling the form", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await screens.open(`/automations/${automationId}`, "Job done postcard");
    await waitForSamplePicked(page);
    const preview = page.getByRole("button", { name: "Preview card" });
    await preview.waitFor();
    await screens.checkScreen("phone-builder", "phone");

    // The contractor edits the headline, halfway down the form: the button is on the screen there.
    const headline = page.getByRole("textbox", { name: "Headline" });
    await headline.fill("Fresh pipes for Polly");
    // In the middle of the screen: filled, it sat at the bottom edge, where the button steps aside while
    // the field is typed into (drafts.e2e.ts checks that).
    await headline.evaluate((element) => element.scrollIntoView({ block: "center" }));
    const scrolledTo = await page.evaluate(() => window.scrollY);
    const button = (await preview.boundingBox())!;
    assert.ok(
      button.y >= 0 &&
        button.y + button.height <= VIEWPORTS.phone.height &&
        button.x + button.width <= PHONE_WIDTH,
      `Preview card is on the screen: ${JSON.stringify(button)}`,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, "phone-builder-editing-screen-phone.png") });
    // The proof under the form is out of sight from the headline.
    const inFlow = page.getByRole("region", { name: "Proof" }).first();
    const inFlowBox = (await inFlow.boundingBox())!;
    assert.ok(
      inFlowBox.y > VIEWPORTS.phone.height,
      "the proof under the form is out of sight from the headline",
    );

    await preview.click();
    const sheet = page.getByRole("dialog", { name: "Card preview" });
    await sheet.waitFor();
    const front = sheet.getByRole("img", { name: /^Postcard proof front:/ });
    await waitUntil(
      async () => ((await front.getAttribute("alt")) ?? "").includes("Fresh pipes for Polly"),
      "the proof in the sheet shows the headline just typed",
    );
    await settled(page);
    const frontBox = (await front.boundingBox())!;
    assert.ok(
      frontBox.y >= 0 &&
        frontBox.y + frontBox.height <= VIEWPORTS.phone.height &&
        frontBox.x >= 0 &&
        frontBox.x + frontBox.width <= PHONE_WIDTH,
      `the card's front is on the screen: ${JSON.stringify(frontBox)}`,
    );
    assert.ok(
      frontBox.width >= PHONE_WIDTH * 0.8,
      `the card is drawn nearly screen-wide: ${frontBox.width} px`,
    );
    // What the contractor sees: the sheet over the form (a full-page screenshot would unroll the page).
    await page.screenshot({ path: path.join(ARTIFACTS, "phone-builder-preview-screen-phone.png") });
    assert.equal(await page.evaluate(() => window.scrollY), scrolledTo, "the form stays where it was");

    // Escape closes it and puts the contractor back where they were.
    await page.keyboard.press("Escape");
    await sheet.waitFor({ state: "detached" });
    await settled(page);
    assert.equal(await page.evaluate(() => window.scrollY), scrolledTo, "the form kept its scroll");
    assert.equal(await headline.inputValue(), "Fresh pipes for Polly");
    assert.ok(
      await preview.evaluate((element) => element === document.activeElement),
      "focus is back on Preview card",
    );

    // Open again for the screen's checks (axe with the sheet open); its Close button closes it too.
    await preview.click();
    await sheet.getByRole("img", { name: /^Postcard proof front:/ }).waitFor();
    await screens.checkScreen("phone-builder-preview", "phone");
    await sheet.getByRole("button", { name: "Close" }).click();
    await sheet.waitFor({ state: "detached" });
  });

  it("the builder on a desktop keeps the proof beside the form and shows no Preview card", async () => {
    await page.setViewportSize(VIEWPORTS.desktop);
    await screens.open("/automations/new?event_type=job.completed", "New automation");
    await page.getByRole("button", { name: "Save", exact: true }).waitFor();
    const proof = page.getByRole("region", { name: "Proof" }).first();
    await proof.getByRole("img", { name: /^Postcard proof front:/ }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Preview card" }).isVisible(), false);
    const name = (await page.getByRole("textbox", { name: "Name" }).boundingBox())!;
    const proofBox = (await proof.boundingBox())!;
    assert.ok(proofBox.x >= name.x + name.width, "the proof stands right of the form");
    assert.ok(proofBox.y < VIEWPORTS.desktop.height / 2, "the proof starts in the first screenful");
    await screens.checkScreen("phone-layout-builder", "desktop");

    // The same new automation at phone width has its Preview card (its axe run included).
    await page.setViewportSize(VIEWPORTS.phone);
    await page.getByRole("button", { name: "Preview card" }).waitFor();
    await screens.checkScreen("phone-layout-builder-new", "phone");
    await page.setViewportSize(VIEWPORTS.desktop);
  });
});
