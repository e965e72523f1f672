/**
 * The contractor's app in a real browser (Debian's Chromium driven by playwright-core) against the real
 * service started as a process on a fresh data directory: invite → set password → signed in → create a
 * key → send an event with it → build an automation from that sample (live proof, test, save) → send
 * another event → the piece is in Mail. Then every screen at desktop and phone width: a screenshot in
 * test/e2e/artifacts/ and axe-core with no serious or critical WCAG A/AA violation, nor any landmark or
 * heading-order finding.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { NAVIGATION_LINKS, seriousViolations, settled, VIEWPORTS } from "./browser.ts";
import { type App, acceptInvitation, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@roofing.test", name: "Rita Roofer", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkScreen: ReturnType<App["screens"]>["checkScreen"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;
let pieceHref = "/mail";

/** WCAG contrast of a text color on a background that may be a translucent tint over white. */
function contrastOnWhite(text: string, background: string): number {
  const channels = (value: string) => (value.match(/[\d.]+/g) ?? []).map(Number);
  const luminance = (rgb: number[]) =>
    rgb
      .slice(0, 3)
      .map((channel) => channel / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
      .reduce((sum, c, index) => sum + c * ([0.2126, 0.7152, 0.0722][index] ?? 0), 0);
  const [r = 255, g = 255, b = 255, alpha = 1] = channels(background);
  const over = (channel: number) => channel * alpha + 255 * (1 - alpha);
  const [lighter, darker] = [luminance(channels(text)), luminance([over(r), over(g), over(b)])].sort(
    (x, y) => y - x,
  );
  return ((lighter ?? 1) + 0.05) / ((darker ?? 0) + 0.05);
}

const sendEvent = (dedupId: string, street: string) =>
  app.sendEvent(
    apiKey,
    jobEvent(dedupId, { street, client_name: "Homer Simpson", status: "completed" }, EVENT_TYPE),
  );

describe("the contractor's web app in a browser", () => {
  before(async () => {
    app = await startApp({ name: "app", firstStart: true });
    page = await app.newPage();
    ({ open, checkScreen, checkBothWidths } = app.screens(page));
  });

  after(async () => {
    await app?.close();
  });

  it("an invited owner sets a name and password and lands signed in on the Overview", async () => {
    const org = await app.operator("POST", "/orgs", { name: "Rita's Roofing" });
    orgId = org.org_id;
    const invitation = await app.operator("POST", `/orgs/${orgId}/invitations`, {
      email: OWNER.email,
      role: "owner",
    });
    assert.match(invitation.invite_url, /\/app\/invite\//);

    await page.goto(invitation.invite_url);
    await page.getByRole("heading", { level: 1, name: /Join Rita's Roofing/ }).waitFor();
    await checkScreen("invite", "desktop");
    await acceptInvitation(page, OWNER);
    const navigation = page.getByRole("navigation", { name: "Main navigation" });
    assert.deepEqual(await navigation.getByRole("link").allInnerTexts(), NAVIGATION_LINKS);
  });

  it("a new organization's Overview shows the first-run checklist with nothing done yet", async () => {
    await open("/", "Overview");
    const checklist = page.getByRole("region", { name: "Get started" });
    await checklist.getByText("0 of 4 done").waitFor();
    const steps = checklist.getByRole("list", { name: "First steps" }).getByRole("listitem");
    assert.deepEqual(
      (await steps.locator("p:first-child").allTextContents()).map((text) => text.trim()),
      [
        "To do: Set up your business",
        "To do: Create an automation",
        "To do: Connect your CRM: get an API key",
        "To do: Send a test event",
      ],
    );
    assert.equal(
      await checklist.getByRole("link", { name: "Get an API key" }).getAttribute("href"),
      "/app/developers?tab=keys",
    );
    await checkBothWidths("overview-checklist");
  });

  it("the app has an icon: index.html links the favicon and the server serves it", async () => {
    const href = await page.locator('link[rel="icon"]').getAttribute("href");
    assert.equal(href, "/app/favicon.svg");
    const icon = await page.request.get(new URL(href ?? "", app.base).toString());
    assert.equal(icon.status(), 200);
    assert.match(icon.headers()["content-type"] ?? "", /^image\/svg\+xml/);
  });

  it("the active navigation item keeps 4.5:1 contrast when hovered (axe, and measured)", async () => {
    await open("/", "Overview");
    const active = page
      .getByRole("navigation", { name: "Main navigation" })
      .getByRole("link", { name: "Overview" });
    assert.equal(await active.getAttribute("aria-current"), "page");
    await active.hover();
    await settled(page);
    const violations = await seriousViolations(page);
    assert.deepEqual(
      violations.filter((line) => line.startsWith("color-contrast")),
      [],
      "no contrast violation with the active item hovered",
    );
    // Read in the page, computed here: a named function inside evaluate() would need tsx's helper.
    const colors = await active.evaluate((link) => ({
      text: getComputedStyle(link.querySelector(".mantine-NavLink-label") ?? link).color,
      background: getComputedStyle(link).backgroundColor,
    }));
    const ratio = contrastOnWhite(colors.text, colors.background);
    assert.ok(ratio >= 4.5, `the hovered active item reads at ${ratio.toFixed(2)}:1`);
    await page.mouse.move(0, 0);
  });

  it("creates an API key that is shown once with a copy button", async () => {
    await open("/developers", "Developers");
    await page.getByRole("button", { name: "Create API key" }).first().click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("CRM");
    await dialog.getByRole("button", { name: "Create key" }).click();
    await dialog.getByRole("button", { name: "Copy key" }).waitFor();
    apiKey = (await dialog.getByLabel("New API key").innerText()).trim();
    assert.match(apiKey, /^ak_/);
    await checkScreen("developers-new-key", "desktop");
    await dialog.getByRole("button", { name: "Done" }).click();
    await page.getByRole("cell").getByText("CRM", { exact: true }).waitFor();
  });

  it("an event sent with that key shows as a sample marked as bound to no automation, without a reload", async () => {
    await open("/developers?tab=samples", "Developers");
    await page.getByText("Waiting for your first event").waitFor();
    await checkBothWidths("developers-samples-waiting");
    const answer = await sendEvent("job-1001-completed", "742 Evergreen Terrace");
    assert.equal(answer.received, true);
    // The empty tab looks again by itself; no navigation here.
    await page.getByRole("button", { name: new RegExp(EVENT_TYPE.replace(".", "\\.")) }).waitFor();
    await page.getByText("No automation", { exact: true }).first().waitFor();
    await open("/", "Overview");
    await page.getByText("Events that mail nothing").waitFor();
  });

  it("builds an automation from the sample with a live proof, tests it and saves it", async () => {
    await open("/automations", "Automations");
    await page.getByRole("link", { name: "New automation" }).first().click();
    await page.getByRole("heading", { level: 1, name: "New automation" }).waitFor();
    await page.getByRole("textbox", { name: /^Name/ }).fill("Job done postcard");
    await page.getByRole("combobox", { name: "Event type" }).fill(EVENT_TYPE);
    await page.keyboard.press("Escape");
    // The newest sample of the type is picked by itself; its properties feed the filters.
    await waitUntil(
      async () => (await page.getByLabel("Sample record").inputValue()) !== "",
      "a sample is picked",
    );
    await page.getByRole("button", { name: "Add filter" }).click();
    await page.getByRole("combobox", { name: "Filter 1 property" }).fill("status");
    await page.keyboard.press("Escape");
    await page.getByLabel("Filter 1 value").fill("completed");
    await page.getByLabel("Headline").fill("Your neighbors on {{street}} chose us");
    const front = page.getByAltText("Postcard proof front");
    const back = page.getByAltText("Postcard proof back");
    await front.waitFor();
    await back.waitFor();
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>("img[alt^='Postcard proof']")].every(
        (image) => image.complete && image.naturalWidth > 0,
      ),
    );
    // The fit notice is the save's own rule, live: the default text fits; a message too long for
    // the card is named with how much fits, at both widths, and a save is refused on its field.
    const fits = page.getByText("The text fits the 4x6 card, merge fields counted at their longest.");
    await fits.waitFor();
    const message = page.getByRole("textbox", { name: "Message" });
    const typed = await message.inputValue();
    await message.fill(
      `${typed} ${"Our crew repairs storm damage, replaces worn shingles and cleans gutters on every street nearby. ".repeat(6)}`,
    );
    const tooLong = page.getByRole("status").filter({ hasText: "The text does not fit the card" });
    await tooLong.waitFor();
    assert.match(
      await tooLong.innerText(),
      /Message: \d+ of its \d+ characters fit the 4x6 card \(merge fields counted at their longest\)\./,
    );
    await checkBothWidths("automation-builder-too-long");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText(/^does not fit the 4x6 card: \d+ of its \d+ characters fit/).waitFor();
    await page.getByRole("heading", { level: 1, name: "New automation" }).waitFor();
    await message.fill(typed);
    await fits.waitFor();
    await page.getByRole("button", { name: "Test with a sample" }).click();
    await page.getByText("A card would be mailed").waitFor();
    await checkBothWidths("automation-builder");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();
    await page.getByRole("link", { name: "Job done postcard" }).waitFor();
  });

  it("a saved automation's proof is drawn for its sample at once: a placeholder, never example data, meanwhile", async () => {
    await open("/automations", "Automations");
    const href = await page.getByRole("link", { name: "Job done postcard" }).getAttribute("href");
    // Proofs are held back until the screen between opening and the proof has been looked at (a
    // fixed delay raced the browser on a slow machine).
    const asked: { sample_id?: string }[] = [];
    let releaseProofs = () => {};
    const proofsReleased = new Promise<void>((resolve) => {
      releaseProofs = resolve;
    });
    await page.route("**/app/api/v1/proofs", async (route) => {
      asked.push(route.request().postDataJSON());
      await proofsReleased;
      await route.continue();
    });
    try {
      // A link the pointer rests on loads the automation ahead (the router's preload), but draws no proof.
      const preloaded = page.waitForRequest((request) =>
        request.url().endsWith(href?.replace(/^\/app/, "") ?? "-"),
      );
      await page.getByRole("link", { name: "Job done postcard" }).hover();
      await preloaded;
      await page.waitForTimeout(500);
      assert.equal(asked.length, 0, "no proof for a link the pointer rests on");
      await open((href ?? "").replace(/^\/app/, ""), "Job done postcard");
      await page.getByRole("status", { name: "Drawing the proof" }).waitFor();
      assert.equal(await page.getByAltText("Postcard proof front").count(), 0, "no card before its proof");
      releaseProofs();
      await page.getByAltText("Postcard proof front").waitFor();
      await page.getByText(/^Drawn with the newest sample record: /).waitFor();
      assert.ok(asked.length > 0, "the proof was asked for");
      assert.ok(
        asked.every((body) => typeof body.sample_id === "string" && body.sample_id !== ""),
        `every proof was drawn for the sample, none with example data: ${JSON.stringify(asked)}`,
      );
    } finally {
      releaseProofs();
      await page.unroute("**/app/api/v1/proofs");
    }
  });

  it("another event mails a piece that appears in Mail", async () => {
    const answer = await sendEvent("job-1002-completed", "744 Evergreen Terrace");
    assert.equal(answer.outcomes?.[0]?.reason, "queued", JSON.stringify(answer));
    for (let attempt = 0; attempt < 30; attempt++) {
      await open("/mail", "Mail");
      if ((await page.getByRole("row").count()) > 1) break;
      await page.waitForTimeout(500);
    }
    assert.ok((await page.getByRole("row").count()) > 1, "Mail lists no piece");
  });

  it("opens the piece's page: both proofs, landing link and tracking timeline", async () => {
    await open("/mail", "Mail");
    const postcards = page.getByRole("region", { name: "Postcards" });
    await postcards.getByRole("img", { name: /Front of the postcard to 744 Evergreen Terrace/ }).waitFor();
    await postcards.getByRole("row").nth(1).getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: /^Postcard to / }).waitFor();
    pieceHref = new URL(page.url()).pathname;
    for (const side of ["Front", "Back"]) {
      const proof = page.getByRole("img", {
        name: new RegExp(`^${side} of the postcard to 744 Evergreen Terrace`),
      });
      await proof.waitFor();
      await page.waitForFunction(
        (name) =>
          [...document.querySelectorAll("img")].some(
            (image) => image.alt.startsWith(name) && image.complete && image.naturalWidth > 0,
          ),
        `${side} of the postcard`,
      );
    }
    const landing = page.getByRole("link", { name: "Open this card's landing page" });
    assert.match((await landing.getAttribute("href")) ?? "", /^https?:\/\//);
    await page.getByText(/\(open until .+\)/).waitFor();
    await page.getByRole("heading", { level: 2, name: "Tracking" }).waitFor();
    await page.getByText("Queued", { exact: true }).first().waitFor();
    // The event's dedup id under a label a contractor reads, not inside the campaign's name.
    const details = page.locator("p", { hasText: "CRM record:" });
    assert.equal((await details.innerText()).trim(), "CRM record: job-1002-completed");
    assert.equal(await page.getByText("Campaign:").count(), 0);
    // Once printed: the local provider in a contractor's words, not "local (mailed)".
    for (let attempt = 0; attempt < 60 && (await page.getByText("Printer:").count()) === 0; attempt++) {
      await page.waitForTimeout(500);
      await page.reload();
      await page.getByRole("heading", { level: 2, name: "Tracking" }).waitFor();
    }
    assert.equal(
      (await page.locator("p", { hasText: "Printer:" }).innerText()).trim(),
      "Printer: Test printer (no real mail is sent)",
    );
  });

  it("a link to a postcard that does not exist says so, and leads back to Mail", async () => {
    await open("/mail/00000000-0000-4000-8000-000000000000", "This postcard was not found");
    assert.equal(await page.getByRole("button", { name: "Try again" }).count(), 0);
    await checkScreen("mail-piece-not-found", "desktop");
    await page.getByRole("link", { name: "Back to Mail" }).click();
    await page.getByRole("heading", { level: 1, name: "Mail" }).waitFor();
  });

  it("filters Mail by status, automation and date, says a date range with no day in it, and clears the filters", async () => {
    await open("/mail", "Mail");
    const postcards = page.getByRole("region", { name: "Postcards" });
    await postcards.waitFor();
    await page.getByRole("combobox", { name: "Status" }).selectOption("failed");
    await page.getByText("No postcards match these filters").waitFor();
    assert.match(page.url(), /status=failed/);
    await page.getByRole("combobox", { name: "Status" }).selectOption("");
    await page.getByRole("combobox", { name: "Automation" }).selectOption({ label: "Job done postcard" });
    await postcards.waitFor();
    assert.ok((await postcards.getByRole("row").count()) > 1, "the automation filter hides its own piece");
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("Created from").fill(tomorrow);
    await page.getByText("No postcards match these filters").waitFor();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("Created to").fill(yesterday);
    await page.getByText("Pick a day on or after Created from").waitFor();
    await checkScreen("mail-filters-empty", "desktop");
    // The empty list's own button clears every filter; the focus goes to the first filter.
    await page.getByRole("button", { name: "Clear filters" }).last().click();
    await postcards.waitFor();
    assert.ok((await postcards.getByRole("row").count()) > 1, "cleared, the pieces show again");
    assert.doesNotMatch(
      page.url(),
      /[?&](status|automation_id|from|to)=/,
      "no filter is left in the address",
    );
    assert.equal(
      await page.getByRole("button", { name: "Clear filters" }).count(),
      0,
      "nothing left to clear",
    );
    await waitUntil(
      async () =>
        (await page.evaluate(() => document.activeElement?.getAttribute("id"))) ===
        (await page.getByRole("combobox", { name: "Automation" }).getAttribute("id")),
      "the Automation filter has the focus",
    );
  });

  it("saves the business profile; a refused save keeps everything typed", async () => {
    await open("/settings?tab=profile", "Settings");
    const header = page.getByRole("banner");
    await header.getByText("Rita's Roofing", { exact: true }).waitFor();
    await page.getByRole("textbox", { name: /^Phone/ }).fill("(217) 555-0199");
    await page.getByRole("textbox", { name: /^Business name/ }).fill("");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Enter the business name printed on your cards").waitFor();
    assert.equal(await page.getByRole("textbox", { name: /^Phone/ }).inputValue(), "(217) 555-0199");
    await page.getByRole("textbox", { name: /^Business name/ }).fill("Rita's Roofing & Gutters");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your business profile is saved.").waitFor();
    // The header shows the business name Settings edits, at once and after a reload.
    await header.getByText("Rita's Roofing & Gutters", { exact: true }).waitFor();
    await open("/settings?tab=profile", "Settings");
    assert.equal(await page.getByRole("textbox", { name: /^Phone/ }).inputValue(), "(217) 555-0199");
    assert.equal(await header.getByText("Rita's Roofing & Gutters", { exact: true }).count(), 1);
  });

  it("the checklist ticks each step from real data, and steps aside once all four are done", async () => {
    await open("/", "Overview");
    const checklist = page.getByRole("region", { name: "Get started" });
    // A key, an event and an automation are there; the profile has a name but no return address yet.
    await checklist.getByText("3 of 4 done").waitFor();
    assert.deepEqual(
      (await checklist.getByRole("listitem").locator("p:first-child").allTextContents()).map((text) =>
        text.trim(),
      ),
      [
        "To do: Set up your business",
        "Done: Create an automation",
        "Done: Connect your CRM: get an API key",
        "Done: Send a test event",
      ],
    );
    await checkScreen("overview-checklist-progress", "desktop");
    const saved = await page.request.patch(`${app.base}/app/api/v1/organization`, {
      headers: { origin: app.base },
      data: {
        return_address: { street: "12 Shingle Rd", city: "Springfield", state: "IL", postal_code: "62704" },
      },
    });
    assert.equal(saved.status(), 200, await saved.text());
    await open("/", "Overview");
    await page.getByRole("heading", { name: "Needs attention" }).waitFor();
    await page.getByRole("heading", { name: "Cards and attributed revenue per month" }).waitFor();
    assert.equal(
      await page.getByRole("region", { name: "Get started" }).count(),
      0,
      "all done: no checklist",
    );
  });

  it("counts the cards awaiting approval beside Approvals in the navigation, and their status badge is whole", async () => {
    await open("/automations", "Automations");
    const href = await page.getByRole("link", { name: "Job done postcard" }).getAttribute("href");
    const automationId = (href ?? "").split("/").at(-1) ?? "";
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    for (const [dedupId, street] of [
      ["job-1003-completed", "746 Evergreen Terrace"],
      ["job-1004-completed", "748 Evergreen Terrace"],
    ] as const) {
      const answer = await sendEvent(dedupId, street);
      assert.equal(answer.outcomes?.[0]?.reason, "queued", JSON.stringify(answer));
    }
    const navigation = page.getByRole("navigation", { name: "Main navigation" });
    const approvals = navigation.getByRole("link", { name: /^Approvals/ });
    await waitUntil(async () => {
      await open("/mail?status=awaiting_approval", "Mail");
      return (await page.getByRole("region", { name: "Postcards" }).getByRole("row").count()) === 3;
    }, "both cards await approval");
    // The badge's number, and for a screen reader what it counts ("2 awaiting approval").
    const approvalsText = async () => ((await approvals.textContent()) ?? "").replace(/\s+/g, " ").trim();
    await waitUntil(
      async () => (await approvalsText()) === "Approvals2 awaiting approval",
      "the badge counts 2",
    );
    assert.equal(await approvals.locator(".mantine-Badge-root").count(), 1);
    // The status badge is never cut ("AWAITING APPROV…"), on a desktop nor a phone.
    for (const viewport of ["desktop", "phone"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await settled(page);
      const cut = await page
        .getByRole("region", { name: "Postcards" })
        .locator(".mantine-Badge-label")
        .evaluateAll((labels) =>
          labels
            .filter((label) => label.scrollWidth > label.clientWidth + 1)
            .map((label) => label.textContent),
        );
      assert.deepEqual(cut, [], `status badges cut at ${viewport}`);
      await checkScreen("mail-awaiting-approval", viewport);
    }
    await page.setViewportSize(VIEWPORTS.desktop);
    await open("/approvals", "Approvals");
    await checkBothWidths("approvals-badge");
    // On a phone the navigation opens from the menu button, with the count beside Approvals.
    await page.setViewportSize(VIEWPORTS.phone);
    await page.getByRole("button", { name: "Open navigation" }).click();
    await approvals.waitFor({ state: "visible" });
    await checkScreen("approvals-badge-navigation", "phone");
    await page.getByRole("button", { name: "Close navigation" }).click();
    await page.setViewportSize(VIEWPORTS.desktop);

    await page.getByRole("checkbox", { name: /^Select all 2 shown/ }).check();
    await page.getByRole("button", { name: "Approve selected (2)" }).click();
    // Approving spends money: it asks first.
    await page
      .getByRole("dialog", { name: "Approve 2 cards for print?" })
      .getByRole("button", { name: "Approve 2 cards" })
      .click();
    await waitUntil(
      async () => (await approvalsText()) === "Approvals",
      "the badge is gone once nothing waits",
    );
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: false });
  });

  it("turns the signed-in member's lead alerts on and off, and the choice survives a reload", async () => {
    await open("/settings?tab=account", "Settings");
    const leadAlerts = page.getByRole("switch", { name: "Email me about every new lead" });
    const wasOn = await leadAlerts.isChecked();
    await leadAlerts.click({ force: true });
    await page.getByText(wasOn ? "Lead alerts are off." : "Lead alerts are on.").waitFor();
    await open("/settings?tab=account", "Settings");
    assert.equal(await leadAlerts.isChecked(), !wasOn);
    await leadAlerts.click({ force: true });
    await page.getByText(wasOn ? "Lead alerts are on." : "Lead alerts are off.").waitFor();
    assert.equal(await leadAlerts.isChecked(), wasOn);
  });

  it("every screen looks right and passes axe (landmarks and heading order too) at desktop and phone width", async () => {
    const automationHref = await (async () => {
      await open("/automations", "Automations");
      return page.getByRole("link", { name: "Job done postcard" }).getAttribute("href");
    })();
    const screens: [string, string, string | RegExp][] = [
      ["overview", "/", "Overview"],
      ["automations", "/automations", "Automations"],
      ["automation-new", "/automations/new", "New automation"],
      ["automation-edit", (automationHref ?? "/app/automations").replace(/^\/app/, ""), "Job done postcard"],
      ["mail", "/mail", "Mail"],
      ["mail-piece", pieceHref.replace(/^\/app/, ""), /^Postcard to /],
      ["leads", "/leads", "Leads"],
      ["approvals", "/approvals", "Approvals"],
      ["revenue", "/revenue", "Revenue"],
      ["customers", "/customers", "Customers"],
      ["developers-keys", "/developers?tab=keys", "Developers"],
      ["developers-webhooks", "/developers?tab=webhooks", "Developers"],
      ["developers-samples", "/developers?tab=samples", "Developers"],
      ["developers-mcp", "/developers?tab=mcp", "Developers"],
      ["settings-profile", "/settings?tab=profile", "Settings"],
      ["settings-team", "/settings?tab=team", "Settings"],
      ["settings-account", "/settings?tab=account", "Settings"],
    ];
    for (const viewport of ["desktop", "phone"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      for (const [name, appPath, heading] of screens) {
        await open(appPath, heading);
        await checkScreen(name, viewport);
        // A table may scroll sideways, but its rows' buttons stay in sight (pinned at its right edge).
        const outOfSight = await page.evaluate(() =>
          [...document.querySelectorAll<HTMLElement>("table button")]
            .filter((button) => {
              const box = button.getBoundingClientRect();
              return box.width > 0 && (box.right > window.innerWidth + 1 || box.left < -1);
            })
            .map((button) => button.getAttribute("aria-label") ?? button.innerText),
        );
        assert.deepEqual(outOfSight, [], `${name} at ${viewport}: table buttons out of sight`);
      }
      // The automations list fits a phone: the trigger sits under the name.
      await open("/automations", "Automations");
      const automationsTable = page.locator("[role=region][aria-label=Automations]");
      const fits = await automationsTable.evaluate((region) => region.scrollWidth <= region.clientWidth);
      assert.ok(fits, `the automations table scrolls sideways at ${viewport}`);
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("signs out, and signs in again on the sign-in screen", async () => {
    await open("/", "Overview");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    for (const viewport of ["desktop", "phone"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await checkScreen("sign-in", viewport);
      await open("/forgot-password", "Reset your password");
      await checkScreen("forgot-password", viewport);
      // A made-up token: the page checks the link as it opens and says it has expired.
      await open("/reset-password?token=e2e-not-a-real-token", "This link has expired");
      await checkScreen("reset-password", viewport);
      await open("/sign-in", "Sign in");
    }
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.getByRole("textbox", { name: /^Email/ }).fill(OWNER.email);
    await page.getByRole("textbox", { name: /^Password/ }).fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
  });

  it("a screen opened afresh reads the session and organization once, from the page's own preload", async () => {
    const reads: string[] = [];
    const count = (request: { url(): string }) => {
      const { pathname } = new URL(request.url());
      if (pathname === "/app/api/v1/session" || pathname === "/app/api/v1/organization") reads.push(pathname);
    };
    page.on("request", count);
    await open("/mail", "Mail");
    await page.getByRole("row").nth(1).waitFor();
    page.off("request", count);
    assert.deepEqual(reads.sort(), ["/app/api/v1/organization", "/app/api/v1/session"]);
  });

  it("a screen opened afresh asks for its own code as the page starts, once, and uses what it asked for", async () => {
    const fresh = await app.newPage();
    try {
      await fresh.context().addCookies(await page.context().cookies());
      const warnings: string[] = [];
      fresh.on("console", (message) => {
        if (message.type() === "warning" || message.type() === "error") warnings.push(message.text());
      });
      const chunkRequests: string[] = [];
      fresh.on("request", (request) => {
        const { pathname } = new URL(request.url());
        if (/^\/app\/assets\/MailPage-[\w-]+\.js$/.test(pathname)) chunkRequests.push(pathname);
      });
      await fresh.goto("/app/mail", { waitUntil: "load" });
      await fresh.getByRole("row").nth(1).waitFor();
      // Asked for by the page's first script, ahead of the app's code in the document; Vite's own
      // preload of a screen's chunk comes after the app's code has run, at the end of the head.
      const askedEarly = await fresh.evaluate(() => {
        const link = [...document.querySelectorAll('link[rel="modulepreload"]')].find((candidate) =>
          /\/MailPage-[\w-]+\.js$/.test(candidate.getAttribute("href") ?? ""),
        );
        const appCode = document.querySelector('script[type="module"]');
        return Boolean(
          link && appCode && link.compareDocumentPosition(appCode) & Node.DOCUMENT_POSITION_FOLLOWING,
        );
      });
      assert.ok(askedEarly, "Mail's chunk is preloaded ahead of the app's code");
      assert.equal(chunkRequests.length, 1, `Mail's chunk fetched once: ${chunkRequests.join(", ")}`);
      // Chromium warns a few seconds after the load about a preload the page never used (or fetched
      // again in another mode); none may appear.
      await fresh.waitForTimeout(3500);
      assert.deepEqual(
        warnings.filter((text) => /preload/i.test(text)),
        [],
      );
    } finally {
      await fresh.context().close();
    }
  });

  it("the operator console signs in with the operator token and shows organizations, the kill switch and failed jobs", async () => {
    await open("/operator", "Operator console");
    for (const viewport of ["desktop", "phone"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await checkScreen("operator-sign-in", viewport);
    }
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.getByLabel("Operator token").fill(app.adminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("switch", { name: "Pause all automations" }).waitFor();
    await page.getByRole("heading", { name: "Failed jobs" }).waitFor();
    // A backup of the embedded database, taken from the console while the server serves.
    await page.getByRole("button", { name: "Back up now" }).click();
    const backups = page.getByRole("region", { name: "Backup files" });
    await backups.getByRole("cell", { name: /^porchlight-.*\.tar\.gz$/ }).waitFor();
    for (const viewport of ["desktop", "phone"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await checkScreen("operator-console", viewport);
    }
    const stored = await page.evaluate(() => ({
      session: Object.keys(sessionStorage),
      local: Object.keys(localStorage),
    }));
    assert.ok(
      stored.session.some((key) => key.includes("operator")),
      "the token is kept in sessionStorage",
    );
    assert.ok(!stored.local.some((key) => key.includes("operator")), "the token is never in localStorage");
  });
});
