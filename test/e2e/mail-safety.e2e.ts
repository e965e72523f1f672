/**
 * Mail safety in a real browser (issue 29) against the real service as a process printing through a
 * fake Lob on loopback: an automation asks for approval, a card is approved in the Approvals queue by
 * keyboard and goes to print; a card's Cancel asks first (Escape keeps it, a double-click cancels
 * once); a held card is cancelled from its page and never reaches Lob; a home
 * opts out on its landing page and the next card to it is suppressed, with the reason in Mail.
 * Every screen touched: axe-core (no serious or critical WCAG A/AA violation) and a screenshot at
 * desktop and phone width in test/e2e/artifacts/.
 *
 * PRINT_PROVIDER=lob refuses a loopback PUBLIC_BASE_URL (its QR codes would be dead), so the service
 * is named porchlight.test and Chromium resolves that name to 127.0.0.1.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page, Request } from "playwright-core";
import { startFakeLob } from "../pipeline/helpers.ts";
import { VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const HOST = "porchlight.test";
const OWNER = { email: "owner@safety.test", name: "Sam Safety", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";

let app: App;
let lob: Awaited<ReturnType<typeof startFakeLob>>;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;
let automationId: string;
let eventCount = 0;
let nextPiece: ReturnType<App["newPieces"]>;
/** The card to "12 Approval Ave": the first test leaves it waiting for approval. */
let stillWaiting: ListedPiece;

/** One event for the home at `street`; answers its piece once the worker wrote it. */
async function sendEvent(street: string): Promise<ListedPiece> {
  const dedupId = `safety-${++eventCount}`;
  const answer = await app.sendEvent(
    apiKey,
    jobEvent(dedupId, { street, client_name: "Marge Simpson" }, EVENT_TYPE),
  );
  assert.equal(answer.outcomes[0]?.reason, "queued", JSON.stringify(answer));
  return nextPiece(dedupId);
}

const pieceStatus = async (id: string) => (await app.operator("GET", `/pieces/${id}`)).status as string;

async function setSafety(values: { approval?: boolean; hold?: string }) {
  await open(`/automations/${automationId}`, "Job done postcard");
  const safety = page.getByRole("group", { name: "Safety" });
  if (values.hold !== undefined) await safety.getByLabel("Hold window (minutes)").fill(values.hold);
  const approval = safety.getByRole("switch", { name: "Approve each card before print" });
  if (values.approval !== undefined && (await approval.isChecked()) !== values.approval) {
    // Mantine's switch input is visually hidden; a click event on it toggles it as a label click would.
    await approval.dispatchEvent("click");
  }
  // The builder's one Save saves its Safety section with the rest.
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Job done postcard is saved.").waitFor();
}

describe("mail safety in the browser: approvals, cancelling, opt-out", () => {
  before(async () => {
    lob = await startFakeLob();
    // PRINT_PROVIDER=lob refuses a loopback PUBLIC_BASE_URL: the browser reaches it by a public name.
    app = await startApp({
      name: "safety",
      publicHost: HOST,
      env: { PRINT_PROVIDER: "lob", LOB_API_KEY: "test_e2e_key", LOB_BASE_URL: lob.url },
    });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));

    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(
      page,
      "Safe Siding Co.",
      OWNER,
      EVENT_TYPE,
    ));
    nextPiece = app.newPieces(orgId);
  });

  after(async () => {
    await app?.close();
    await lob?.close();
  });

  it("a card approved in the Approvals queue by keyboard goes to print; the other waits", async () => {
    await setSafety({ approval: true });
    await checkBothWidths("automation-safety");
    const first = await sendEvent("10 Approval Ave");
    const second = await sendEvent("12 Approval Ave");
    assert.equal(first.status, "awaiting_approval");
    assert.equal(second.status, "awaiting_approval");

    await open("/approvals", "Approvals");
    const cards = page.getByRole("list", { name: "Cards awaiting approval" }).getByRole("listitem");
    await waitUntil(async () => (await cards.count()) === 2, "both cards are in the queue");
    await page.getByText("Keyboard:").waitFor();
    await page
      .getByRole("img", { name: /Back of the card to 10 Approval Ave/ })
      .evaluate((img: HTMLImageElement) =>
        img.complete && img.naturalWidth > 0
          ? undefined
          : new Promise((resolve) => img.addEventListener("load", resolve)),
      );
    await checkBothWidths("approvals");

    // Newest first: the highlighted card is the second; j moves to the first, a approves it.
    const firstCard = page.getByRole("listitem", { name: /10 Approval Ave/ });
    await page.keyboard.press("j");
    await waitUntil(
      async () => (await firstCard.getAttribute("aria-current")) === "true",
      "j highlights the next card",
    );
    // A key pressed twice approves once: the second press comes before the queue re-renders as busy.
    const approveRequests: string[] = [];
    const countApprove = (request: Request) => {
      if (request.method() === "POST" && /\/approve$/.test(request.url()))
        approveRequests.push(request.url());
    };
    page.on("request", countApprove);
    await page.keyboard.press("a");
    await page.keyboard.press("a");
    await page.getByText("1 card approved: on the way to print.").waitFor();
    await waitUntil(async () => (await cards.count()) === 1, "the approved card leaves the queue");
    page.off("request", countApprove);
    assert.equal(approveRequests.length, 1, approveRequests.join(", "));
    await waitUntil(
      async () => (await pieceStatus(first.id)) === "submitted",
      "the approved card is printed",
    );
    assert.ok(
      lob.requests.some((request) => request.idempotencyKey === first.id),
      "Lob received it",
    );
    assert.equal(await pieceStatus(second.id), "awaiting_approval", "the other still waits");
    stillWaiting = second;

    await open(`/mail/${first.id}`, /Postcard to/);
    await page.getByText("Sent to printer", { exact: true }).first().waitFor();
  });

  it("a card's Cancel asks first: c and Escape keep it, c and Enter or the button and Yes cancel it, once", async () => {
    // The queue still holds "12 Approval Ave" from the test before: it stays waiting for Overview's count.
    const byKey = await sendEvent("14 Approval Ave");
    const byButton = await sendEvent("16 Approval Ave");
    const cancelRequests: string[] = [];
    const countCancel = (request: Request) => {
      if (request.method() === "POST" && /\/cancel$/.test(request.url())) cancelRequests.push(request.url());
    };
    page.on("request", countCancel);
    try {
      await open("/approvals", "Approvals");
      const cards = page.getByRole("list", { name: "Cards awaiting approval" }).getByRole("listitem");
      await waitUntil(async () => (await cards.count()) === 3, "three cards are in the queue");
      const dialog = page.getByRole("dialog", { name: "Cancel this card?" });

      // Newest first: 16 is highlighted; x selects it, j moves to 14, x selects it too.
      const byKeyCard = page.getByRole("listitem", { name: /14 Approval Ave/ });
      await page.keyboard.press("x");
      await page.keyboard.press("j");
      await waitUntil(
        async () => (await byKeyCard.getAttribute("aria-current")) === "true",
        "j highlights the card to 14 Approval Ave",
      );
      await page.keyboard.press("x");
      // Cancel selected asks in the same dialog, counting the cards; keeping them sends nothing.
      await page.getByRole("button", { name: "Cancel selected…" }).click();
      const bulkDialog = page.getByRole("dialog", { name: "Cancel 2 cards?" });
      await bulkDialog
        .getByText(
          "These 2 cards will not be printed or mailed, nor any follow-up card after them. You cannot undo this.",
        )
        .waitFor();
      await bulkDialog.getByRole("button", { name: "Keep the cards" }).click();
      await bulkDialog.waitFor({ state: "hidden" });

      // Back in the queue on 14: c asks, naming the home; Escape keeps the card.
      await byKeyCard.focus();
      await page.keyboard.press("c");
      await dialog.waitFor();
      await dialog
        .getByText(
          /The card to 14 Approval Ave.* will not be printed or mailed, nor any follow-up card after it\. You cannot undo this\./,
        )
        .waitFor();
      const confirm = dialog.getByRole("button", { name: "Yes, cancel the card" });
      await waitUntil(
        () => confirm.evaluate((button) => button === document.activeElement),
        "the dialog opens with focus on its action",
      );
      await checkBothWidths("approvals-cancel-confirm");
      // The keys of the queue do nothing while it asks: a slipped "a" approves nothing.
      await page.keyboard.press("a");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      await waitUntil(
        () => byKeyCard.evaluate((card) => card === document.activeElement),
        "focus is back on the highlighted card",
      );
      assert.equal(await cards.count(), 3, "Escape keeps the card in the queue");
      assert.equal(await pieceStatus(byKey.id), "awaiting_approval", "Escape cancels nothing");
      assert.deepEqual(cancelRequests, [], "no cancel request was sent");

      // c then Enter: the focused action cancels it; the highlight and focus move to the card now in its place.
      await page.keyboard.press("c");
      await dialog.waitFor();
      await waitUntil(
        () => confirm.evaluate((button) => button === document.activeElement),
        "the action has focus again",
      );
      await page.keyboard.press("Enter");
      await page.getByText("1 card cancelled: it will not print.").waitFor();
      await dialog.waitFor({ state: "hidden" });
      await waitUntil(async () => (await cards.count()) === 2, "the cancelled card leaves the queue");
      assert.equal(await pieceStatus(byKey.id), "cancelled");
      const nextCard = page.getByRole("listitem", { name: /12 Approval Ave/ });
      await waitUntil(
        () => nextCard.evaluate((card) => card === document.activeElement),
        "focus moves to the card now highlighted",
      );

      // The button asks too; a double-click on Yes sends one request.
      cancelRequests.length = 0;
      await page
        .getByRole("listitem", { name: /16 Approval Ave/ })
        .getByRole("button", { name: "Cancel…" })
        .click();
      await dialog.getByText(/The card to 16 Approval Ave/).waitFor();
      await confirm.dblclick();
      await page.getByText("1 card cancelled: it will not print.").first().waitFor();
      await waitUntil(async () => (await cards.count()) === 1, "the second cancelled card leaves the queue");
      assert.equal(await pieceStatus(byButton.id), "cancelled");
      assert.equal(cancelRequests.length, 1, `one cancel request for a double-click: ${cancelRequests}`);
    } finally {
      page.off("request", countCancel);
    }
  });

  it("a card edited after the queue drew its proof is not approved unseen: the queue says so and keeps it", async () => {
    // "12 Approval Ave" still waits (the tests before left it); the queue shows its proof.
    await open("/approvals", "Approvals");
    const card = page.getByRole("listitem", { name: /12 Approval Ave/ });
    await card.waitFor();
    const front = card.getByRole("img", { name: /Front of the card/ });
    const shownProof = await front.getAttribute("src");
    // Meanwhile the card's text is changed elsewhere (another person, the operator).
    await app.operator("PUT", `/automations/${automationId}/template`, {
      message: "Spring special: gutters cleaned for half price.",
    });
    await card.getByRole("button", { name: "Approve" }).click();
    await page.getByText("A card changed").waitFor();
    await page
      .getByText("Its text or design was edited after the proofs were drawn, so it was not approved.", {
        exact: false,
      })
      .waitFor();
    assert.equal(await pieceStatus(stillWaiting.id), "awaiting_approval", "not approved unseen");
    await waitUntil(
      async () => (await front.getAttribute("src")) !== shownProof,
      "the queue shows the card's new proof",
    );
    await checkBothWidths("approvals-card-changed");
  });

  it("a held card is cancelled from its page and never reaches the print provider", async () => {
    await setSafety({ approval: false, hold: "120" });
    const held = await sendEvent("20 Hold Street");
    assert.equal(held.status, "held");
    await open(`/mail/${held.id}`, /Postcard to/);
    // The moment in the reader's time and the app's date format (ui/format.ts), not the server's UTC.
    const reason = page.getByText(/the automation's 2-hour hold window, until /);
    assert.match(await reason.innerText(), /until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M;/);
    await checkBothWidths("piece-held");
    await page.getByRole("button", { name: "Cancel this card…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this card?" });
    await dialog.getByText(/The card to 20 Hold Street.* will not be printed or mailed/).waitFor();
    await dialog.getByRole("button", { name: "Yes, cancel the card" }).click();
    await page.getByText("The card will not print.").waitFor();
    await page.getByRole("alert").getByText(`Cancelled by ${OWNER.name}`).waitFor();
    assert.equal(await pieceStatus(held.id), "cancelled");

    await open("/mail?status=cancelled", "Mail");
    await page.getByText(`Cancelled by ${OWNER.name}`).first().waitFor();
    await checkBothWidths("mail-cancelled");
    // A card sent after it prints at once (hold off): Lob has seen it, never the cancelled one.
    await setSafety({ hold: "0" });
    const later = await sendEvent("22 Hold Street");
    await waitUntil(async () => (await pieceStatus(later.id)) === "submitted", "the next card printed");
    assert.ok(
      !lob.requests.some((request) => request.idempotencyKey === held.id),
      "the cancelled card never reached Lob",
    );
  });

  it("a home that opts out on its landing page is suppressed on its next card, with the reason in Mail", async () => {
    const mailed = await sendEvent("30 Opt Out Lane");
    await waitUntil(async () => (await pieceStatus(mailed.id)) === "submitted", "the card printed");
    await page.goto(mailed.landing_url);
    await page.getByRole("link", { name: "Stop mail to this address" }).click();
    await page.getByRole("heading", { level: 1, name: "Stop mail to this address?" }).waitFor();
    await page.getByRole("button", { name: "Stop mail to this address" }).click();
    await page.getByRole("heading", { level: 1, name: "Done" }).waitFor();
    await page.getByText("will send no more cards to").waitFor();
    assert.equal((await app.operator("GET", `/orgs/${orgId}/do-not-mail`)).do_not_mail.length, 1);

    const next = await sendEvent("30 Opt Out Lane");
    assert.equal(next.status, "suppressed");
    await open("/mail?status=suppressed", "Mail");
    await page
      .getByText(/opted out of mail from its landing page/)
      .first()
      .waitFor();
    await checkBothWidths("mail-suppressed");
    // On a phone the list shows each card's status and why without scrolling sideways.
    await page.setViewportSize(VIEWPORTS.phone);
    try {
      const reason = page.getByText(/opted out of mail from its landing page/).first();
      // Polled: the app shell's navbar transition settles a moment after the resize.
      let box: Awaited<ReturnType<typeof reason.boundingBox>> = null;
      await waitUntil(
        async () => {
          box = await reason.boundingBox();
          return box !== null && box.x >= 0 && box.x < VIEWPORTS.phone.width;
        },
        "the status shows on a phone",
        10_000,
      ).catch(() => assert.fail(`the status shows on a phone: ${JSON.stringify(box)}`));
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }
  });

  it("Overview shows the caps and their use; Settings sets the organization's cap", async () => {
    await open("/settings?tab=safety", "Settings");
    const cap = page.getByRole("combobox", { name: "Monthly cap of the organization" });
    await cap.selectOption("cards");
    await page.getByLabel("Cards per month").fill("250");
    await page.getByLabel("Frequency cap per home (days)").fill("45");
    // A double-click saves once: the button's loading state comes a render after the first click.
    const saves: string[] = [];
    const countSave = (request: Request) => {
      if (request.method() === "PATCH" && request.url().endsWith("/mail-safety")) saves.push(request.url());
    };
    page.on("request", countSave);
    await page.getByRole("button", { name: "Save mail safety" }).dblclick();
    await page.getByText("The mail safety settings are saved.").waitFor();
    page.off("request", countSave);
    assert.equal(saves.length, 1, "one PATCH for a double-click");
    await checkBothWidths("settings-safety");
    const settings = await app.operator("GET", `/orgs/${orgId}/mail-safety`);
    assert.equal(settings.monthly_card_cap, 250);
    assert.equal(settings.frequency_cap_days, 45);

    await open("/", "Overview");
    await page.getByText("3 of 250 cards sent to print").waitFor();
    await page.getByText("1 card waits for approval.").waitFor();
    await checkBothWidths("overview-caps");
  });

  it("an automation's Cancel all waiting cards asks, and a double-click on Yes cancels them once", async () => {
    await setSafety({ approval: false, hold: "120" });
    const waiting = [await sendEvent("30 Hold Street"), await sendEvent("32 Hold Street")];
    for (const piece of waiting) assert.equal(piece.status, "held");
    await open(`/automations/${automationId}`, "Job done postcard");
    const safety = page.getByRole("group", { name: "Safety" });
    await safety.getByRole("button", { name: "Cancel all waiting cards…" }).click();
    const cancelRequests: string[] = [];
    const countCancel = (request: Request) => {
      if (request.method() === "POST" && request.url().endsWith("/waiting-pieces/cancel"))
        cancelRequests.push(request.url());
    };
    page.on("request", countCancel);
    try {
      await safety.getByRole("button", { name: "Yes, cancel every waiting card" }).dblclick();
      await page
        .getByText(/waiting cards? cancelled; (it|they) will not print\./)
        .first()
        .waitFor();
    } finally {
      page.off("request", countCancel);
    }
    assert.equal(cancelRequests.length, 1, `one request for a double-click: ${cancelRequests}`);
    for (const piece of waiting) assert.equal(await pieceStatus(piece.id), "cancelled");
    await setSafety({ hold: "0" });
  });

  it("a home added as a customer has its card awaiting approval stopped: Customers says so, Approvals drops it", async () => {
    await setSafety({ approval: true });
    const waiting = await sendEvent("20 Customer Court");
    const neighbour = await sendEvent("22 Customer Court");
    assert.deepEqual([waiting.status, neighbour.status], ["awaiting_approval", "awaiting_approval"]);

    await open("/customers", "Customers");
    await page.getByRole("textbox", { name: /^Address/ }).fill("20 Customer Court, Springfield, IL 62704");
    await page.getByRole("button", { name: "Add customer" }).click();
    await page
      .getByRole("status")
      .getByText("Added. 1 card waiting to be mailed to this home was stopped.", { exact: false })
      .waitFor();
    await checkBothWidths("customers-stopped-card");
    assert.equal(await pieceStatus(waiting.id), "suppressed");

    await open("/approvals", "Approvals");
    await page.getByRole("listitem", { name: /22 Customer Court/ }).waitFor();
    await page.getByText("Keys act on this card", { exact: false }).first().waitFor();
    assert.equal(await page.getByRole("listitem", { name: /20 Customer Court/ }).count(), 0);
    await checkBothWidths("approvals-after-customer");
  });

  it("a card whose address no carrier can deliver is undeliverable in Mail and in Needs attention; owners choose the check's level", async () => {
    const answer = await app.sendEvent(
      apiKey,
      jobEvent(
        "safety-bad-zip",
        { street: "12 Main St", city: "Austin", state: "TX", zip: "10001" },
        EVENT_TYPE,
      ),
    );
    assert.equal(answer.outcomes[0]?.reason, "queued", "the developer API answers as the spec says");
    let piece: ListedPiece | undefined;
    await waitUntil(async () => {
      piece = (await app.campaigns(orgId))
        .flatMap((campaign) => campaign.pieces)
        .find((each) => each.address.startsWith("12 Main St"));
      return piece !== undefined && piece.status !== "queued";
    }, "the card leaves queued");
    assert.equal(piece!.status, "undeliverable");
    assert.ok(
      !lob.requests.some((request) => request.idempotencyKey === piece!.id),
      "never sent to the printer",
    );

    await open("/", "Overview");
    await page
      .getByText(/1 card was not printed in the last 30 days: no carrier can deliver to its address/)
      .waitFor();
    await checkBothWidths("overview-undeliverable");
    await page.getByRole("link", { name: "See the undeliverable cards" }).click();
    await page.getByText("ZIP 10001 is in NY, not TX").first().waitFor();
    await checkBothWidths("mail-undeliverable");
    // The card's own page says what to do next, not only why.
    await open(`/mail/${piece!.id}`, /Postcard to/);
    await page.getByRole("heading", { name: "Correct the address and send again" }).waitFor();
    await page.getByText("This card was not printed and costs nothing.", { exact: false }).waitFor();
    await checkBothWidths("piece-undeliverable");

    await open("/settings?tab=safety", "Settings");
    await page.getByRole("radio", { name: /Strict/ }).check({ force: true });
    await page.getByRole("button", { name: "Save mail safety" }).click();
    await page.getByText("The mail safety settings are saved.").waitFor();
    await checkBothWidths("settings-address-check");
    assert.equal((await app.operator("GET", `/orgs/${orgId}/mail-safety`)).address_verification, "strict");
  });
});
