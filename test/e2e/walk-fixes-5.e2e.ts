/**
 * A fifth contractor's walk, fixed and checked as a person meets it, in a real browser against the
 * real service: a refused field in a row lined up with its button (Add a customer, Invite someone)
 * leaves the row's inputs and button on one line, and Team's "(you)" is the size of the name it
 * follows, Past jobs says what turns on its greyed New mailing, and an empty Name, Endpoint URL or
 * Email is refused in the app's words on the field, not by the browser's "Please fill out this
 * field". Screens: axe-core and screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { screenshot } from "./browser.ts";
import { waitForFocus } from "./page-probes.ts";
import { type App, MAPLE_AVE_JOBS, startApp } from "./session.ts";

const OWNER = { email: "owner@walk5.test", name: "Wes Walker", password: "correct horse battery" };

let app: App;
let page: Page;
let orgId: string;
let screens: ReturnType<App["screens"]>;

/** The bottom edge of each element, in CSS pixels, rounded. */
async function bottoms(...elements: Locator[]) {
  return Promise.all(
    elements.map(async (element) => {
      const box = await element.boundingBox();
      assert.ok(box, "the element is shown");
      return Math.round(box.y + box.height);
    }),
  );
}

describe("fixes from a fifth walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-5" });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Walk Roofing", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("Add a customer, refused, keeps Notes and Add customer on the address's line", async () => {
    await screens.open("/customers", "Customers");
    const address = page.getByRole("textbox", { name: "Address", exact: true });
    const notes = page.getByRole("textbox", { name: "Notes", exact: true });
    const add = page.getByRole("button", { name: "Add customer" });
    await address.fill("nowhere");
    await add.click();
    await page.getByText("Give the house number and street, and the city or ZIP").waitFor();
    const [addressFoot, notesFoot, addFoot] = await bottoms(address, notes, add);
    assert.equal(notesFoot, addressFoot, "the Notes field ends where the address field does");
    assert.equal(addFoot, addressFoot, "Add customer ends where the address field does");
    await screenshot(page, "walk5-customer-refused", "desktop");
    await screens.checkBothWidths("walk5-customer-refused");
  });

  it("Invite someone, refused, keeps Role and Send invitation on the email's line", async () => {
    await screens.open("/settings?tab=team", "Settings");
    const email = page.getByRole("textbox", { name: /^Email/ });
    const role = page.getByRole("textbox", { name: "Role" }).or(page.getByRole("combobox", { name: "Role" }));
    const send = page.getByRole("button", { name: "Send invitation" });
    // An address no one reads mail at is refused on its field before it is sent.
    await email.fill("a@b");
    await send.click();
    await page.getByText("This is not an email address: write it as name@example.com").waitFor();
    const [emailFoot, roleFoot, sendFoot] = await bottoms(email, role.first(), send);
    assert.equal(roleFoot, emailFoot, "the Role field ends where the email field does");
    assert.equal(sendFoot, emailFoot, "Send invitation ends where the email field does");
    await screenshot(page, "walk5-invite-refused", "desktop");
  });

  it("Team's '(you)' is the size of the name it follows", async () => {
    await screens.open("/settings?tab=team", "Settings");
    const own = page.getByRole("row").filter({ hasText: OWNER.email });
    const you = own.getByText("(you)");
    await you.waitFor();
    const sizes = await you.evaluate((element) => ({
      you: getComputedStyle(element).fontSize,
      name: getComputedStyle(element.parentElement!).fontSize,
    }));
    assert.equal(sizes.you, sizes.name, "(you) is written at the name's size");
    await screens.checkBothWidths("walk5-team");
  });

  it("Past jobs says what turns on New mailing while no batch is ticked", async () => {
    const apiKey: string = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.importPastJobs(apiKey, MAPLE_AVE_JOBS);
    await screens.open("/customers", "Customers");
    await page.getByRole("tab", { name: "Past jobs" }).click();
    const newMailing = page.getByRole("link", { name: "New mailing" });
    await newMailing.waitFor();
    assert.equal(await newMailing.getAttribute("aria-disabled"), "true", "nothing is ticked yet");
    const hint = "Tick the batches to mail in the Mail column, then choose New mailing to write their card.";
    await page.getByText(hint).waitFor();
    // A screen reader on the greyed link hears the same.
    assert.equal(
      await newMailing.evaluate(
        (link) =>
          link.getAttribute("aria-describedby") &&
          document.getElementById(link.getAttribute("aria-describedby")!)?.textContent,
      ),
      hint,
    );
    await page.getByRole("checkbox", { name: /^Mail the batch of / }).check();
    const ticked = page.getByRole("link", { name: "New mailing from 1 batch" });
    await ticked.waitFor();
    assert.equal(
      await ticked.getAttribute("aria-describedby"),
      null,
      "once ticked, nothing is left to explain",
    );
    await screens.checkBothWidths("walk5-past-jobs");
  });

  it("an empty key name, endpoint URL or invited email is refused in the app's words, on the focused field", async () => {
    await screens.open("/developers?tab=keys", "Developers");
    await page.getByRole("button", { name: "Create API key" }).click();
    const keyDialog = page.getByRole("dialog", { name: "Create API key" });
    const keyName = keyDialog.getByRole("textbox", { name: "Name" });
    await waitForFocus(page, keyName, "the Name field");
    await keyDialog.getByRole("button", { name: "Create key" }).click();
    await keyDialog.getByText("Name the key after where it is used, e.g. CRM").waitFor();
    await waitForFocus(page, keyName, "the refused Name field");
    await screenshot(page, "walk5-key-name-empty", "desktop");
    await keyDialog.getByRole("button", { name: "Cancel" }).click();
    await keyDialog.waitFor({ state: "hidden" });

    await screens.open("/developers?tab=webhooks", "Developers");
    await page.getByRole("button", { name: "Add endpoint" }).first().click();
    const hookDialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    const url = hookDialog.getByRole("textbox", { name: "Endpoint URL" });
    await hookDialog.getByRole("button", { name: "Add endpoint" }).click();
    await hookDialog.getByText("Enter the full https:// address your CRM gave you").waitFor();
    await waitForFocus(page, url, "the refused Endpoint URL field");
    await page.keyboard.press("Escape");
    await hookDialog.waitFor({ state: "hidden" });

    await screens.open("/settings?tab=team", "Settings");
    const email = page.getByRole("textbox", { name: /^Email/ });
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText("Enter their email address").waitFor();
    await waitForFocus(page, email, "the refused Email field");
  });
});
