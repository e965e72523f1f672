/**
 * A contractor without a CRM or a developer sends themself a test card from the automation builder,
 * in a real browser against the real service: Get started says how; the dialog is prefilled with
 * the business's return address; an address no carrier can deliver to is refused on the form; a
 * double click mails one card, whose fate the dialog follows until the mail safety rules have
 * decided it; the card's page names it a test card; the record becomes the builder's sample and
 * ticks Get started. Unsaved changes wait for Save. Axe-core and both widths on the dialog, its
 * result and the builder; screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, countPosts, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@test-card.test", name: "Tess Tester", password: "correct horse battery" };
const AUTOMATION = "Job done postcard";

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let automationId: string;

const dialog = () => page.getByRole("dialog");
const sendButton = () => page.getByRole("button", { name: "Send a test card" });

describe("a test card sent from the automation builder", () => {
  before(async () => {
    app = await startApp({ name: "test-card" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    orgId = await app.signUpOwner(page, "Ridge Roofing", OWNER);
    automationId = (
      await app.operator("POST", `/orgs/${orgId}/automations`, {
        name: AUTOMATION,
        trigger: { type: "custom_api", event_type: "job.completed" },
      })
    ).id;
    const saved = await page.request.patch(`${app.base}/app/api/v1/organization`, {
      headers: { origin: app.base },
      data: {
        business_name: "Ridge Roofing",
        cost_per_card_cents: 85,
        return_address: { street: "12 Shingle Rd", city: "Springfield", state: "IL", postal_code: "62704" },
      },
    });
    assert.equal(saved.status(), 200, await saved.text());
  });
  after(async () => app?.close());

  it("Get started tells a contractor without a CRM where to send a test card", async () => {
    await open("/", "Overview");
    const checklist = page.getByRole("list", { name: "First steps" });
    await checklist.getByText("No CRM yet?").waitFor();
    await checklist.getByRole("link", { name: "automations" }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();
  });

  it("the dialog is prefilled, refuses an address no carrier can deliver to, and a double click mails one card", async () => {
    await open(`/automations/${automationId}`, AUTOMATION);
    await page
      .getByText("Testing needs a sample: send an event of this type, or a test card below.")
      .waitFor();
    await sendButton().click();
    await dialog().getByRole("heading", { name: "Send yourself a test card" }).waitFor();
    assert.equal(await dialog().getByLabel("Street").inputValue(), "12 Shingle Rd");
    assert.equal(await dialog().getByLabel("Name on the card").inputValue(), "Ridge Roofing");
    assert.equal(await dialog().getByLabel("ZIP code").inputValue(), "62704");
    await dialog().getByText("(about $0.85)", { exact: false }).waitFor();
    await checkBothWidths("test-card-dialog");

    await dialog().getByLabel("ZIP code").fill("10001");
    await dialog().getByRole("button", { name: "Mail the test card" }).click();
    await dialog()
      .getByText(/No carrier can deliver to this address: .*10001/)
      .waitFor();
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute("aria-invalid")),
      "true",
      "the refused field takes the focus",
    );

    await dialog().getByLabel("ZIP code").fill("62704");
    const posts = countPosts(page, `/app/api/v1/automations/${automationId}/test-card`);
    const saves: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "PATCH" && request.url().includes(`/automations/${automationId}`))
        saves.push(request.url());
    });
    await dialog().getByRole("button", { name: "Mail the test card" }).dblclick();
    await dialog().getByRole("heading", { name: "Your test card", exact: true }).waitFor();
    const decided = dialog().getByRole("status").filter({ hasText: "The test card to 12 Shingle Rd" });
    await decided.waitFor({ timeout: 60_000 });
    assert.match(await dialog().innerText(), /Mailed|Sent to printer/);
    await dialog().getByText("nothing is printed or mailed", { exact: false }).waitFor();
    assert.equal(posts.length, 1, "a double click mails one card");
    assert.deepEqual(saves, [], "sending the dialog does not save the automation around it");
    await checkBothWidths("test-card-sent");

    await dialog().getByRole("link", { name: "Open the card" }).click();
    await page.getByRole("heading", { level: 1, name: "Postcard to Ridge Roofing" }).waitFor();
    await page.getByText("A test card, from the automation's builder").waitFor();
    const cards = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);
    assert.equal(cards.length, 1, "one card, no follow-up");
  });

  it("the test card's record becomes the builder's sample and ticks Get started; unsaved changes wait for Save", async () => {
    await open(`/automations/${automationId}`, AUTOMATION);
    const testWithSample = page.getByRole("button", { name: "Test with a sample" });
    await waitUntil(async () => await testWithSample.isEnabled(), "Test with a sample is enabled");
    await page.getByRole("textbox", { name: /^Name/ }).fill(`${AUTOMATION} (edited)`);
    await page.getByText("Save first: a test card prints the saved card.").waitFor();
    assert.equal(await sendButton().isDisabled(), true);
    await checkBothWidths("test-card-unsaved");
    await page.getByRole("textbox", { name: /^Name/ }).fill(AUTOMATION);
    await waitUntil(async () => await sendButton().isEnabled(), "the saved card can be sent again");

    await open("/", "Overview");
    const checklist = page.getByRole("list", { name: "First steps" });
    await checklist.getByText("Send a test event").waitFor();
    assert.match(await checklist.innerText(), /Done:\s+Send a test event/);
  });

  it("a test card awaiting approval is marked as one in Approvals", async () => {
    const asked = await page.request.patch(`${app.base}/app/api/v1/automations/${automationId}/safety`, {
      headers: { origin: app.base },
      data: { approval_required: true },
    });
    assert.equal(asked.status(), 200, await asked.text());
    const sent = await page.request.post(`${app.base}/app/api/v1/automations/${automationId}/test-card`, {
      headers: { origin: app.base },
      data: {
        request_id: "3f2c1b0a-9e8d-4c7b-8a69-5f4e3d2c1b0a",
        recipient: {
          name: "Tess Tester",
          street: "77 Approval Ave",
          city: "Springfield",
          state: "IL",
          zip: "62704",
        },
      },
    });
    assert.equal(sent.status(), 202, await sent.text());
    const { piece_id: pieceId } = await sent.json();
    await waitUntil(async () => {
      const piece = await page.request.get(`${app.base}/app/api/v1/pieces/${pieceId}`);
      return piece.ok() && (await piece.json()).status === "awaiting_approval";
    }, "the test card waits for approval");
    await open("/approvals", "Approvals");
    await page.getByText("77 Approval Ave", { exact: false }).first().waitFor();
    await page.getByText(`${AUTOMATION} · test card`, { exact: false }).first().waitFor();
    await checkBothWidths("test-card-approvals");
  });

  it("a test card from a turned-off automation is not shown as a CRM event nobody listens to", async () => {
    const off = await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: "Estimate follow-up",
      enabled: false,
      trigger: { type: "custom_api", event_type: "estimate.sent" },
    });
    const sent = await page.request.post(`${app.base}/app/api/v1/automations/${off.id}/test-card`, {
      headers: { origin: app.base },
      data: {
        request_id: "8a4e5b0c-1d2e-4f3a-9b8c-7d6e5f4a3b2c",
        recipient: { street: "40 Quiet Ln", city: "Springfield", state: "IL", zip: "62704" },
      },
    });
    assert.equal(sent.status(), 202, await sent.text());
    await open("/", "Overview");
    await page.getByRole("heading", { name: "Needs attention" }).waitFor();
    await page.getByText("estimate.sent", { exact: false }).first().waitFor();
    assert.equal(await page.getByText("is used by Estimate follow-up, which is turned off").count(), 0);
    await open("/developers?tab=samples", "Developers");
    await page.getByRole("button", { name: /estimate\.sent/ }).click();
    await page.getByText("Test cards only").first().waitFor();
    await page.getByText("Only test cards sent from an automation's builder came with this type").waitFor();
    await checkBothWidths("test-card-only-samples");
  });
});
