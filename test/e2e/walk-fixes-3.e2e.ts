/**
 * A third walk's fixes, checked as a person meets them, in a real browser against the real service:
 * toasts never cover the header's Sign out, the phone builder's "Preview card" bar leaves no label
 * half covered, and busy buttons (Upload logo, the customers' CSV upload, Send test, the invitation
 * page's buttons, the operator console's forms) give the focus back. Screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { ARTIFACTS, settled, VIEWPORTS, type ViewportName } from "./browser.ts";
import { clickWithRequestHeld, waitForFocus } from "./page-probes.ts";
import { type App, acceptInvitation, jobEvent, startApp, waitForSamplePicked, waitUntil } from "./session.ts";

const OWNER = { email: "owner@walk3.test", name: "Walt Walker", password: "correct horse battery" };
const SERVER_ERROR = { status: 500, code: "internal_error", message: "Something went wrong on our side." };

let app: App;
let page: Page;
let orgId: string;
let apiKey: string;
let automationId: string;
let screens: ReturnType<App["screens"]>;

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** What a person sees: the screen as it is, fixed parts where they stand (not a full-page unroll). */
const viewScreenshot = (name: string, viewport: ViewportName) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}-${viewport}.png`) });

/** Whether the point is drawn by `target` (or inside it): nothing lies over it there. */
const drawnBy = (target: Locator, x: number, y: number) =>
  target.evaluate(
    (element, point) => {
      const hit = document.elementFromPoint(point.x, point.y);
      return hit !== null && (element === hit || element.contains(hit));
    },
    { x, y },
  );

describe("fixes from a third walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-3", env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1" } });
    page = await app.newPage();
    screens = app.screens(page);
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Walk Roofing", OWNER));
    await app.sendEvent(apiKey, jobEvent("walk3-sample-1", { street: "742 Evergreen Terrace" }));
  });

  after(async () => {
    await app?.close();
  });

  for (const viewport of ["desktop", "phone"] as const) {
    it(`a toast at ${viewport} width covers neither Sign out nor the navigation's button`, async () => {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await screens.open("/settings?tab=account", "Settings");
      await page.getByRole("textbox", { name: "Your name" }).fill(`Walt ${viewport}`);
      await page.getByRole("button", { name: "Save name" }).click();
      const toast = page.locator(".mantine-Notification-root").filter({ hasText: "Your name is saved." });
      await toast.waitFor();
      // Held open while it is measured: a toast pauses its closing under the pointer.
      await toast.hover();
      await settled(page);
      const toastBox = (await toast.boundingBox())!;
      const header = (await page.locator(".mantine-AppShell-header").boundingBox())!;
      const signOut = (await page.getByRole("button", { name: "Sign out", exact: true }).boundingBox())!;
      assert.ok(!overlaps(toastBox, signOut), `the toast ${JSON.stringify(toastBox)} is off Sign out`);
      assert.ok(toastBox.y >= header.y + header.height, "the toast stands below the header");
      assert.ok(
        toastBox.x >= 0 && toastBox.x + toastBox.width <= VIEWPORTS[viewport].width,
        "the toast is within the screen",
      );
      if (viewport === "phone") {
        const burger = (await page.getByRole("button", { name: "Open navigation" }).boundingBox())!;
        assert.ok(!overlaps(toastBox, burger), "the toast is off the navigation's button");
      }
      await viewScreenshot("walk3-toast", viewport);
      await page.mouse.move(0, VIEWPORTS[viewport].height / 2);
      await toast.waitFor({ state: "detached", timeout: 15_000 });
    });
  }

  it("the phone builder: the Preview card bar leaves no label half covered, and room for the page's end", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await screens.open(`/automations/${automationId}`, "Job done postcard");
    await waitForSamplePicked(page);
    const preview = page.getByRole("button", { name: "Preview card" });
    await preview.waitFor();
    await settled(page);
    const label = page.getByText("Neighbors of the record's home");
    const bar = (await preview.evaluate((button) =>
      button.parentElement!.getBoundingClientRect().toJSON(),
    )) as Box;
    assert.ok(
      bar.x <= 0 && bar.width >= VIEWPORTS.phone.width && bar.y + bar.height >= VIEWPORTS.phone.height - 1,
      `the button stands in a bar along the bottom of the screen: ${JSON.stringify(bar)}`,
    );
    await viewScreenshot("walk3-phone-builder-first-screen", "phone");

    // The first screen and each scroll down past the label: wherever the label is seen, above the
    // bar, its text is its own from its first letter to its last.
    for (let scrolled = 0; scrolled <= 200; scrolled += 10) {
      await page.evaluate((y) => window.scrollTo(0, y), scrolled);
      const box = (await label.boundingBox())!;
      const middle = box.y + box.height / 2;
      if (middle < 0 || middle >= bar.y) continue;
      for (const x of [box.x + 2, box.x + box.width / 2, box.x + box.width - 2]) {
        assert.ok(await drawnBy(label, x, middle), `at scroll ${scrolled}: the label is uncovered at x ${x}`);
      }
    }

    // Brought to the screen's bottom edge by the browser (a search, a Tab): above the bar.
    await page.evaluate(() => window.scrollTo(0, 0));
    await label.evaluate((element) => element.scrollIntoView({ block: "end" }));
    const broughtTo = (await label.boundingBox())!;
    assert.ok(
      broughtTo.y + broughtTo.height <= bar.y,
      `scrolled to, the label ${JSON.stringify(broughtTo)} ends above the bar`,
    );
    await viewScreenshot("walk3-phone-builder-label-at-bottom", "phone");

    // At the page's end, its last words end above the bar.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await settled(page);
    const lastContent = await page.evaluate(() => {
      const main = document.getElementById("main-content")!;
      const shown = [...main.querySelectorAll("button, a, p, h2, h3, img, input, textarea, select")].filter(
        (element) => element.getClientRects().length > 0 && !element.closest(".phone-proof-bar"),
      );
      return Math.max(...shown.map((element) => element.getBoundingClientRect().bottom));
    });
    assert.ok(lastContent <= bar.y, `the page's last content (${lastContent}) ends above the bar (${bar.y})`);
    await viewScreenshot("walk3-phone-builder-end", "phone");
    await screens.checkScreen("walk3-phone-builder", "phone");
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("Upload logo, done, gives the focus to the file field for the next one", async () => {
    await screens.open("/settings?tab=profile", "Settings");
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: png });
    const upload = page.getByRole("button", { name: "Upload logo" });
    // Held, so the button is seen busy (disabled, the focus let go) before it is done.
    const uploading = await clickWithRequestHeld(page, upload, "PUT", /\/organization\/logo$/);
    uploading.release();
    await page.getByText("Your cards use it from now on.").waitFor();
    await waitForFocus(page, page.getByRole("button", { name: "Logo file" }), "the Logo file field");
  });

  it("the customers' CSV upload keeps the focus on its button when refused, and gives it to the file field when done", async () => {
    await screens.open("/customers", "Customers");
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({
        name: "customers.csv",
        mimeType: "text/csv",
        buffer: Buffer.from("Street,City,State,ZIP\r\n1 Focus Way,Springfield,IL,62704\r\n"),
      });
    await page.getByText("1 row read").waitFor();
    const add = page.getByRole("button", { name: "Add these customers" });
    const refused = await clickWithRequestHeld(page, add, "POST", /\/customers\/upload$/);
    refused.release(SERVER_ERROR);
    await page.getByRole("alert").filter({ hasText: "Nothing was added" }).waitFor();
    await waitForFocus(page, add, "Add these customers, refused,");

    const adding = await clickWithRequestHeld(page, add, "POST", /\/customers\/upload$/);
    adding.release();
    await page.getByText("1 new of 1 row").waitFor();
    // Done, the mapping and its button step away: the next step is another file.
    await waitForFocus(page, page.getByRole("button", { name: "CSV file" }), "the CSV file field, done,");
  });

  it("Send test keeps the focus on its button", async () => {
    const target = `https://127.0.0.1:9/walk3-${Date.now()}`;
    await app.request("POST", "/api/v1/webhooks/subscribe", apiKey, { target_url: target });
    await screens.open("/developers?tab=webhooks", "Developers");
    const sendTest = page.getByRole("region", { name: target }).getByRole("button", { name: "Send test" });
    const sending = await clickWithRequestHeld(page, sendTest, "POST", /\/test$/);
    sending.release();
    await waitUntil(async () => (await sendTest.getAttribute("data-loading")) === null, "the test is sent");
    await waitForFocus(page, sendTest, "Send test");
  });

  it("the invitation page: Join and Set password and sign in, refused, keep the focus", async () => {
    // The owner, signed in, invited to a second organization: the page offers Join.
    const second = (await app.operator("POST", "/orgs", { name: "Walk Siding" })).org_id as string;
    const join = await app.operator("POST", `/orgs/${second}/invitations`, {
      email: OWNER.email,
      role: "member",
    });
    await page.goto(join.invite_url);
    const joinButton = page.getByRole("button", { name: "Join", exact: true });
    const joining = await clickWithRequestHeld(page, joinButton, "POST", /\/invitations\/[^/]+\/join$/);
    joining.release(SERVER_ERROR);
    await page.getByRole("alert").filter({ hasText: "Not joined" }).waitFor();
    await waitForFocus(page, joinButton, "Join");

    // Signed out, the owner's invitation answered with a password: the email has an account, and the
    // focus goes to Sign in to join.
    const newcomer = await app.newPage();
    await newcomer.goto(join.invite_url);
    await newcomer.getByLabel("Your name").fill(OWNER.name);
    await newcomer.getByRole("textbox", { name: /^Password/ }).fill("another password here");
    await newcomer.getByRole("button", { name: "Set password and sign in" }).click();
    await newcomer.getByText("You already have an account").waitFor();
    await waitForFocus(newcomer, newcomer.getByRole("link", { name: "Sign in to join" }), "Sign in to join");

    // Someone new.
    const invited = await app.operator("POST", `/orgs/${orgId}/invitations`, {
      email: "new@walk3.test",
      role: "member",
    });
    await newcomer.goto(invited.invite_url);
    await newcomer.getByLabel("Your name").fill("Nia Newcomer");
    await newcomer.getByRole("textbox", { name: /^Password/ }).fill("correct horse battery");
    const accept = newcomer.getByRole("button", { name: "Set password and sign in" });
    const accepting = await clickWithRequestHeld(newcomer, accept, "POST", /\/invitations\/[^/]+\/accept$/);
    accepting.release(SERVER_ERROR);
    await newcomer.getByRole("alert").filter({ hasText: "Not signed in" }).waitFor();
    await waitForFocus(newcomer, accept, "Set password and sign in");
    await acceptInvitation(newcomer, {
      email: "new@walk3.test",
      name: "Nia Newcomer",
      password: "correct horse battery",
    });
    await newcomer.context().close();
  });

  it("the operator console: a wrong token and a refused organization focus their fields; Back up now keeps the focus", async () => {
    await screens.open("/operator", "Operator console");
    const token = page.getByLabel("Operator token");
    await token.fill("not-the-operator-token-0123456789");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("This token is not the operator token").waitFor();
    await waitForFocus(page, token, "the Operator token field");
    // A password field says to a screen reader that it was refused, and why (Mantine's does not).
    assert.equal(await token.getAttribute("aria-invalid"), "true");
    const describedBy = await token.evaluate((input) =>
      (input.getAttribute("aria-describedby") ?? "")
        .split(" ")
        .map((id) => document.getElementById(id)?.textContent ?? "")
        .join(" "),
    );
    assert.match(describedBy, /This token is not the operator token/);

    await token.fill(app.adminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    const name = page.getByRole("textbox", { name: "New organization name" });
    await name.fill("Walk Fencing");
    await page.route("**/admin/v1/orgs", (route) =>
      route.request().method() === "POST"
        ? route.fulfill({
            status: 409,
            json: { error: { code: "conflict", message: "An organization has this name." } },
          })
        : route.fallback(),
    );
    await page.getByRole("button", { name: "Create organization" }).click();
    await waitUntil(async () => (await name.getAttribute("aria-invalid")) === "true", "the name is refused");
    assert.match(await page.getByText("An organization has this name.").first().innerText(), /this name/);
    await waitForFocus(page, name, "the New organization name field");
    await page.unrouteAll();

    const backUp = page.getByRole("button", { name: "Back up now" });
    await backUp.click();
    await waitUntil(async () => (await backUp.getAttribute("data-loading")) === null, "the backup is made");
    await waitForFocus(page, backUp, "Back up now");
    await screens.checkBothWidths("walk3-operator");
  });
});
