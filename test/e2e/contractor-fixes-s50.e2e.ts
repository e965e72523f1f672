/**
 * Four things a roofer found walking the app, fixed and walked again in a real browser against the
 * real service as a process (local print provider), at desktop and phone width:
 *
 * - A lead whose card the CRM already reported won says so ("Your CRM reported this job won on …")
 *   and offers no second record of it; a lead whose home has only an older deal, credited to no
 *   card, keeps the form and its warning.
 * - Revenue keeps each table's key column (the automation, the month, the deal) in sight, on a
 *   solid background, while the figures scroll sideways under it on a phone.
 * - Mail's list says a follow-up's day is an estimate ("Not yet, due about …") while its first card
 *   awaits approval, as the follow-up's own page does, also when the first card is not on the list
 *   (a status filter); once the first card went to print, the day is firm.
 * - Approvals says what Approve and Cancel did in a line of the page that covers no proof (no toast
 *   over the next card), and on a phone a card's proof comes before its Approve and Cancel…, in the
 *   page and in the keyboard's order; the next card then shows from its top.
 *
 * Every screen touched: axe-core (no serious or critical WCAG A/AA violation) and a screenshot at
 * both widths in test/e2e/artifacts/, and the screens a person judges in /work/notes/s50-shots/.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { formatCalendarDay, formatDay } from "../../web/src/ui/format.ts";
import { settled, VIEWPORTS, type ViewportName } from "./browser.ts";
import { describeFocus } from "./page-probes.ts";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@s50.test", name: "Rita Roofer", password: "correct horse battery" };
const AUTOMATION = "Job done postcard";
const SHOTS = process.env.S50_SHOTS ?? "/work/notes/s50-shots";
/** The app's fixed header (web/src/ui/theme.ts HEADER_HEIGHT). */
const HEADER_HEIGHT = 56;

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let checkScreen: ReturnType<App["screens"]>["checkScreen"];
let orgId: string;
let apiKey: string;
let automationId: string;
let eventCount = 0;

/** The screen as a person sees it, saved for a look: the whole page, and what the window shows. */
async function shot(name: string, viewport: ViewportName, { scrollTop = true } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  await page.setViewportSize(VIEWPORTS[viewport]);
  await settled(page);
  if (scrollTop) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SHOTS, `${name}-${viewport}.png`), fullPage: scrollTop });
}

/** Every piece of the organization, through the operator API. */
const allPieces = async () => (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);

/** One job event at `street`; answers the first card once the worker decided it (not queued). */
async function sendJob(street: string, clientName: string): Promise<ListedPiece> {
  const dedupId = `s50-${++eventCount}`;
  const answer = await app.sendEvent(apiKey, jobEvent(dedupId, { street, client_name: clientName }));
  assert.equal(answer.outcomes[0]?.reason, "queued", JSON.stringify(answer));
  let first: ListedPiece | undefined;
  await waitUntil(async () => {
    const campaign = (await app.campaigns(orgId)).find((each) => each.name.includes(dedupId));
    // A first card's follow-ups are written with it, scheduled; the first card is the one that is not.
    first = campaign?.pieces.find((piece) => piece.status !== "scheduled");
    return first !== undefined && first.status !== "queued";
  }, `the card to ${street} is decided`);
  return first!;
}

/** A piece as the app API reads it (the follow-up's day, a card's sequence). */
async function appPiece(id: string) {
  const answer = await page.request.get(`${app.base}/app/api/v1/pieces/${id}`);
  assert.equal(answer.status(), 200, await answer.text());
  return answer.json();
}

/** A homeowner answers the card's landing page; answers the lead's id. */
async function leadFrom(piece: ListedPiece, first: string, last: string): Promise<string> {
  const lead = await page.request.post(piece.landing_url, {
    data: { first_name: first, last_name: last, email: `${first.toLowerCase()}@example.test` },
  });
  assert.equal(lead.status(), 201, await lead.text());
  return (await lead.json()).lead_id;
}

/** The text of a row's cell under the column `heading` of the table shown. */
async function cellUnder(row: Locator, heading: string): Promise<string> {
  const headings = await page.getByRole("columnheader").allInnerTexts();
  const cells = await row.getByRole("cell").allInnerTexts();
  const index = headings.indexOf(heading);
  assert.ok(index >= 0, `a column "${heading}" among ${headings.join(" | ")}`);
  return (cells[index] ?? "").trim();
}

type Box = { x: number; y: number; width: number; height: number };
const boxOf = async (locator: Locator): Promise<Box> => {
  const box = await locator.boundingBox();
  assert.ok(box, "the element is laid out");
  return box;
};
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe("a roofer's walk, fixed: a lead won in the CRM, Revenue's key column, a follow-up's day, Approvals", () => {
  before(async () => {
    app = await startApp({ name: "s50" });
    page = await app.newPage();
    ({ open, checkBothWidths, checkScreen } = app.screens(page));
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Ridge Roofing", OWNER));
  });

  after(async () => {
    await app?.close();
  });

  it("a lead whose card the CRM reported won says so and offers no second record; a lead without one keeps the form", async () => {
    const reportedCard = await sendJob("742 Evergreen Terrace", "Marge Simpson");
    const otherCard = await sendJob("744 Evergreen Terrace", "Ned Flanders");
    await waitUntil(
      async () => (await allPieces()).filter((piece) => piece.status === "mailed").length === 2,
      "both cards are mailed",
    );
    const reportedLead = await leadFrom(reportedCard, "Marge", "Simpson");
    const otherLead = await leadFrom(otherCard, "Ned", "Flanders");

    // The CRM reports the job at 742 won: matched to its card.
    const won = await app.request("POST", "/api/v1/conversions", apiKey, {
      address: "742 Evergreen Terrace, Springfield, IL 62704",
      deal_id: "D-742",
      deal_name: "Roof replacement",
      deal_amount: "18500",
    });
    assert.equal(won.matched, true, JSON.stringify(won));
    const wonDay = formatCalendarDay(new Date().toISOString());
    await open(`/leads/${reportedLead}`, "Marge Simpson");
    const card = page.getByRole("heading", { level: 2, name: "Job won" }).locator("xpath=..");
    await card.getByText(`Your CRM reported this job won on ${wonDay}.`).waitFor();
    await card.getByText(`Deal: Roof replacement, $18,500, won on ${wonDay}`).waitFor();
    await card.getByText("Won", { exact: true }).waitFor();
    const credited = card.getByRole("link", { name: AUTOMATION });
    assert.equal(await credited.getAttribute("href"), `/app/mail/${reportedCard.id}`, "the card credited");
    await card.getByText(/nothing to record here: marking the lead won too would count it twice/).waitFor();
    // Nothing offers to record the job again.
    assert.equal(await page.getByRole("button", { name: "Mark as won" }).count(), 0, "no Mark as won");
    assert.equal(await page.getByRole("textbox", { name: "Job amount" }).count(), 0, "no amount field");
    assert.equal(await page.getByText(/Won the job from this lead\?/).count(), 0, "no offer to record it");
    await checkBothWidths("s50-lead-crm-won");
    await shot("lead-crm-won", "phone");
    await shot("lead-crm-won", "desktop");

    // The list says Won on its row too: the page and the list agree.
    await open("/leads", "Leads");
    await page
      .getByRole("row", { name: /Marge Simpson/ })
      .getByText("Won", { exact: true })
      .waitFor();

    // A lead whose card has no won deal: the form, as before.
    await open(`/leads/${otherLead}`, "Ned Flanders");
    const otherCardBox = page.getByRole("heading", { level: 2, name: "Job won" }).locator("xpath=..");
    await otherCardBox.getByText(/Won the job from this lead\?/).waitFor();
    await otherCardBox.getByRole("textbox", { name: "Job amount" }).waitFor();
    await otherCardBox.getByRole("button", { name: "Mark as won" }).waitFor();
    assert.equal(await page.getByText(/Your CRM reported this job won/).count(), 0);
    await shot("lead-form-kept", "phone");
  });

  it("Revenue keeps each table's key column in sight, on a solid background, as the figures scroll on a phone", async () => {
    await open("/revenue", "Revenue");
    const tables = [
      { region: "Revenue by automation", header: "Automation", key: AUTOMATION },
      { region: "Revenue by month", header: "Month", key: null },
      { region: "Won deals attributed table", header: "Customer", key: "Marge Simpson" },
    ];
    for (const viewport of ["phone", "desktop"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await settled(page);
      for (const table of tables) {
        const region = page.getByRole("region", { name: table.region, exact: true });
        await region.scrollIntoViewIfNeeded();
        const keyCell = table.key
          ? region.getByRole("rowheader", { name: table.key }).first()
          : region.getByRole("rowheader").last();
        await keyCell.waitFor();
        const scrolls = await region.evaluate((element) => element.scrollWidth > element.clientWidth + 1);
        if (viewport === "phone") assert.ok(scrolls, `${table.region} scrolls sideways on a phone`);
        // Scrolled to its far right, as a thumb would.
        await region.evaluate((element) => {
          element.scrollLeft = element.scrollWidth;
        });
        await settled(page);
        const frame = await boxOf(region);
        for (const cell of [keyCell, region.getByRole("columnheader", { name: table.header, exact: true })]) {
          const box = await boxOf(cell);
          assert.ok(
            box.x >= frame.x - 1 && box.x + box.width <= frame.x + frame.width + 1,
            `${table.region} at ${viewport}: "${await cell.innerText()}" stays in sight (${JSON.stringify(box)} in ${JSON.stringify(frame)})`,
          );
          // On top of the figures scrolled under it, and opaque: what the point shows is the cell.
          const onTop = await cell.evaluate((element) => {
            const rect = element.getBoundingClientRect();
            const hit = document.elementFromPoint(rect.left + 4, rect.top + rect.height / 2);
            return hit !== null && element.contains(hit);
          });
          assert.ok(onTop, `${table.region} at ${viewport}: "${await cell.innerText()}" is on top`);
          const background = await cell.evaluate((element) => getComputedStyle(element).backgroundColor);
          assert.match(background, /^rgb\(/, `${table.region}: a solid background, not ${background}`);
        }
        if (viewport === "phone") {
          // The figures did scroll: the first figure's heading is out of sight at the left, under the key column.
          const firstFigure = region.getByRole("columnheader").nth(table.header === "Customer" ? 2 : 1);
          const keyBox = await boxOf(region.getByRole("columnheader", { name: table.header, exact: true }));
          const figureBox = await boxOf(firstFigure);
          assert.ok(
            figureBox.x < keyBox.x + keyBox.width,
            `${table.region}: the figures scrolled under the key column`,
          );
        }
      }
      await shot("revenue-scrolled", viewport, { scrollTop: false });
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot("revenue-scrolled-full", viewport);
      for (const table of tables) {
        await page.getByRole("region", { name: table.region, exact: true }).evaluate((element) => {
          element.scrollLeft = 0;
        });
      }
    }
    await checkBothWidths("s50-revenue");
  });

  it("Mail's list says a follow-up's day is an estimate while its first card awaits approval, and firm once it went to print", async () => {
    await app.operator("PATCH", `/automations/${automationId}`, {
      steps: [{ delay_days: 14, template: { headline: "Two weeks on, {{street}}" } }],
    });
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    const first = await sendJob("5 Sequence Lane", "Lee Waits");
    assert.equal(first.status, "awaiting_approval", "the first card waits for approval");
    const followUp = (await allPieces()).find(
      (piece) => piece.status === "scheduled" && piece.address.startsWith("5 Sequence Lane"),
    );
    assert.ok(followUp, "its follow-up is scheduled");
    const estimate = `Not yet, due about ${formatDay((await appPiece(followUp.id)).scheduled_for)}`;

    // The whole list: the follow-up beside its first card, awaiting approval.
    for (const [search, what] of [
      ["", "all mail"],
      ["?status=scheduled", "only scheduled cards (the first card is not on the list)"],
    ] as const) {
      await open(`/mail${search}`, "Mail");
      const row = page.getByRole("row", { name: /Follow-up card 1/ });
      await page.setViewportSize(VIEWPORTS.desktop);
      await row.waitFor();
      await waitUntil(
        async () => (await cellUnder(row, "Mailed")) === estimate,
        `${what}: the Mailed column says "${estimate}" (it says "${await cellUnder(row, "Mailed")}")`,
      );
      // A phone says it under the recipient, with the status (no column out of sight to scroll to).
      await page.setViewportSize(VIEWPORTS.phone);
      await row.getByText(estimate, { exact: true }).waitFor();
    }
    await checkBothWidths("s50-mail-follow-up-estimate");
    await shot("mail-follow-up-estimate", "desktop");
    await page.setViewportSize(VIEWPORTS.phone);
    await shot("mail-follow-up-estimate-phone", "phone");

    // The follow-up's page says the same in its Mailed field; its sequence says why.
    await open(`/mail/${followUp.id}`, /Postcard to/);
    await page.getByText(`Mailed: ${estimate}`).waitFor();
    await page
      .getByText(
        /Sequence: Follow-up card 1, due about .*: its days count from when the first card goes to print/,
      )
      .waitFor();
    await page.getByText(/^Due about /).waitFor();
    await page.setViewportSize(VIEWPORTS.phone);
    await checkScreen("s50-follow-up-page-estimate", "phone");
    await shot("follow-up-page-estimate", "phone");

    // Approved from its page, the first card goes to print: the follow-up's day is firm.
    await open(`/mail/${first.id}`, /Postcard to/);
    await page.getByRole("button", { name: "Approve this card" }).click();
    await page.getByText("The card goes to print.").waitFor();
    await waitUntil(
      async () => (await app.operator("GET", `/pieces/${first.id}`)).status === "mailed",
      "the first card is mailed",
    );
    const firm = `Not yet, due ${formatDay((await appPiece(followUp.id)).scheduled_for)}`;
    await page.setViewportSize(VIEWPORTS.desktop);
    for (const search of ["", "?status=scheduled"]) {
      await open(`/mail${search}`, "Mail");
      const row = page.getByRole("row", { name: /Follow-up card 1/ });
      await row.waitFor();
      await waitUntil(
        async () => (await cellUnder(row, "Mailed")) === firm,
        `the Mailed column says "${firm}" once the first card was mailed`,
      );
    }
    await shot("mail-follow-up-firm", "desktop");
  });

  it("Approvals: on a phone the proof comes before Approve; what was done is said in a line that covers no proof", async () => {
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    const cards: ListedPiece[] = [];
    for (const street of ["10 Approval Ave", "12 Approval Ave", "14 Approval Ave"]) {
      const card = await sendJob(street, "Homer Simpson");
      assert.equal(card.status, "awaiting_approval", `the card to ${street} waits`);
      cards.push(card);
    }
    await page.setViewportSize(VIEWPORTS.phone);
    await open("/approvals", "Approvals");
    const queue = page.getByRole("list", { name: "Cards awaiting approval" }).getByRole("listitem");
    const waiting = (await allPieces()).filter((piece) => piece.status === "awaiting_approval").length;
    assert.equal(waiting, 3, "the three new cards wait, nothing else");
    await waitUntil(async () => (await queue.count()) === 3, "three cards wait");
    await page
      .getByRole("img", { name: /Back of the card to 14 Approval Ave/ })
      .evaluate((img: HTMLImageElement) =>
        img.complete && img.naturalWidth > 0
          ? undefined
          : new Promise((resolve) => img.addEventListener("load", resolve)),
      );

    // Phone: the card's name, then its proof, then its buttons; the keyboard goes the same way.
    const top = queue.first();
    const approve = top.getByRole("button", { name: "Approve" });
    const back = top.getByRole("img", { name: /^Back of the card/ });
    assert.ok(
      (await boxOf(approve)).y >= (await boxOf(back)).y + (await boxOf(back)).height,
      "Approve under the proof",
    );
    assert.ok(
      await back.evaluate(
        (image, button) =>
          (image.compareDocumentPosition(button as Node) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0,
        await approve.elementHandle(),
      ),
      "Approve comes after the proof in the page",
    );
    await top.getByRole("link", { name: "Open the card" }).focus();
    await page.keyboard.press("Tab");
    assert.equal(
      await approve.evaluate((button) => button === document.activeElement),
      true,
      `Tab from the card's link goes to its Approve; the focus is on ${await describeFocus(page)}`,
    );
    await page.keyboard.press("Tab");
    assert.equal(
      await top
        .getByRole("button", { name: "Cancel…" })
        .evaluate((button) => button === document.activeElement),
      true,
      "then to its Cancel…",
    );
    await checkScreen("s50-approvals", "phone");
    await shot("approvals", "phone");

    // Approved on the phone: said in the page's status line, no toast; the next card shows from its top.
    const firstStreet = (await top.getAttribute("aria-label"))!;
    await approve.scrollIntoViewIfNeeded();
    await approve.click();
    const status = page.getByRole("status").filter({ hasText: "1 card approved: on the way to print." });
    await status.waitFor();
    await waitUntil(async () => (await queue.count()) === 2, "the approved card leaves the queue");
    assert.notEqual(await queue.first().getAttribute("aria-label"), firstStreet);
    assert.equal(await page.locator(".mantine-Notification-root").count(), 0, "no toast over the cards");
    await settled(page);
    const heading = queue.first().getByRole("heading", { level: 2 });
    const headingBox = await boxOf(heading);
    assert.ok(
      headingBox.y >= HEADER_HEIGHT && headingBox.y < VIEWPORTS.phone.height,
      `the next card's name shows under the header (at ${headingBox.y})`,
    );
    await shot("approvals-after-approve-window", "phone", { scrollTop: false });
    for (const image of await page
      .getByRole("list", { name: "Cards awaiting approval" })
      .getByRole("img")
      .all())
      assert.ok(!overlaps(await boxOf(status), await boxOf(image)), "the status line covers no proof");

    // Desktop: Approve beside the card's name, above its proof; the line says each thing done.
    await page.setViewportSize(VIEWPORTS.desktop);
    await settled(page);
    const next = queue.first();
    const nextApprove = next.getByRole("button", { name: "Approve" });
    assert.ok(
      (await boxOf(nextApprove)).y < (await boxOf(next.getByRole("img", { name: /^Front of the card/ }))).y,
      "on a wide screen Approve stands beside the name, above the proof",
    );
    await next.getByRole("button", { name: "Cancel…" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this card?" });
    await dialog.getByRole("button", { name: "Yes, cancel the card" }).click();
    const cancelled = page.getByRole("status").filter({ hasText: "1 card cancelled: it will not print." });
    await cancelled.waitFor();
    await dialog.waitFor({ state: "hidden" });
    await waitUntil(async () => (await queue.count()) === 1, "the cancelled card leaves the queue");
    assert.equal(await page.locator(".mantine-Notification-root").count(), 0, "no toast");
    for (const image of await page
      .getByRole("list", { name: "Cards awaiting approval" })
      .getByRole("img")
      .all())
      assert.ok(!overlaps(await boxOf(cancelled), await boxOf(image)), "the status line covers no proof");
    await checkScreen("s50-approvals-cancelled", "desktop");
    await shot("approvals-after-cancel", "desktop");

    // The last card approved by its key: the line stays over the empty queue.
    await queue.first().focus();
    await page.keyboard.press("a");
    await page.getByRole("heading", { name: "Nothing to approve" }).waitFor();
    await page.getByRole("status").filter({ hasText: "1 card approved: on the way to print." }).waitFor();
    await checkBothWidths("s50-approvals-emptied");
    await shot("approvals-emptied", "phone");
  });
});
