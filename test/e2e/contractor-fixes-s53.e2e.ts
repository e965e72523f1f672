/**
 * What a contractor's walk found in session 53, in a real browser against the real service:
 * "Approve selected" sent cards to print (money spent) without a word while cancelling asked; it now
 * asks in the app's confirm dialog, counting the cards and pricing them at the cost per card. The
 * "Logo uploaded" toast stood over Upload logo: the upload's result is now said in a line under
 * it. A past-jobs file read "6 rows read" when picked and "5 rows read" once imported: both count
 * the file's data rows. Axe-core and both widths on each screen; screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import sharp from "sharp";
import {
  ARTIFACTS,
  screenshot,
  seriousAndStructureViolations,
  settled,
  VIEWPORTS,
  type ViewportName,
} from "./browser.ts";
import { waitForFocus } from "./page-probes.ts";
import { type App, jobEvent, type ListedPiece, pickCsv, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@fixes53.test", name: "Abe Approver", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let apiKey: string;
let orgId: string;
let automationId: string;
let nextPiece: ReturnType<App["newPieces"]>;

const pieceStatus = async (id: string) => (await app.operator("GET", `/pieces/${id}`)).status as string;
const toasts = () => page.locator(".mantine-Notification-root");
const queue = () => page.getByRole("list", { name: "Cards awaiting approval" }).getByRole("listitem");
const queued = (street: string) => page.getByRole("listitem", { name: new RegExp(street) });

/** One event for the home at `street`; answers its piece once it waits for approval. */
async function cardAwaitingApproval(street: string): Promise<ListedPiece> {
  const dedupId = `s53-${street}`;
  const answer = await app.sendEvent(apiKey, jobEvent(dedupId, { street, client_name: "Ned Flanders" }));
  assert.equal(answer.outcomes[0]?.reason, "queued", JSON.stringify(answer));
  const piece = await nextPiece(dedupId);
  assert.equal(piece.status, "awaiting_approval", `the card to ${street} waits for approval`);
  return piece;
}

/** The profile's cost per card, as an owner sets it in Settings (null: none). */
async function setCostPerCard(cents: number | null) {
  const saved = await page.request.patch(`${app.base}/app/api/v1/organization`, {
    headers: { origin: app.base },
    data: { cost_per_card_cents: cents },
  });
  assert.equal(saved.status(), 200, await saved.text());
}

/** What a person sees now: the window as it is, fixed parts where they stand (not a full-page unroll). */
const viewScreenshot = (name: string, viewport: ViewportName) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}-${viewport}.png`) });

/**
 * `checkScreen` without its wait for the network to rest: the logo's upload leaves its request open
 * in Chromium's eyes (the app never reads the answer's body), so "networkidle" never comes until the
 * page is opened again, which would lose what the screen says after the upload. The rest is the same:
 * no toast, no spinner, a full-page screenshot, no sideways scroll, axe's serious and structure rules.
 */
async function checkAsItIs(name: string, viewport: ViewportName) {
  await waitUntil(async () => (await toasts().count()) === 0, "toasts closed");
  await waitUntil(
    async () => (await page.locator(".mantine-Loader-root:visible").count()) === 0,
    `${name}: no spinner shows`,
  );
  const scrolled = await page.evaluate(() => window.scrollY);
  await screenshot(page, name, viewport);
  await page.evaluate((y) => window.scrollTo(0, y), scrolled);
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(pageWidth <= VIEWPORTS[viewport].width, `${name} at ${viewport} scrolls sideways`);
  const { serious, structure } = await seriousAndStructureViolations(page);
  assert.deepEqual(serious, [], `axe on ${name} at ${viewport}:\n${serious.join("\n")}`);
  assert.deepEqual(structure, [], `axe (structure) on ${name} at ${viewport}:\n${structure.join("\n")}`);
}

/** Whether the middle of `target` is drawn by it: nothing (a toast) lies over it there. */
const uncovered = (target: Locator) =>
  target.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return hit !== null && (element === hit || element.contains(hit));
  });

describe("contractor walk fixes (session 53)", () => {
  before(async () => {
    app = await startApp({ name: "fixes-s53" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ apiKey, orgId, automationId } = await app.ownerWithAutomation(page, "Approver Roofing", OWNER));
    nextPiece = app.newPieces(orgId);
  });

  after(async () => {
    await app?.close();
  });

  it("Approve selected asks first, counting the cards and their cost; Go back approves nothing", async () => {
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    // Newest first in the queue: 3, 2, 1 Print Pl.
    const cards: ListedPiece[] = [];
    for (const street of ["1 Print Pl", "2 Print Pl", "3 Print Pl"])
      cards.push(await cardAwaitingApproval(street));
    await setCostPerCard(85);
    await open("/approvals", "Approvals");
    await waitUntil(async () => (await queue().count()) === 3, "three cards are in the queue");

    await page.getByRole("checkbox", { name: /^Select all 3 shown/ }).check();
    const approveSelected = page.getByRole("button", { name: /^Approve selected \(3\)/ });
    await approveSelected.click();
    const dialog = page.getByRole("dialog", { name: "Approve 3 cards for print?" });
    await dialog
      .getByText("These 3 cards will be printed and mailed, for about $2.55 ($0.85 a card).", { exact: true })
      .waitFor();
    await dialog
      .getByText("They go to print at once: printed mail cannot be taken back.", { exact: true })
      .waitFor();
    await dialog.getByRole("button", { name: "Approve 3 cards" }).waitFor();
    // On a phone too, Go back and the action stand side by side under the words.
    await page.setViewportSize(VIEWPORTS.phone);
    await settled(page);
    const goBack = (await dialog.getByRole("button", { name: "Go back" }).boundingBox())!;
    const action = (await dialog.getByRole("button", { name: "Approve 3 cards" }).boundingBox())!;
    assert.equal(Math.round(goBack.y), Math.round(action.y), "one row of buttons on a phone");
    assert.ok(goBack.x + goBack.width <= action.x, "Go back first, then the action");
    await checkBothWidths("s53-approve-selected-asks");

    // Going back approves nothing, and the focus returns to the button that asked.
    await dialog.getByRole("button", { name: "Go back" }).click();
    await dialog.waitFor({ state: "hidden" });
    await waitForFocus(page, approveSelected, "Approve selected");
    for (const card of cards) assert.equal(await pieceStatus(card.id), "awaiting_approval");
    assert.equal(await queue().count(), 3);

    // Two of them, confirmed: they go to print, the third waits, and the status line says so.
    await page.getByRole("checkbox", { name: "Select the card to 1 Print Pl", exact: false }).uncheck();
    await page.getByRole("button", { name: /^Approve selected \(2\)/ }).click();
    const two = page.getByRole("dialog", { name: "Approve 2 cards for print?" });
    await two
      .getByText("These 2 cards will be printed and mailed, for about $1.70 ($0.85 a card).", { exact: true })
      .waitFor();
    await two.getByRole("button", { name: "Approve 2 cards" }).click();
    await page.getByRole("status").getByText("2 cards approved: on the way to print.").waitFor();
    await two.waitFor({ state: "hidden" });
    await waitUntil(async () => (await queue().count()) === 1, "the approved cards leave the queue");
    assert.equal(await toasts().count(), 0, "no toast over the queue");
    for (const card of cards.slice(1))
      assert.notEqual(await pieceStatus(card.id), "awaiting_approval", "approved");
    assert.equal(await pieceStatus(cards[0]!.id), "awaiting_approval", "the card not chosen still waits");
    // The button that asked is disabled now (nothing chosen): the card left takes the focus.
    await waitForFocus(page, queued("1 Print Pl"), "the card left in the queue");
    await checkBothWidths("s53-approved-two-of-three");

    // Without a cost per card, one card: named by its home, and where to set the cost. The two
    // approved cards went to print, and a cap of 2 a month is now used up: the dialog says it waits.
    await waitUntil(
      async () =>
        (await Promise.all(cards.slice(1).map((card) => pieceStatus(card.id)))).every(
          (status) => !["awaiting_approval", "queued"].includes(status),
        ),
      "the approved cards went to print",
    );
    await app.operator("PATCH", `/orgs/${orgId}/mail-safety`, { monthly_card_cap: 2 });
    await setCostPerCard(null);
    await open("/approvals", "Approvals");
    await page.getByRole("checkbox", { name: /^Select all 1 shown/ }).check();
    await page.getByRole("button", { name: /^Approve selected \(1\)/ }).click();
    const one = page.getByRole("dialog", { name: "Approve this card for print?" });
    assert.equal(
      (await one.getByText(/will be printed and mailed/).innerText()).replace(/\s+/g, " "),
      "The card to 1 Print Pl, Springfield, IL 62704 will be printed and mailed. Set your cost per card in Settings to see what it costs.",
    );
    await one
      .getByText(
        /^It waits because a monthly cap is reached: it goes out on [A-Z][a-z]{2} 1, or as soon as an owner raises the cap\.$/,
      )
      .waitFor();
    await checkBothWidths("s53-approve-one-no-cost");
    await one.getByRole("button", { name: "Approve the card" }).click();
    await page.getByRole("heading", { level: 2, name: "Nothing to approve" }).waitFor();
    await page
      .getByRole("status")
      .getByText(/^1 card approved: it waits because a monthly cap is reached/)
      .waitFor();
    await waitUntil(async () => (await pieceStatus(cards[0]!.id)) === "capped", "the card waits for the cap");
  });

  for (const viewport of ["desktop", "phone"] as const) {
    it(`at ${viewport} width, a logo's upload and removal are said under Upload logo, with no toast over it`, async () => {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await open("/settings?tab=profile", "Settings");
      const png = await sharp({
        create: { width: 240, height: 120, channels: 3, background: { r: 230, g: 0, b: 200 } },
      })
        .png()
        .toBuffer();
      await page
        .locator('input[type="file"]')
        .first()
        .setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: png });
      const upload = page.getByRole("button", { name: "Upload logo" });
      const fileField = page.getByRole("button", { name: /^Logo file/ });
      await upload.scrollIntoViewIfNeeded();
      await upload.click();
      const said = page.getByRole("status").getByText("Logo uploaded: your cards use it from now on.");
      await said.waitFor();
      await page.getByRole("img", { name: "Your current logo" }).waitFor();
      await settled(page);
      assert.equal(await toasts().count(), 0, "no toast");
      // The line stands right under the button it answers, in sight, and nothing covers either.
      const button = (await upload.boundingBox())!;
      const line = (await said.boundingBox())!;
      assert.ok(line.y >= button.y + button.height, "the line is under the button");
      assert.ok(
        line.y - (button.y + button.height) < 40,
        `the line is by the button: ${JSON.stringify({ button, line })}`,
      );
      assert.ok(line.y + line.height <= VIEWPORTS[viewport].height, "the line is in sight");
      assert.ok(await uncovered(fileField), "nothing lies over the file field");
      await viewScreenshot("s53-logo-uploaded-view", viewport);
      await checkAsItIs("s53-logo-uploaded", viewport);

      await page.getByRole("button", { name: "Remove logo" }).click();
      const dialog = page.getByRole("dialog", { name: "Remove the logo?" });
      await dialog.getByRole("button", { name: "Remove logo" }).click();
      await dialog.waitFor({ state: "hidden" });
      await page
        .getByRole("status")
        .getByText("Logo removed: your cards go without it from now on.")
        .waitFor();
      await page.getByText("No logo yet.", { exact: false }).waitFor();
      assert.equal(await toasts().count(), 0, "no toast");
      await waitForFocus(page, fileField, "the logo file field");
      await viewScreenshot("s53-logo-removed-view", viewport);
      await checkAsItIs("s53-logo-removed", viewport);
    });
  }

  const HEADER = "address,city,state,zip,job_date,customer";
  const ROWS = [1, 2, 3, 4, 5].map((n) => `${n}2 Elm St,Springfield,IL,62701,2024-05-0${n},Person ${n}`);
  const files: [string, string][] = [
    ["a header and a trailing newline", `${[HEADER, ...ROWS].join("\n")}\n`],
    ["a blank line at the end", `${[HEADER, ...ROWS].join("\r\n")}\r\n\r\n`],
    // What shows as a blank last line in an editor or a spreadsheet: a DOS end-of-file mark (Ctrl-Z),
    // a quoted space. Both were read as a sixth row.
    ["a Ctrl-Z line at the end", `${[HEADER, ...ROWS].join("\r\n")}\r\n\u001a`],
    ["a quoted blank line at the end", `${[HEADER, ...ROWS].join("\n")}\n" "\n`],
  ];
  for (const [what, text] of files) {
    it(`a past-jobs file with ${what} reads 5 rows when picked and 5 once imported`, async () => {
      await open("/customers?tab=past-jobs", "Customers");
      await page.getByRole("tab", { name: "Past jobs", selected: true }).waitFor();
      await pickCsv(page, "past-jobs.csv", text, "5 rows read.");
      await page.getByRole("button", { name: "Import these jobs" }).click();
      await page.getByRole("status").getByText("5 rows read: 5 imported.", { exact: true }).waitFor();
    });
  }

  it("a past-jobs file whose bad row is skipped says the same count of rows read before and after", async () => {
    await open("/customers?tab=past-jobs", "Customers");
    const bad = "62 Elm St,Springfield,IL,62701,yesterday,Person 6";
    await pickCsv(
      page,
      "past-jobs-bad-row.csv",
      `${[HEADER, ...ROWS, bad].join("\r\n")}\r\n`,
      "6 rows read.",
    );
    await checkBothWidths("s53-past-jobs-picked");
    await page.getByRole("button", { name: "Import these jobs" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Nothing was added" });
    await refusal.getByRole("button", { name: "Import the other 5 rows, skip this one" }).click();
    const success = page.getByRole("status").filter({ hasText: "Uploaded" });
    await success
      .getByText("6 rows read: 5 imported. Left out: 1 row that cannot be imported (listed below).", {
        exact: true,
      })
      .waitFor();
    await success
      .getByRole("list", { name: "Rows that were skipped" })
      .getByText(/^Line 7:/)
      .waitFor();
    await checkBothWidths("s53-past-jobs-skipped-row");
  });
});
