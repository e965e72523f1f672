/**
 * The confirm dialogs while their request is in flight, in a real browser against the real service:
 * revoke an API key, rotate a webhook's secret, delete a webhook, remove a team member and send a
 * mailing all share one dialog (`web/src/ui/ConfirmDialog.tsx`). With its request held (Playwright's
 * page.route), Escape, the close button, a click outside and the keep button leave it open, the
 * action spins and the focus stays in it; a failure (503) shows in the dialog, not in a toast; let
 * through, it closes itself, and where its button went with what it removed the focus lands on what
 * is left, never on <body>. The automation's Safety section asks "Cancel all waiting cards…" inline:
 * the focus follows each swap of its buttons. Screens: axe-core and screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { screenshot, seriousViolations, VIEWPORTS } from "./browser.ts";
import {
  clickWithRequestHeld,
  describeFocus,
  holdNextRequest,
  waitForFocus,
  waitForLoading,
} from "./page-probes.ts";
import { type App, MAPLE_AVE_JOBS, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@confirm.test", name: "Connie Confirm", password: "correct horse battery" };
const MEMBER = { email: "member@confirm.test", name: "Milo Member", password: "correct horse battery" };
const BUSY = { status: 503, code: "unavailable", message: "The service is busy. Try again." };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;
let automationId: string;

const focused = () => describeFocus(page);

const waitForFocusOn = (target: Locator, what: string) => waitForFocus(page, target, what);

const holdNext = (method: string, path: RegExp) => holdNextRequest(page, method, path);

interface Confirm {
  dialog: Locator;
  keep: string;
  confirm: string;
  /** The status line while the request is in flight. */
  pending: string;
  /** The heading of the failure shown in the dialog. */
  failed: string;
}

/** While the dialog's request is held: it spins, holds the focus, and nothing closes it. */
async function tryToCloseWhilePending({ dialog, keep, confirm, pending }: Confirm) {
  const action = dialog.getByRole("button", { name: confirm });
  await waitForLoading(action, confirm);
  assert.ok(await action.isDisabled(), "the action is disabled");
  const keepButton = dialog.getByRole("button", { name: keep });
  assert.ok(await keepButton.isDisabled(), `${keep} is disabled`);
  const close = dialog.getByRole("button", { name: "Close" });
  assert.ok(await close.isDisabled(), "the close button is disabled");
  const inDialog = () => dialog.evaluate((element) => element.contains(document.activeElement));
  assert.ok(await inDialog(), `the focus stays in the dialog; it is on ${await focused()}`);
  await page.keyboard.press("Escape");
  await close.click({ force: true });
  await keepButton.click({ force: true });
  // The overlay around the dialog, at the window's top-left corner.
  await page.mouse.click(5, 5);
  await page.waitForTimeout(400);
  assert.ok(await dialog.isVisible(), "the dialog is still open while its request is in flight");
  assert.ok(await inDialog(), `the focus is still in the dialog; it is on ${await focused()}`);
  assert.equal((await dialog.getByRole("status").textContent()) ?? "", pending);
}

/**
 * The confirm pressed twice: first held and answered 503 (the failure shows in the dialog, no toast,
 * and keep works again), then held and let through. Resolves while the second request is still held;
 * the caller releases it with `release()`.
 */
async function failThenHold(confirm: Confirm, method: string, path: RegExp, name: string) {
  const { dialog } = confirm;
  const action = dialog.getByRole("button", { name: confirm.confirm });
  const failing = await clickWithRequestHeld(page, action, method, path);
  await tryToCloseWhilePending(confirm);
  await screenshot(page, `${name}-pending`, "desktop");
  failing.release(BUSY);
  const alert = dialog.getByRole("alert");
  await alert.getByText(BUSY.message).waitFor();
  await alert.getByText(confirm.failed).waitFor();
  assert.equal(await page.locator(".mantine-Notification-root").count(), 0, "no toast repeats the failure");
  assert.ok(await dialog.getByRole("button", { name: confirm.keep }).isEnabled(), "keep works again");
  assert.ok(
    await dialog.evaluate((element) => element.contains(document.activeElement)),
    `the focus is in the dialog after the failure; it is on ${await focused()}`,
  );
  for (const viewport of ["phone", "desktop"] as const) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    await screenshot(page, `${name}-failed`, viewport);
    const violations = await seriousViolations(page);
    assert.deepEqual(
      violations,
      [],
      `axe with the failure in ${name} (${viewport}):\n${violations.join("\n")}`,
    );
  }

  const passing = await clickWithRequestHeld(page, action, method, path);
  assert.equal(await dialog.getByRole("alert").count(), 0, "the old failure is gone while it tries again");
  await tryToCloseWhilePending(confirm);
  return passing;
}

/** A request of the app API as the signed-in owner's browser makes it. */
async function appApi(method: "post" | "delete", path: string, data?: unknown) {
  const response = await page.request.fetch(`${app.base}/app/api/v1${path}`, {
    method,
    headers: { origin: app.base },
    data,
  });
  assert.ok(response.ok(), `${method} ${path} answered ${response.status()}: ${await response.text()}`);
  return response.json();
}

describe("confirm dialogs while their request is in flight", () => {
  before(async () => {
    app = await startApp({
      name: "confirm-dialogs",
      // A webhook endpoint on loopback is let through the SSRF guard; nothing is delivered to it here.
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1,localhost" },
    });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Careful Carpentry", OWNER));
  });

  after(async () => {
    await app?.close();
  });

  it("revoking an API key: nothing closes the dialog in flight, a failure shows in it, and the focus lands on Create API key", async () => {
    await appApi("post", "/keys", { name: "Old CRM" });
    await open("/developers?tab=keys", "Developers");
    await page.getByRole("button", { name: "Revoke Old CRM" }).click();
    const confirm: Confirm = {
      dialog: page.getByRole("dialog", { name: "Revoke this key?" }),
      keep: "Keep it",
      confirm: "Revoke key",
      pending: "Revoking the key…",
      failed: "The key was not revoked",
    };
    const passing = await failThenHold(confirm, "DELETE", /\/keys\/[^/]+$/, "revoke-key");
    passing.release();
    await confirm.dialog.waitFor({ state: "hidden" });
    await page.getByRole("cell").getByText("Old CRM", { exact: true }).waitFor({ state: "detached" });
    await waitForFocusOn(
      page.getByRole("button", { name: "Create API key" }).first(),
      "Create API key, the revoked key's row gone,",
    );
  });

  it("rotating a webhook's secret and deleting the webhook behave the same; the focus lands on Add endpoint", async () => {
    const target = "https://localhost:9/porchlight";
    await appApi("post", "/subscriptions", { target_url: target });
    await open("/developers?tab=webhooks", "Developers");
    const card = page.getByRole("region", { name: target });

    await card.getByRole("button", { name: "Rotate secret" }).click();
    const rotate: Confirm = {
      dialog: page.getByRole("dialog", { name: "Rotate the signing secret?" }),
      keep: "Cancel",
      confirm: "Rotate secret",
      pending: "Rotating the secret…",
      failed: "The secret was not rotated",
    };
    const rotating = await failThenHold(
      rotate,
      "POST",
      /\/subscriptions\/[^/]+\/rotate-secret$/,
      "rotate-secret",
    );
    rotating.release();
    const secret = page.getByRole("dialog", { name: "New signing secret" });
    await secret.waitFor();
    await rotate.dialog.waitFor({ state: "hidden" });
    await secret.getByRole("button", { name: "Done" }).click();
    await secret.waitFor({ state: "hidden" });
    // The secret opened as the rotate dialog closed: the focus goes back to the button that led here.
    await waitForFocusOn(card.getByRole("button", { name: "Rotate secret" }), "Rotate secret");

    await card.getByRole("button", { name: "Delete" }).click();
    const remove: Confirm = {
      dialog: page.getByRole("dialog", { name: "Delete this endpoint?" }),
      keep: "Keep it",
      confirm: "Delete endpoint",
      pending: "Deleting the endpoint…",
      failed: "The endpoint was not deleted",
    };
    const deleting = await failThenHold(remove, "DELETE", /\/subscriptions\/[^/]+$/, "delete-webhook");
    deleting.release();
    await page.getByRole("heading", { name: "No webhook endpoints yet" }).waitFor();
    await remove.dialog.waitFor({ state: "hidden" });
    await waitForFocusOn(
      page.getByRole("button", { name: "Add endpoint" }),
      "Add endpoint, the deleted endpoint's card gone,",
    );
  });

  it("removing a team member: the dialog waits for the answer and the focus lands on the Members heading", async () => {
    await app.signInMember(orgId, MEMBER);
    await open("/settings?tab=team", "Settings");
    await page.getByRole("button", { name: `Remove ${MEMBER.name}` }).click();
    const dialog = page.getByRole("dialog", { name: "Remove from the team?" });
    const confirm: Confirm = {
      dialog,
      keep: "Cancel",
      confirm: "Remove",
      pending: `Removing ${MEMBER.name}…`,
      failed: "They were not removed",
    };
    const remove = dialog.getByRole("button", { name: "Remove" });
    const held = await clickWithRequestHeld(page, remove, "DELETE", /\/team\/members\/[^/]+$/);
    await tryToCloseWhilePending(confirm);
    held.release();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: `Remove ${MEMBER.name}` }).waitFor({ state: "detached" });
    await waitForFocusOn(page.getByRole("heading", { level: 2, name: "Members" }), "the Members heading");
    await checkBothWidths("team-member-removed");
  });

  it("Send this mailing: nothing closes it while it sends, a failure shows in it, and once sent the app moves on to Mail", async () => {
    await app.importPastJobs(apiKey, MAPLE_AVE_JOBS);
    await open("/customers?tab=past-jobs", "Customers");
    await page.getByRole("checkbox", { name: /Mail the batch of/ }).check();
    await page.getByRole("link", { name: /New mailing from 1 batch/ }).click();
    await page.getByRole("heading", { level: 1, name: "New mailing" }).waitFor();
    await page.getByText("2 cards from 2 matching rows").waitFor();
    await page.getByRole("img", { name: "First card, front" }).waitFor();
    await page.getByRole("button", { name: "Send 2 cards" }).click();
    const confirm: Confirm = {
      dialog: page.getByRole("dialog", { name: "Send this mailing?" }),
      keep: "Go back",
      confirm: "Send 2 cards",
      pending: "Sending the mailing…",
      failed: "The mailing was not sent",
    };
    await confirm.dialog.getByText(/2 cards will be printed and mailed/).waitFor();
    const sending = await failThenHold(confirm, "POST", /\/reactivation\/mailings$/, "send-mailing");
    sending.release();
    await page.getByRole("heading", { level: 1, name: "Mail", exact: true }).waitFor();
    await waitUntil(
      async () => (await app.campaigns(orgId)).some((campaign) => campaign.pieces.length === 2),
      "the mailing's two cards exist",
    );
    assert.equal(
      (await app.campaigns(orgId)).filter((campaign) => campaign.pieces.length === 2).length,
      1,
      "sent once: the failed try sent nothing",
    );
  });

  it("the Safety section's inline Cancel all waiting cards never leaves the focus on <body>", async () => {
    await open(`/automations/${automationId}`, "Job done postcard");
    const safety = page.getByRole("group", { name: "Safety" });
    const ask = safety.getByRole("button", { name: "Cancel all waiting cards…" });
    const yes = safety.getByRole("button", { name: "Yes, cancel every waiting card" });
    const keep = safety.getByRole("button", { name: "Keep them" });
    const notBody = async (after: string) => assert.notEqual(await focused(), "body", `after ${after}`);

    // Asked by keyboard: the choice takes the focus, on the safe side.
    await ask.focus();
    await page.keyboard.press("Enter");
    await waitForFocusOn(keep, "Keep them");
    await notBody("the inline confirm appears");
    await checkBothWidths("safety-cancel-all-asked");
    await keep.focus();

    // Keep them: back on the button that asked.
    await page.keyboard.press("Enter");
    await waitForFocusOn(ask, "Cancel all waiting cards…");
    await notBody("Keep them");

    // Yes, held: the status line holds the focus while Yes spins; done, the focus is back on the button.
    await page.keyboard.press("Enter");
    await waitForFocusOn(keep, "Keep them");
    const held = holdNext("POST", /\/waiting-pieces\/cancel$/);
    await held.start();
    await yes.focus();
    await page.keyboard.press("Enter");
    await held.held;
    const line = safety.getByRole("status").filter({ hasText: "Cancelling the waiting cards…" });
    await waitForFocusOn(line, "the status line");
    assert.ok(await keep.isDisabled(), "Keep them is disabled while the cards are cancelled");
    await screenshot(page, "safety-cancel-all-pending", "desktop");
    held.release();
    await page
      .getByText(/waiting cards? cancelled; (it|they) will not print\./)
      .first()
      .waitFor();
    await waitForFocusOn(ask, "Cancel all waiting cards…, once done,");
    await notBody("Yes");
  });
});
