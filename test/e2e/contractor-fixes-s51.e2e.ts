/**
 * What a contractor's walk found in session 51, in a real browser against the real service: a job
 * the CRM sent without an address made no card and nothing in the app said so; now Overview's Needs
 * attention names it and links to the event as the CRM sent it, marked "No card: no address"; a
 * card's page says who approved it.
 * Axe-core and both widths on each screen.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@fixes51.test", name: "Rita Roofer", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let apiKey: string;
let orgId: string;
let automationId: string;

describe("contractor walk fixes (session 51)", () => {
  before(async () => {
    app = await startApp({ name: "fixes-s51" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ apiKey, orgId, automationId } = await app.ownerWithAutomation(page, "Ridgeline Roofing", OWNER));
  });

  after(async () => {
    await app?.close();
  });

  it("a job sent without an address is named in Needs attention and marked on its sample", async () => {
    const sent = await app.sendEvent(apiKey, jobEvent("job-no-street", { client_name: "No Street" }));
    assert.equal(sent.outcomes[0]?.reason, "no_address", JSON.stringify(sent));

    await open("/", "Overview");
    const item = page.getByRole("alert").filter({ hasText: 'Some "job.completed" events named no address' });
    await item
      .getByText(/so no card was made for them \(1 in all, the newest on \w{3} \d+, \d{4}\)\./)
      .waitFor();
    await checkBothWidths("fixes51-overview-no-address");

    await item.getByRole("link", { name: "See the events as your CRM sent them" }).click();
    await page.waitForURL(/\/developers\?.*tab=samples/);
    const sample = page.locator(".mantine-Paper-root").filter({ hasText: "No Street" });
    await sample.getByText("No card: no address").waitFor();
    await checkBothWidths("fixes51-sample-no-address");
  });

  it("a card's page says who approved it and when", async () => {
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    await app.sendEvent(
      apiKey,
      jobEvent("job-approve", { street: "8 Approval Way", client_name: "Ann Approve" }),
    );
    let pieceId = "";
    await waitUntil(async () => {
      const pieces = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);
      pieceId = pieces.find((piece) => piece.status === "awaiting_approval")?.id ?? "";
      return pieceId !== "";
    }, "the card waits for approval");
    await open("/approvals", "Approvals");
    await page.getByRole("button", { name: "Approve", exact: true }).first().click();
    await waitUntil(
      async () => (await app.operator("GET", `/pieces/${pieceId}`)).status !== "awaiting_approval",
      "the card is approved",
    );
    await open(`/mail/${pieceId}`, /Postcard to/);
    await page.getByText(new RegExp(`^Approved: by ${OWNER.name}, \\w{3} \\d+, \\d{4}`)).waitFor();
    await checkBothWidths("fixes51-approved-by");
  });

  it("a tracking step passed without its own record says it was reached by the next one's time, in words", async () => {
    const mailed = (await app.campaigns(orgId))
      .flatMap((campaign) => campaign.pieces)
      .find((piece) => piece.address.startsWith("8 Approval Way"))!;
    await waitUntil(
      async () => (await app.operator("GET", `/pieces/${mailed.id}`)).status === "mailed",
      "the approved card is mailed",
    );
    await open(`/mail/${mailed.id}`, /Postcard to/);
    const tracking = page.locator('[aria-label="Tracking timeline"]');
    await tracking.getByText("Mailed", { exact: true }).waitFor();
    const text = await tracking.innerText();
    // The local printer records no print file or hand-over of its own: those steps take the mail time.
    assert.match(text, /Print file ready\s+By \w{3} \d+, \d{4}/, text);
    assert.doesNotMatch(text, /estimated/i, "no badge a contractor reads as jargon");
  });
});
