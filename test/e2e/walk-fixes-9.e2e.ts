/**
 * A ninth walk's fixes, checked as a person meets them in a real browser against the real service:
 * Mail on a phone says each address once (under the recipient, no Address column cut off at the
 * edge); Create API key reads without a stray space; a used invitation link leads to Sign in; Team's
 * invite says a malformed email is not one; Insert merge field keeps the field apart from the next
 * word; the builder's proof says which sample it drew with and who picked it; Customers says a home
 * a lead marked won came from that won job. Screens: axe-core and screenshots in test/e2e/artifacts/,
 * at 1280x800 and 390x844.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { settled, VIEWPORTS } from "./browser.ts";
import {
  type App,
  acceptInvitation,
  jobEvent,
  pickCsv,
  startApp,
  waitForSamplePicked,
  waitUntil,
} from "./session.ts";

const OWNER = { email: "owner@walk9.test", name: "Nia Owner", password: "correct horse battery" };
const HOMER = { street: "742 Evergreen Terrace", client_name: "Homer Simpson" };
const ANN = { street: "12 Oak Ln", client_name: "Ann Lee" };

let app: App;
let page: Page;
let orgId: string;
let ownerInviteUrl: string;
let screens: ReturnType<App["screens"]>;

/** The landing page of the mailed card to `street`, once it is mailed. */
async function landingUrlOf(street: string) {
  let url = "";
  await waitUntil(async () => {
    const piece = (await app.campaigns(orgId))
      .flatMap((campaign) => campaign.pieces)
      .find((candidate) => candidate.address.startsWith(street));
    url = piece?.status === "mailed" ? piece.landing_url : "";
    return url !== "";
  }, `the card to ${street} is mailed`);
  return url;
}

describe("fixes from a ninth walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-9" });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = (await app.operator("POST", "/orgs", { name: "Kowalski Roofing" })).org_id;
    ownerInviteUrl = (
      await app.operator("POST", `/orgs/${orgId}/invitations`, { email: OWNER.email, role: "owner" })
    ).invite_url;
    await acceptInvitation(page, OWNER, ownerInviteUrl);
    const apiKey: string = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    // Homer's first, Ann's last: Ann's record is the newest sample.
    await app.sendEvent(apiKey, jobEvent("walk9-homer", HOMER));
    await landingUrlOf(HOMER.street);
    await app.sendEvent(apiKey, jobEvent("walk9-ann", ANN));
    await landingUrlOf(ANN.street);
  });

  after(async () => {
    await app?.close();
  });

  it("Mail on a phone says each address once, under the recipient, and nothing is cut off", async () => {
    await screens.open("/mail", "Mail");
    const postcards = page.getByRole("region", { name: "Postcards" });
    await postcards.getByRole("row").nth(2).waitFor();
    const headings = () => postcards.getByRole("columnheader").allInnerTexts();
    assert.ok((await headings()).includes("Address"), "a desktop keeps its Address column");
    await screens.checkBothWidths("walk9-mail");

    await page.setViewportSize(VIEWPORTS.phone);
    await waitUntil(async () => !(await headings()).includes("Address"), "the Address column goes");
    // Created and Mailed go too: when the card was mailed is said under the recipient instead.
    assert.deepEqual(await headings(), ["Proof", "Recipient", "Automation"]);
    const homer = postcards.getByRole("row", { name: /Homer Simpson/ });
    const cells = await homer.getByRole("cell").allInnerTexts();
    const saying = cells.filter((text) => text.includes(HOMER.street));
    assert.equal(saying.length, 1, `the address shows once in the row: ${cells.join(" | ")}`);
    const recipient = homer.getByRole("cell").nth(1);
    assert.match(
      await recipient.innerText(),
      /Homer Simpson\s+742 Evergreen Terrace, Springfield, IL 62704\s+Mailed/i,
    );
    const address = recipient.getByText("742 Evergreen Terrace, Springfield, IL 62704");
    await settled(page);
    const box = (await address.boundingBox())!;
    assert.ok(
      box.x + box.width <= VIEWPORTS.phone.width,
      `the address ends in sight (${JSON.stringify(box)})`,
    );
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("Create API key says which scope each endpoint needs, without a stray space", async () => {
    await screens.open("/developers?tab=keys", "Developers");
    await page.getByRole("button", { name: "Create API key" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Create API key" });
    const description = dialog.getByText(/^For developers: each choice is a scope of the API/);
    await description.waitFor();
    assert.equal(
      (await description.innerText()).trim(),
      "For developers: each choice is a scope of the API; the API reference names the scope each endpoint needs.",
    );
    await screens.checkBothWidths("walk9-create-key");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
  });

  it("a used invitation link says so and leads to Sign in", async () => {
    const visitor = await app.newPage();
    const visitorScreens = app.screens(visitor);
    await visitor.goto(ownerInviteUrl);
    await visitor.getByRole("heading", { level: 1, name: "Join your team" }).waitFor();
    await visitor
      .getByText(/^This invitation has expired or was already used\. If you set up your account/)
      .waitFor();
    await visitorScreens.checkBothWidths("walk9-invite-used");
    await visitor.getByRole("link", { name: "Sign in" }).click();
    await visitor.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await visitor.getByLabel("Email").fill(OWNER.email);
    await visitor.getByRole("textbox", { name: /^Password/ }).fill(OWNER.password);
    await visitor.getByRole("button", { name: "Sign in" }).click();
    await visitor.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await visitor.context().close();
  });

  it("Team's invite says a malformed email is not one, and an empty field asks for it", async () => {
    await screens.open("/settings?tab=team", "Settings");
    const email = page.getByRole("textbox", { name: /^Email/ });
    const send = page.getByRole("button", { name: "Send invitation" });
    await send.click();
    await page.getByText("Enter their email address").waitFor();
    await email.fill("mike at kowalski");
    await send.click();
    await page.getByText("This is not an email address: write it as name@example.com").waitFor();
    assert.equal(await page.getByText("Enter their email address").count(), 0);
    assert.equal(await email.evaluate((input) => input === document.activeElement), true, "focus on Email");
    await screens.checkBothWidths("walk9-invite-malformed");
  });

  it("the builder says which sample the proof is drawn with, and Insert merge field spaces the field", async () => {
    await screens.open("/automations/new?event_type=job.completed", "New automation");
    await waitForSamplePicked(page);
    const proofNote = page.getByText(/^Drawn with /).first();
    await waitUntil(
      async () => (await proofNote.innerText()).includes(ANN.street),
      "the proof names the sample",
    );
    assert.equal(
      await proofNote.innerText(),
      "Drawn with the newest sample record: 12 Oak Ln. Pick another under Sample record to draw a different home.",
    );
    assert.equal(await page.getByText(/you picked/).count(), 0, "no one picked it");

    // The caret before "Scan the code": the field goes in with a space before the next word, not two.
    const message = page.getByRole("textbox", { name: "Message" });
    await message.evaluate((element) => {
      const textarea = element as HTMLTextAreaElement;
      const at = textarea.value.indexOf("Scan");
      textarea.focus();
      textarea.setSelectionRange(at, at);
    });
    await page.getByRole("button", { name: "Insert merge field" }).click();
    await page.getByRole("menuitem", { name: /^Street/ }).click();
    await waitUntil(async () => (await message.inputValue()).includes("{{street}}"), "the field is in");
    const text = await message.inputValue();
    assert.match(text, /\{\{city\}\}\. \{\{street\}\} Scan the code/, text);
    assert.doesNotMatch(text, / {2}/, "no double space");
    await screens.checkBothWidths("walk9-builder-merge-field");

    // Picked by the person, the proof says so.
    const sampleField = page.getByLabel("Sample record");
    const homerSample = await sampleField.evaluate(
      (select, street) =>
        [...(select as HTMLSelectElement).options].find((option) => option.text.endsWith(street))!.value,
      HOMER.street,
    );
    await sampleField.selectOption(homerSample);
    await waitUntil(
      async () =>
        (await proofNote.innerText()) === "Drawn with the sample record you picked: 742 Evergreen Terrace.",
      "the proof says the person picked Homer's record",
    );
    await screens.checkScreen("walk9-builder-picked", "desktop");

    // On a phone, the preview sheet says the same.
    await page.setViewportSize(VIEWPORTS.phone);
    await page.getByRole("button", { name: "Preview card" }).click();
    const sheet = page.getByRole("dialog", { name: "Card preview" });
    await sheet.getByText("Drawn with the sample record you picked: 742 Evergreen Terrace.").waitFor();
    await sheet.getByAltText(/^Postcard proof front/).waitFor();
    await screens.checkScreen("walk9-builder-preview-sheet", "phone");
    await page.keyboard.press("Escape");
    await sheet.waitFor({ state: "hidden" });
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("Customers says a home became a customer by a lead marked won, and a hand-added one was added here", async () => {
    const lead = await page.request.post(await landingUrlOf(HOMER.street), {
      data: { first_name: "Homer", last_name: "Simpson", email: "homer.j@example.com" },
    });
    assert.equal(lead.status(), 201, await lead.text());
    const leadId: string = (await lead.json()).lead_id;
    await screens.open(`/leads/${leadId}`, "Homer Simpson");
    const card = page.getByRole("heading", { level: 2, name: "Job won" }).locator("xpath=..");
    await card.getByRole("textbox", { name: "Job amount" }).fill("18500");
    await card.getByRole("button", { name: "Mark as won" }).click();
    await card.getByText("Amount: $18,500").waitFor();

    await screens.open("/customers", "Customers");
    await page.getByRole("textbox", { name: /^Address/ }).fill("1 Cedar Way, Springfield, IL 62704");
    await page.getByRole("button", { name: "Add customer" }).click();
    await page.getByRole("status").getByText("Added.").waitFor();
    const list = page.getByRole("region", { name: "Registered customers" });
    const fromOf = async (street: string) => {
      const row = list.getByRole("row", { name: new RegExp(`^${street}`) });
      await row.waitFor();
      return (await row.getByRole("cell").nth(2).innerText()).trim();
    };
    assert.equal(await fromOf(HOMER.street), "Won job (marked in the app)");
    assert.equal(await fromOf("1 Cedar Way"), "Added here");
    await screens.checkBothWidths("walk9-customers-from");
  });

  it("a past jobs import says how many rows it read, imported and left out, and why", async () => {
    await screens.open("/customers?tab=past-jobs", "Customers");
    await page.getByRole("tab", { name: "Past jobs", selected: true }).waitFor();
    await pickCsv(
      page,
      "pastjobs.csv",
      "address,city,state,zip,job_date,customer\r\n12 Elm St,Springfield,IL,62701,2024-05-02,Otto Mann\r\n400 Pine Rd,Springfield,IL,62702,2023-09-14,Jimbo Jones\r\n1 Nowhere,,,,,Bad\r\n",
      "3 rows read",
    );
    await page.getByRole("button", { name: "Import these jobs" }).click();
    await page
      .getByText(
        "3 rows read: 2 imported. Left out: 1 row whose address was not found on the map (check the street, town and ZIP in your file, then upload those rows again).",
      )
      .waitFor();
    await screens.checkBothWidths("walk9-past-jobs-result");
  });

  it("a customers CSV that reads as one column says why it cannot be sent, and how to save it", async () => {
    await screens.open("/customers", "Customers");
    await pickCsv(
      page,
      "semicolons.csv",
      "Customer Name;Street Address;Zip\r\nOtto;12 Elm St;62701\r\n",
      "1 row read",
    );
    await page.getByText("The first row, as read:").waitFor();
    const add = page.getByRole("button", { name: "Add these customers" });
    assert.equal(await add.isDisabled(), true);
    const reason = await add.getAttribute("aria-describedby");
    assert.equal(
      await page.locator(`[id="${reason}"]`).innerText(),
      'This file separates its columns with semicolons, so it reads as one column. In your spreadsheet, save it as "CSV (comma delimited)" and choose that file.',
    );
    await screens.checkBothWidths("walk9-customers-csv-one-column");
  });
});
