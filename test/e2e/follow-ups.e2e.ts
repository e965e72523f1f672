/**
 * Follow-up cards in a real browser (issue 42) against the real service as a process printing with
 * the local provider: the builder adds a follow-up card with its delay, its text, its fit notice and
 * its own proof, refuses one that does not fit on its field, saves it; the automation list says how
 * many cards a home gets; an event's first card is mailed and its follow-up waits in Mail, scheduled,
 * and is cancelled from its page; a lead stops another home's follow-up, and the list and the
 * builder say what the follow-ups did. Every screen touched: axe-core (no serious or critical WCAG A/AA
 * violation) and a screenshot at desktop and phone width in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { formatDay } from "../../web/src/ui/format.ts";
import { waitForFocus } from "./page-probes.ts";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@followups.test", name: "Fran Follow", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;
let automationId: string;

/** Every proof image on the page has loaded. */
const proofsLoaded = () =>
  page.waitForFunction(() =>
    [...document.querySelectorAll<HTMLImageElement>("img[alt^='Postcard proof']")].every(
      (image) => image.complete && image.naturalWidth > 0,
    ),
  );

describe("follow-up cards in the browser: the builder, the list, Mail", () => {
  before(async () => {
    app = await startApp({ name: "follow-ups" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Follow Up Roofing", OWNER));
  });

  after(async () => {
    await app?.close();
  });

  it("adds a follow-up card with its delay, text and proof; a card that does not fit is refused on its field", async () => {
    await open(`/automations/${automationId}`, "Job done postcard");
    await page.getByRole("button", { name: "Add a follow-up card" }).click();
    const card = page.getByRole("region", { name: "Follow-up card 1" });
    // The card appears above the button: the focus goes to its first field.
    await waitForFocus(page, card.getByLabel("Days after the first card is mailed"), "the new card's delay");
    // A second card, removed again: its Remove button goes with it, the focus to Add a follow-up card.
    const add = page.getByRole("button", { name: "Add a follow-up card" });
    await add.click();
    const second = page.getByRole("region", { name: "Follow-up card 2" });
    await waitForFocus(
      page,
      second.getByLabel("Days after the first card is mailed"),
      "the second card's delay",
    );
    await second.getByRole("button", { name: "Remove follow-up card 2" }).click();
    await second.waitFor({ state: "detached" });
    await waitForFocus(page, add, "Add a follow-up card");
    await card.getByLabel("Days after the first card is mailed").fill("10");
    await card.getByRole("textbox", { name: "Headline" }).fill("Ten days on, {{street}}");
    const proof = page.getByRole("region", { name: "Proof of follow-up card 1" });
    await proof.getByAltText(/^Postcard proof front: .*Ten days on/).waitFor();
    await proofsLoaded();
    await card.getByText("The text fits the 4x6 card, merge fields counted at their longest.").waitFor();

    const message = card.getByRole("textbox", { name: "Message" });
    const typed = await message.inputValue();
    await message.fill(`${typed} ${"We fix roofs, gutters and siding on every street in town. ".repeat(10)}`);
    await card.getByRole("status").filter({ hasText: "The text does not fit the card" }).waitFor();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await card.getByText(/^does not fit the 4x6 card: \d+ of its \d+ characters fit/).waitFor();
    await proofsLoaded();
    await checkBothWidths("follow-ups-builder-too-long");

    await message.fill(typed);
    await card.getByText("The text fits the 4x6 card, merge fields counted at their longest.").waitFor();
    await proofsLoaded();
    await checkBothWidths("follow-ups-builder");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Job done postcard is saved.").waitFor();
    await open(`/automations/${automationId}`, "Job done postcard");
    const reloaded = page.getByRole("region", { name: "Follow-up card 1" });
    assert.equal(await reloaded.getByLabel("Days after the first card is mailed").inputValue(), "10");
    assert.equal(
      await reloaded.getByRole("textbox", { name: "Headline" }).inputValue(),
      "Ten days on, {{street}}",
    );
  });

  it("the automation list says how many cards a home gets", async () => {
    await open("/automations", "Automations");
    await page.getByText("2 cards: the first and 1 follow-up").waitFor();
    await checkBothWidths("follow-ups-list");
  });

  it("an event's follow-up waits in Mail as scheduled and is cancelled from its page", async () => {
    await app.sendEvent(
      apiKey,
      jobEvent("follow-up-1", { street: "5 Sequence Lane", client_name: "Lee Stopper" }),
    );
    let followUpId = "";
    await waitUntil(async () => {
      const pieces = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);
      followUpId = pieces.find((piece) => piece.status === "scheduled")?.id ?? "";
      return followUpId !== "" && pieces.some((piece) => piece.status === "mailed");
    }, "the first card is mailed and its follow-up scheduled");
    // The list counts the first card as sent to print; the follow-up, due in 10 days, is neither
    // sent nor waiting yet (it read "2 cards queued this month").
    await open("/automations", "Automations");
    const listCells = await page
      .getByRole("row")
      .filter({ hasText: "2 cards: the first and 1 follow-up" })
      .getByRole("cell")
      .allInnerTexts();
    assert.match(listCells.at(-1) ?? "", /^1 sent to print this month\s+0 waiting$/);
    await checkBothWidths("follow-ups-list-counts");

    await open("/mail?status=scheduled", "Mail");
    await page
      .getByText(/Follow-up card 1: mailed 10 days after the first card/)
      .first()
      .waitFor();
    // Not yet mailed, the card says the day it is due where a mailed card says when it was mailed.
    const listed = await page.request.get(`${app.base}/app/api/v1/pieces/${followUpId}`);
    const due = `Not yet, due ${formatDay((await listed.json()).scheduled_for)}`;
    const row = page.getByRole("row", { name: /Follow-up card 1/ });
    const headings = await page.getByRole("columnheader").allInnerTexts();
    const cells = await row.getByRole("cell").allInnerTexts();
    assert.equal(cells[headings.indexOf("Mailed")], due, `the Mailed column: ${cells.join(" | ")}`);
    await checkBothWidths("follow-ups-mail");

    // The first card's page lists its sequence: itself, then the follow-up with its day, linked.
    const firstId = (await app.campaigns(orgId))
      .flatMap((campaign) => campaign.pieces)
      .find((piece) => piece.status === "mailed")!.id;
    await open(`/mail/${firstId}`, /Postcard to/);
    const sequence = page.getByRole("heading", { name: "Cards of this sequence" }).locator("..");
    await sequence.getByText("First card (this card)").waitFor();
    await sequence.getByText(`Due ${formatDay((await listed.json()).scheduled_for)}`).waitFor();
    assert.equal(await sequence.getByText("Scheduled", { exact: true }).count(), 1);
    await checkBothWidths("follow-ups-first-card-sequence");
    await sequence.getByRole("link", { name: "Follow-up card 1" }).click();
    await page.waitForURL(`**/mail/${followUpId}`);
    await page.getByRole("link", { name: "First card" }).waitFor();
    await page.getByText("Follow-up card 1 (this card)").waitFor();

    await open(`/mail/${followUpId}`, /Postcard to/);
    await page.getByText(/Sequence: Follow-up card 1, due /).waitFor();
    // Its tracking starts where it is: scheduled, not queued (it is not in the print queue yet).
    const tracking = await page.locator('[aria-label="Tracking timeline"]').innerText();
    assert.match(tracking, /^Scheduled\s/, tracking);
    assert.doesNotMatch(tracking, /Queued\s+\w{3} \d/, "no queued date on a card not queued yet");
    await page.getByText(`Mailed: ${due}`).waitFor();
    await checkBothWidths("follow-up-scheduled");
    await page.getByRole("button", { name: "Cancel this card…" }).click();
    const asking = page.getByRole("dialog", { name: "Cancel this card?" });
    // A follow-up is cancelled alone: the dialog does not promise to stop cards after it.
    await asking
      .getByText(
        /^Follow-up card 1 to 5 Sequence Lane.* will not be printed or mailed\. The sequence's other cards are kept/,
      )
      .waitFor();
    await asking.getByRole("button", { name: "Yes, cancel the card" }).click();
    await page.getByText("The card will not print.").waitFor();
    const cancelled = await app.operator("GET", `/pieces/${followUpId}`);
    assert.equal(cancelled.status, "cancelled");
    // The first card's page says the follow-up stopped, and why.
    await open(`/mail/${firstId}`, /Postcard to/);
    const stoppedCard = page.getByRole("heading", { name: "Cards of this sequence" }).locator("..");
    await stoppedCard.getByText("Cancelled", { exact: true }).waitFor();
    await stoppedCard.getByText(`Cancelled by ${OWNER.name}`).waitFor();
    await checkBothWidths("follow-ups-first-card-stopped");
    // In Mail the cancelled card still says which card of the sequence it was (its reason says why it stopped).
    await open("/mail?status=cancelled", "Mail");
    const stopped = page.getByRole("row", { name: /Follow-up card 1/ });
    await stopped.waitFor();
    assert.match(await stopped.innerText(), /cancelled/i);
  });

  it("the list and the builder say what the follow-ups did: sent, due later, stopped after a lead, with the cents not spent", async () => {
    const profile = await page.request.patch(`${app.base}/app/api/v1/organization`, {
      headers: { origin: app.base },
      data: { cost_per_card_cents: 85 },
    });
    assert.equal(profile.status(), 200, await profile.text());
    await app.sendEvent(
      apiKey,
      jobEvent("follow-up-2", { street: "9 Answer Lane", client_name: "Ann Answer" }),
    );
    let answered: { id: string; landing_url: string } | undefined;
    await waitUntil(async () => {
      const pieces = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);
      answered = pieces.find(
        (piece) => piece.address.startsWith("9 Answer Lane") && piece.status === "mailed",
      );
      return answered !== undefined && pieces.filter((piece) => piece.status === "scheduled").length === 1;
    }, "the second home's first card is mailed and its follow-up scheduled");
    // The homeowner answers the first card: the follow-up stops before it costs anything.
    await page.goto(answered!.landing_url);
    await page.getByLabel("First name").fill("Ann");
    await page.getByLabel("Last name").fill("Answer");
    await page.getByLabel("Email").fill("ann@example.test");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();

    await open("/automations", "Automations");
    // Two follow-ups in all: the first home's, cancelled by hand, and this one, stopped by the lead.
    await page
      .getByText(
        "Follow-ups so far, 2 cards: 0 sent to print, 1 stopped after a lead from the home ($0.85 not spent), 1 not sent for other reasons",
      )
      .waitFor();
    await checkBothWidths("follow-ups-list-results");
    await open(`/automations/${automationId}`, "Job done postcard");
    await page
      .getByRole("region", { name: "Follow-up card 1" })
      .getByText(
        "So far: 0 sent to print, 1 stopped after a lead from the home, 1 not sent for other reasons.",
      )
      .waitFor();
    await checkBothWidths("follow-ups-builder-results");
  });

  it("turning the automation off says its follow-ups still to go will stop, and the save stops them", async () => {
    await app.sendEvent(
      apiKey,
      jobEvent("follow-up-3", { street: "12 Quiet Lane", client_name: "Quinn Quiet" }),
    );
    await waitUntil(async () => {
      const pieces = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);
      return pieces.some((piece) => piece.status === "scheduled");
    }, "the third home's follow-up is scheduled");
    await open(`/automations/${automationId}`, "Job done postcard");
    await page.getByRole("switch", { name: "Enabled" }).click();
    const warning = page.getByRole("alert").filter({ hasText: "Turning this automation off" });
    await warning
      .getByText(
        "Saving stops its 1 follow-up card still to go; turning it on again does not bring them back.",
      )
      .waitFor();
    await checkBothWidths("follow-ups-turning-off");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Job done postcard is saved.").waitFor();
    await open("/automations", "Automations");
    await page.getByText(/^Follow-ups so far, 3 cards: .*2 not sent for other reasons$/).waitFor();
    const stopped = (await app.campaigns(orgId))
      .flatMap((campaign) => campaign.pieces)
      .filter((piece) => piece.address.startsWith("12 Quiet Lane") && piece.status === "cancelled");
    assert.equal(stopped.length, 1, "the follow-up is stopped, its first card kept");
  });
});
