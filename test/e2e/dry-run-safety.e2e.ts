/**
 * "Test with a sample" in a real browser against the real service tells what mail safety would do
 * to a real card of the sample now: a home that just got a card would be skipped (the frequency cap
 * per home), a new automation set to approve each card would hold it in Approvals, a home in a
 * saved automation's holdout group would get no card, and nor would an address the check before
 * print refuses.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { normalizeAddress } from "../../src/domain/address.ts";
import { isHeldOut } from "../../src/domain/holdout-group.ts";
import { type App, jobEvent, startApp, waitForSamplePicked, waitUntil } from "./session.ts";

const OWNER = { email: "owner@dry-run.test", name: "Tess Tester", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;
let automationId: string;

const result = () => page.getByRole("status").filter({ hasText: "This was a test" });

async function testWithSample() {
  await waitForSamplePicked(page);
  await page.getByRole("button", { name: "Test with a sample" }).click();
}

describe("the builder's test says what mail safety would do to a real card of the sample", () => {
  before(async () => {
    app = await startApp({ name: "dry-run-safety" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Frequent Fencing", OWNER));
  });

  after(async () => {
    await app?.close();
  });

  it("a home that just got a card from a real event: the test says a real event would skip it", async () => {
    const answer = await app.sendEvent(
      apiKey,
      jobEvent("fence-1", { street: "18 Frequency Ct", client_name: "Fran Fence" }),
    );
    assert.equal(answer.outcomes?.[0]?.reason, "queued", JSON.stringify(answer));
    let pieceId = "";
    await waitUntil(async () => {
      const piece = (await app.campaigns(orgId))
        .flatMap((campaign) => campaign.pieces)
        .find((p) => p.address.startsWith("18 Frequency"));
      pieceId = piece?.id ?? "";
      return piece !== undefined && piece.status !== "queued";
    }, "the real card leaves queued");

    await open(`/automations/${automationId}`, "Job done postcard");
    await testWithSample();
    await result().getByText("No card: this home got one recently").waitFor();
    assert.match(
      await result().innerText(),
      /(This home got a card on [A-Z][a-z]{2} \d{1,2}, \d{4}|A card to this home is already waiting or printing); a real event would skip it \(one card every 30 days\)\./,
    );
    const earlier = result().getByRole("link", { name: "See that card" });
    assert.equal(await earlier.getAttribute("href"), `/app/mail/${pieceId}`);
    await result().scrollIntoViewIfNeeded();
    await checkBothWidths("dry-run-frequency-cap");
  });

  it("a new automation set to approve each card: the test says a real card would wait in Approvals, and not without it", async () => {
    // A type no automation is bound to: the sample queues no card, so its home is fresh.
    await app.sendEvent(
      apiKey,
      jobEvent("roof-1", { street: "7 Approval Way", client_name: "Abe Approver" }, "roof.inspected"),
    );
    await open("/automations/new?event_type=roof.inspected", "New automation");
    await page.getByRole("textbox", { name: /^Name/ }).fill("Roof check-in");
    const approval = page
      .getByRole("group", { name: "Safety" })
      .getByRole("switch", { name: "Approve each card before print" });
    // Mantine's switch input is visually hidden; a click event on it toggles it as a label click would.
    await approval.dispatchEvent("click");
    assert.equal(await approval.isChecked(), true);
    await testWithSample();
    await result().getByText("A card would wait for your approval").waitFor();
    assert.match(
      await result().innerText(),
      /A real card would wait for your approval in Approvals before it prints\./,
    );
    assert.equal(
      await result().getByRole("link", { name: "Approvals" }).getAttribute("href"),
      "/app/approvals",
    );
    await result().scrollIntoViewIfNeeded();
    await checkBothWidths("dry-run-approval");

    await approval.dispatchEvent("click");
    assert.equal(await approval.isChecked(), false);
    await page.getByRole("button", { name: "Test with a sample" }).click();
    await result().getByText("A card would be mailed").waitFor();
    assert.doesNotMatch(await result().innerText(), /approval/);
  });

  it("a home in a saved automation's holdout group: the test says it would get no card, and why", async () => {
    const created = await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: "Gutter holdout",
      trigger: { type: "custom_api", event_type: "gutter.cleaned" },
      holdout_percent: 50,
    });
    let number = 1;
    while (!isHeldOut(created.id, 50, normalizeAddress(`${number} Holdout St, Springfield, IL 62704`)))
      number++;
    await app.sendEvent(apiKey, jobEvent("gutter-1", { street: `${number} Holdout St` }, "gutter.cleaned"));

    await open(`/automations/${created.id}`, "Gutter holdout");
    await testWithSample();
    await result().getByText("No card: this home is in the holdout group").waitFor();
    assert.match(
      await result().innerText(),
      /This automation keeps 50 % of homes out of its mail, and this home is one of them/,
    );
    assert.match(await result().innerText(), new RegExp(`The home: ${number} Holdout St`));
    await result().scrollIntoViewIfNeeded();
    await checkBothWidths("dry-run-holdout");
  });

  it("an address no carrier can deliver (its ZIP is in another state): the test says no card, and why", async () => {
    await app.sendEvent(
      apiKey,
      jobEvent(
        "deck-1",
        { street: "12 Main St", city: "Austin", state: "TX", zip: "10001", client_name: "Dee Deck" },
        "deck.stained",
      ),
    );
    await open("/automations/new?event_type=deck.stained", "New automation");
    // The earlier test's new automation was left unsaved: the builder offers it back.
    await page.getByRole("dialog").getByRole("button", { name: "Discard" }).click();
    await page.getByRole("textbox", { name: /^Name/ }).fill("Deck follow-up");
    await testWithSample();
    await result().getByText("No card: the address cannot be delivered").waitFor();
    assert.match(
      await result().innerText(),
      /The address check before print refuses this address \(ZIP 10001 is in NY, not TX\): a real card would be marked undeliverable and cost nothing\./,
    );
    await result().scrollIntoViewIfNeeded();
    await checkBothWidths("dry-run-undeliverable");
  });
});
