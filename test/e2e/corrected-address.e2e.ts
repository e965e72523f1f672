/**
 * A card no carrier could deliver, sent again from its page to the address the owner corrects, in
 * a real browser against the real service: a finished job sends no next event, so the advice to fix
 * the address in the CRM never mailed the home. Axe-core and both widths on each screen.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@corrected.test", name: "Cora Rect", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];

const pieceStatus = async (id: string) => (await app.operator("GET", `/pieces/${id}`)).status as string;

describe("an undeliverable card sent again to a corrected address", () => {
  before(async () => {
    app = await startApp({ name: "corrected-address" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
  });

  after(async () => {
    await app?.close();
  });

  it("the owner corrects the address on the card's page; the new card replaces it and Overview stops asking", async () => {
    const { apiKey, orgId } = await app.ownerWithAutomation(page, "Rightway Roofing", OWNER);
    const answer = await app.sendEvent(
      apiKey,
      jobEvent("wrong-zip", { street: "412 Maple Ave", zip: "10001", client_name: "Pat Doe" }),
    );
    assert.equal(answer.outcomes[0]?.reason, "queued", JSON.stringify(answer));
    const original = await app.newPieces(orgId)("wrong-zip");
    await waitUntil(
      async () => (await pieceStatus(original.id)) === "undeliverable",
      "the check stops the card",
    );

    await open("/", "Overview");
    const attention = page.getByRole("alert").filter({ hasText: "no carrier can deliver to its address" });
    await attention.getByText("An owner can correct the address on the card's page in Mail").waitFor();

    await open(`/mail/${original.id}`, "Postcard to Pat Doe");
    const address = page.getByRole("textbox", { name: "Corrected address" });
    assert.equal(await address.inputValue(), original.address, "starts from the address as written");
    await checkBothWidths("corrected-address-form");

    // Still New York's ZIP under Springfield, IL: refused on the field, before anything is sent.
    await address.fill("412 Maple Ave, Springfield, IL 10001");
    await page.getByRole("button", { name: "Send to the corrected address" }).click();
    await page.getByText(/No carrier can deliver to this address either/).waitFor();
    assert.equal(await address.getAttribute("aria-invalid"), "true");
    await waitUntil(
      async () => (await address.evaluate((input) => document.activeElement === input)) === true,
      "the refused field has the focus",
    );

    await address.fill("412 Maple Ave, Springfield, IL 62704");
    await page.getByRole("button", { name: "Send to the corrected address" }).click();
    await page.getByText("Sent to a corrected address: it replaces the").waitFor();
    const newId = page.url().split("/mail/")[1]!;
    assert.notEqual(newId, original.id, "the new card's page is open");
    await waitUntil(async () => (await pieceStatus(newId)) === "mailed", "the corrected card is mailed");
    await page.reload();
    await page.getByText("Mailed", { exact: true }).first().waitFor();
    await checkBothWidths("corrected-address-new-card");

    await page.getByRole("link", { name: /card no carrier could deliver to 412 Maple Ave/ }).click();
    const sent = page.getByRole("alert").filter({ hasText: "Sent again to a corrected address" });
    await sent.getByText("A new card was made for 412 Maple Ave, Springfield, IL 62704").waitFor();
    assert.equal(await page.getByRole("textbox", { name: "Corrected address" }).count(), 0, "sent once");
    await checkBothWidths("corrected-address-sent");

    await open("/", "Overview");
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    assert.equal(
      await page.getByText("no carrier can deliver to its address").count(),
      0,
      "a corrected card needs nothing more",
    );
    await open("/mail?status=undeliverable", "Mail");
    const row = page.getByRole("row").filter({ hasText: "Springfield, IL 10001" });
    await row.getByText("Sent again to a corrected address").waitFor();
  });
});
