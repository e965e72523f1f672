/**
 * Where the keyboard's focus goes when cards leave a screen, and leaving a page, in a real browser
 * against the real service: in the Approvals queue a card approved or cancelled hands the focus to
 * the card now in its place, and the last one to the empty state's heading, never to <body>; the
 * cancel dialog cannot be closed while its request is in flight, shows a failure in itself and
 * closes itself on success; a card's page hands the focus to its heading once its actions are gone;
 * the automation builder asks before the browser's Back leaves unsaved edits, but not when an
 * expired session leads to sign-in. Cards stopped elsewhere leave the menu's count of waiting cards
 * too: homes added by a customers CSV (whose answer says how many cards it stopped), and Approvals
 * opened from the menu sets the count to its list; the empty queue's advice fits the automations.
 * Screens touched: axe-core and a screenshot at both widths in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Dialog, Locator, Page } from "playwright-core";
import { screenshot, seriousViolations, VIEWPORTS } from "./browser.ts";
import { describeFocus, holdNextRequest, waitForFocus } from "./page-probes.ts";
import { type App, jobEvent, type ListedPiece, pickCsv, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@focus.test", name: "Fran Focus", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;
let automationId: string;
let eventCount = 0;
let nextPiece: ReturnType<App["newPieces"]>;

/** One event for the home at `street`; answers its piece once the worker made it wait for approval. */
async function cardAwaitingApproval(street: string): Promise<ListedPiece> {
  const dedupId = `focus-${++eventCount}`;
  const answer = await app.sendEvent(apiKey, jobEvent(dedupId, { street, client_name: "Ned Flanders" }));
  assert.equal(answer.outcomes[0]?.reason, "queued", JSON.stringify(answer));
  const piece = await nextPiece(dedupId);
  assert.equal(piece.status, "awaiting_approval", `the card to ${street} waits for approval`);
  return piece;
}

const pieceStatus = async (id: string) => (await app.operator("GET", `/pieces/${id}`)).status as string;

const focused = () => describeFocus(page);

const waitForFocusOn = (target: Locator, what: string) => waitForFocus(page, target, what);

const queue = () => page.getByRole("list", { name: "Cards awaiting approval" }).getByRole("listitem");
const queued = (street: string) => page.getByRole("listitem", { name: new RegExp(street) });
const emptyHeading = () => page.getByRole("heading", { level: 2, name: "Nothing to approve" });

const holdNext = (method: string, path: RegExp) => holdNextRequest(page, method, path);

const menuLink = (label: string) =>
  page
    .getByRole("navigation", { name: "Main navigation" })
    .getByRole("link", { name: new RegExp(`^${label}`) });

/** The count of waiting cards beside Approvals in the menu; 0 when it shows none. */
async function menuCount(): Promise<number> {
  const badge = menuLink("Approvals").locator(".mantine-Badge-root");
  if ((await badge.count()) === 0) return 0;
  return Number(/\d+/.exec((await badge.textContent()) ?? "")?.[0]);
}

const waitForMenuCount = (expected: number, when: string) =>
  waitUntil(
    async () => (await menuCount()) === expected,
    `the menu counts ${expected} waiting (${when})`,
    15_000,
  );

/** Opens a screen from the menu, as a person does: the app stays loaded, and with it what it read before. */
async function openFromMenu(label: string) {
  await menuLink(label).click();
  await page.getByRole("heading", { level: 1, name: label }).waitFor();
}

/** Away to Customers and back to Approvals from the menu, after a person's pause. */
async function comeBackToApprovals() {
  // Longer than the 2 s for which the app reuses a fresh read (main.tsx's staleTime), as a person takes.
  await page.waitForTimeout(2_500);
  await openFromMenu("Customers");
  await openFromMenu("Approvals");
}

/** While the dialog's request is held: Escape, the close button and a click outside all leave it open. */
async function tryToCloseWhilePending(dialog: Locator, keep: string, confirm: string) {
  await waitUntil(
    async () => (await dialog.getByRole("button", { name: confirm }).getAttribute("data-loading")) !== null,
    "the action shows it is loading",
    10_000,
  );
  assert.ok(await dialog.getByRole("button", { name: confirm }).isDisabled(), "the action is disabled");
  assert.ok(await dialog.getByRole("button", { name: keep }).isDisabled(), `${keep} is disabled`);
  const close = dialog.getByRole("button", { name: "Close" });
  assert.ok(await close.isDisabled(), "the close button is disabled");
  // The action's button, disabled, cannot keep the focus: the dialog does, never <body>.
  const inDialog = () => dialog.evaluate((element) => element.contains(document.activeElement));
  assert.ok(await inDialog(), `the focus stays in the dialog; it is on ${await focused()}`);
  await page.keyboard.press("Escape");
  await close.click({ force: true });
  // The overlay around the dialog, at the window's top-left corner.
  await page.mouse.click(5, 5);
  await page.waitForTimeout(400);
  assert.ok(await dialog.isVisible(), "the dialog is still open while its request is in flight");
  assert.ok(await inDialog(), `the focus is still in the dialog; it is on ${await focused()}`);
  assert.match((await dialog.getByRole("status").textContent()) ?? "", /^Cancelling (the card|\d+ cards)…$/);
}

describe("focus after cards leave a screen, and leaving a page", () => {
  before(async () => {
    app = await startApp({ name: "cancel-focus" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Focused Fencing", OWNER));
    nextPiece = app.newPieces(orgId);
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
  });

  after(async () => {
    await app?.close();
  });

  it("in the Approvals queue, the focus moves to the next card as cards go, and to the empty state's heading after the last", async () => {
    // Newest first: 4, 3, 2, 1 Focus Way.
    const cards = [];
    for (const number of [1, 2, 3, 4]) cards.push(await cardAwaitingApproval(`${number} Focus Way`));
    await open("/approvals", "Approvals");
    await waitUntil(async () => (await queue().count()) === 4, "four cards are in the queue");

    // A middle card's Approve button: the card that takes its place takes the focus.
    await queued("3 Focus Way").getByRole("button", { name: "Approve" }).click();
    await page.getByText("1 card approved: on the way to print.").waitFor();
    await waitUntil(async () => (await queue().count()) === 3, "the approved card leaves the queue");
    await waitForFocusOn(queued("2 Focus Way"), "the card after the approved one");

    // c and Enter on it: the card after it takes the focus.
    const dialog = page.getByRole("dialog", { name: "Cancel this card?" });
    await page.keyboard.press("c");
    await dialog.getByText(/The card to 2 Focus Way/).waitFor();
    await page.keyboard.press("Enter");
    await page.getByText("1 card cancelled: it will not print.").waitFor();
    await waitUntil(async () => (await queue().count()) === 2, "the cancelled card leaves the queue");
    await dialog.waitFor({ state: "hidden" });
    await waitForFocusOn(queued("1 Focus Way"), "the card after the cancelled one");

    // a on the bottom card: the card above it, now the last, takes the focus.
    await page.keyboard.press("a");
    await waitUntil(async () => (await queue().count()) === 1, "the approved card leaves the queue");
    await waitForFocusOn(queued("4 Focus Way"), "the card left");

    // c and Enter on the only card: the empty state's heading takes the focus.
    await page.keyboard.press("c");
    await dialog.getByText(/The card to 4 Focus Way/).waitFor();
    await page.keyboard.press("Enter");
    await emptyHeading().waitFor();
    await waitForFocusOn(emptyHeading(), "the empty state's heading");
    assert.equal(await pieceStatus(cards[3]!.id), "cancelled");
    assert.equal(await pieceStatus(cards[1]!.id), "cancelled");
    await checkBothWidths("approvals-emptied");
    await waitForFocusOn(emptyHeading(), "the empty state's heading, still,");

    // A queue opened empty leaves the focus where it was: nothing left it.
    await open("/approvals", "Approvals");
    await emptyHeading().waitFor();
    await page.waitForTimeout(300);
    assert.equal(await focused(), "body", "an empty queue on arrival takes no focus");
  });

  it("the cancel dialog stays open while its request is in flight, shows a failure in itself, and closes itself when done", async () => {
    for (const number of [5, 6]) await cardAwaitingApproval(`${number} Focus Way`);
    await open("/approvals", "Approvals");
    await waitUntil(async () => (await queue().count()) === 2, "both cards are in the queue");
    await page.getByRole("checkbox", { name: /Select all 2 shown/ }).check();
    await page.getByRole("button", { name: "Cancel selected…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel 2 cards?" });
    const confirm = "Yes, cancel 2 cards";
    const keep = "Keep the cards";
    const toasts: string[] = [];

    // A failure: the dialog says so itself (no toast repeats it) and keeps the cards to try again.
    const failing = holdNext("POST", /\/approvals\/cancel$/);
    await failing.start();
    await dialog.getByRole("button", { name: confirm }).click();
    await failing.held;
    await tryToCloseWhilePending(dialog, keep, confirm);
    await screenshot(page, "cancel-dialog-pending", "desktop");
    failing.release({ status: 503, code: "unavailable", message: "The service is busy. Try again." });
    await dialog.getByRole("alert").getByText("The service is busy. Try again.").waitFor();
    toasts.push(...(await page.locator(".mantine-Notification-root").allInnerTexts()));
    assert.deepEqual(toasts, [], "the failure shows in the dialog, not in a toast too");
    assert.ok(await dialog.getByRole("button", { name: keep }).isEnabled(), "Keep works again");
    // The focus is still in the dialog, and Tab goes on inside it.
    await page.keyboard.press("Tab");
    assert.ok(
      await dialog.evaluate(
        (element) => element.contains(document.activeElement) && document.activeElement !== element,
      ),
      `Tab reaches a control of the dialog; the focus is on ${await focused()}`,
    );
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `axe with the failure in the dialog:\n${violations.join("\n")}`);
    await screenshot(page, "cancel-dialog-failed", "desktop");
    assert.equal(await queue().count(), 2, "both cards are still there");

    // Tried again: held, then let through; the dialog closes by itself and the focus lands on the heading.
    const passing = holdNext("POST", /\/approvals\/cancel$/);
    await passing.start();
    await dialog.getByRole("button", { name: confirm }).click();
    await passing.held;
    assert.equal(await dialog.getByRole("alert").count(), 0, "the old failure is gone while it tries again");
    await tryToCloseWhilePending(dialog, keep, confirm);
    passing.release();
    await page.getByText("2 cards cancelled: they will not print.").waitFor();
    await dialog.waitFor({ state: "hidden" });
    await waitForFocusOn(emptyHeading(), "the empty state's heading");
  });

  it("a card's page gives its heading the focus once its Cancel or Approve is done", async () => {
    const toCancel = await cardAwaitingApproval("7 Focus Way");
    const toApprove = await cardAwaitingApproval("8 Focus Way");

    await open(`/mail/${toCancel.id}`, /Postcard to/);
    await page.getByRole("button", { name: "Cancel this card…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this card?" });
    const held = holdNext("POST", new RegExp(`/pieces/${toCancel.id}/cancel$`));
    await held.start();
    await dialog.getByRole("button", { name: "Yes, cancel the card" }).click();
    await held.held;
    await tryToCloseWhilePending(dialog, "Keep the card", "Yes, cancel the card");
    // Judged as it is, spinner and all (checkScreen waits for spinners to end).
    for (const viewport of ["phone", "desktop"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await screenshot(page, "piece-cancel-pending", viewport);
      const violations = await seriousViolations(page);
      assert.deepEqual(
        violations,
        [],
        `axe while the cancel is pending (${viewport}):\n${violations.join("\n")}`,
      );
    }
    held.release();
    await page.getByText("The card will not print.").waitFor();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("alert").getByText(`Cancelled by ${OWNER.name}`).waitFor();
    await waitForFocusOn(page.getByRole("heading", { level: 1, name: /Postcard to/ }), "the page's heading");
    assert.equal(await pieceStatus(toCancel.id), "cancelled");

    await open(`/mail/${toApprove.id}`, /Postcard to/);
    await page.getByRole("button", { name: "Approve this card" }).click();
    await page.getByText("The card goes to print.").waitFor();
    await page.getByRole("button", { name: "Cancel this card…" }).waitFor({ state: "detached" });
    await waitForFocusOn(page.getByRole("heading", { level: 1, name: /Postcard to/ }), "the page's heading");
    await checkBothWidths("piece-approved");
  });

  it("homes added as customers by a CSV stop their waiting cards: the upload says so, the menu's count follows, and an empty queue's advice fits the automations", async () => {
    for (const number of [21, 22, 23]) await cardAwaitingApproval(`${number} Focus Way`);
    await open("/customers", "Customers");
    await waitForMenuCount(3, "three cards wait");

    const file = ["street,city,state,zip", ...[21, 22, 23].map((n) => `${n} Focus Way,Springfield,IL,62704`)];
    await pickCsv(page, "customers.csv", `${file.join("\r\n")}\r\n`, "3 rows read");
    await page.getByRole("button", { name: "Add these customers" }).click();
    await page
      .getByRole("status")
      .getByText(
        "3 new of 3 rows; 3 customers in all. 3 cards waiting to be mailed to these homes were stopped.",
      )
      .waitFor();
    await screenshot(page, "customers-upload-stopped-cards", "desktop");
    // Their cards stopped, the count goes with them: no reload, no minute's wait.
    await waitForMenuCount(0, "the homes' cards were stopped");
    await openFromMenu("Approvals");
    await emptyHeading().waitFor();
    // The automation already asks for approval: its new cards will wait here, it is not to be turned on.
    await page
      .getByText("New cards from “Job done postcard” will wait here for you to approve or cancel them.")
      .waitFor();
    assert.equal(await page.getByText("Approve each card before print").count(), 0);

    // A card that came while the app was open: opening Approvals shows it, and the menu counts it too.
    await cardAwaitingApproval("24 Focus Way");
    await comeBackToApprovals();
    await waitUntil(async () => (await queue().count()) === 1, "the new card is in the queue");
    await waitForMenuCount(1, "the queue shows one card");
    await queued("24 Focus Way").getByRole("button", { name: "Approve" }).click();
    await emptyHeading().waitFor();
    await waitForMenuCount(0, "the last card was approved");

    // No automation asks for approval: the advice is where to turn it on.
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: false });
    await comeBackToApprovals();
    await page
      .getByText(/Turn on "Approve each card before print" in an automation's Safety section/)
      .waitFor();
    await checkBothWidths("approvals-empty-none-asks");
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
  });

  it("the builder asks before Back leaves unsaved edits (Stay keeps them), and an expired session goes to sign-in unasked", async () => {
    const browserPrompts: string[] = [];
    page.on("dialog", (dialog: Dialog) => {
      browserPrompts.push(dialog.type());
      void dialog.dismiss();
    });
    const leaveDialog = page.getByRole("dialog", { name: "Leave without saving?" });
    const message = page.getByRole("textbox", { name: "Message" });
    const builderPath = `/app/automations/${automationId}`;

    // Into the builder by a link, so Back stays inside the app.
    await open("/automations", "Automations");
    await page.getByRole("link", { name: "Job done postcard" }).click();
    await page.getByRole("heading", { level: 1, name: "Job done postcard" }).waitFor();
    await page.getByRole("button", { name: "Save", exact: true }).waitFor();
    const edited = `${await message.inputValue()} Ask about our spring special.`;
    await message.fill(edited);

    await page.evaluate(() => history.back());
    await leaveDialog.waitFor();
    await leaveDialog.getByRole("button", { name: "Stay" }).click();
    await leaveDialog.waitFor({ state: "detached" });
    assert.equal(new URL(page.url()).pathname, builderPath, "still on the builder");
    assert.equal(await message.inputValue(), edited, "Stay keeps the edit");
    await page.getByRole("heading", { level: 1, name: "Job done postcard" }).waitFor();

    // Back again: Leave goes back to the list.
    await page.evaluate(() => history.back());
    await leaveDialog.getByRole("button", { name: "Leave" }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();

    // The session ends (expired, or signed out elsewhere) while edits wait: the next read answers 401,
    // and the app goes to sign-in without asking, as the contractor did not choose to leave.
    await page.getByRole("link", { name: "Job done postcard" }).click();
    await page.getByRole("heading", { level: 1, name: "Job done postcard" }).waitFor();
    await page.getByRole("button", { name: "Save", exact: true }).waitFor();
    await message.fill(`${edited} Before it ends.`);
    await page.context().clearCookies();
    await message.fill(`${edited} After it ended.`);
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    assert.equal(await leaveDialog.count(), 0, "no leave dialog on the way to sign-in");
    assert.deepEqual(browserPrompts, [], "the browser asked nothing");
    assert.equal(new URL(page.url()).searchParams.get("redirect"), builderPath, "sign-in leads back");
  });
});
