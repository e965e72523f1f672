/**
 * What a contractor's walk found in session 52, in a real browser against the real service: a card
 * approved while the monthly cap was used up was said to be "on the way to print" while Mail showed
 * it held by the cap, and Overview named held cards only as a badge in the caps box. Approvals now
 * says the cap is reached before and after approving, and Needs attention names the waiting cards.
 * An automation saved on an event type the CRM never sends ("job.complete") mailed nothing, silently:
 * the builder says so as it is typed.
 * Axe-core and both widths on each screen.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@fixes52.test", name: "Cara Capped", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let apiKey: string;
let orgId: string;
let automationId: string;
let nextPiece: ReturnType<App["newPieces"]>;

async function sendEvent(dedupId: string, street: string): Promise<ListedPiece> {
  const answer = await app.sendEvent(apiKey, jobEvent(dedupId, { street, client_name: "Homer Simpson" }));
  assert.equal(answer.outcomes[0]?.reason, "queued", JSON.stringify(answer));
  return nextPiece(dedupId);
}

const pieceStatus = async (id: string) => (await app.operator("GET", `/pieces/${id}`)).status as string;

describe("contractor walk fixes (session 52)", () => {
  before(async () => {
    app = await startApp({ name: "fixes-s52" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ apiKey, orgId, automationId } = await app.ownerWithAutomation(page, "Capstone Roofing", OWNER));
    nextPiece = app.newPieces(orgId);
  });

  after(async () => {
    await app?.close();
  });

  it("with the monthly cap used up, Approvals says so before and after approving, and Needs attention names the waiting card", async () => {
    await app.operator("PATCH", `/orgs/${orgId}/mail-safety`, { monthly_card_cap: 1 });
    const first = await sendEvent("cap-1", "1 Cap Ct");
    await waitUntil(async () => (await pieceStatus(first.id)) !== "queued", "the first card uses the cap");
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    const waiting = await sendEvent("cap-2", "2 Cap Ct");
    assert.equal(waiting.status, "awaiting_approval");

    await open("/approvals", "Approvals");
    const notice = page.getByRole("alert").filter({ hasText: "Your organization's monthly cap is reached" });
    await notice.getByText("Cards you approve now wait: they go out on", { exact: false }).waitFor();
    await checkBothWidths("approvals-cap-reached");
    await page
      .getByRole("listitem", { name: /2 Cap Ct/ })
      .getByRole("button", { name: /^Approve/ })
      .click();
    await page
      .getByRole("status")
      .getByText(
        /^1 card approved: it waits because a monthly cap is reached, and goes out on [A-Z][a-z]{2} 1 or as soon as an owner raises the cap\.$/,
      )
      .waitFor();
    await waitUntil(
      async () => (await pieceStatus(waiting.id)) === "capped",
      "the approved card is held by the cap",
    );

    await open("/", "Overview");
    const item = page.getByRole("alert").filter({ hasText: "1 card waits because a monthly cap is reached" });
    await item.waitFor();
    await item.getByRole("link", { name: "See the waiting cards" }).click();
    await page.getByRole("heading", { level: 1, name: "Mail" }).waitFor();
    await page.getByRole("link", { name: "Homer Simpson" }).first().waitFor();
    assert.match(page.url(), /status=capped/);
    await open("/", "Overview");
    await checkBothWidths("overview-capped");
  });
  it("the builder says at once that the CRM has not sent the event type typed, and what it sends", async () => {
    await open("/automations/new", "New automation");
    const eventType = page.getByRole("combobox", { name: "Event type" });
    await eventType.fill("job.complete");
    const said = await eventType.evaluate(
      (input) =>
        document.getElementById(input.getAttribute("aria-describedby")?.split(" ")[0] ?? "")?.textContent,
    );
    assert.equal(
      said,
      'Your CRM has not sent a "job.complete" event yet, so this automation mails nothing until one arrives. It has sent: job.completed.',
    );
    await checkBothWidths("builder-event-type-not-sent");
    await eventType.fill("job.completed");
    await page.getByText("What your CRM sent, newest first.", { exact: false }).waitFor();
  });
});
