/**
 * What a contractor's walk through the app found, fixed and checked as a person sees it, in a real
 * browser against the real service: a failure no field can show is said inside the dialog that
 * asked (Create API key, Add endpoint), a refusal on a field reads as words (no `address:` code
 * name), a double-click creates or adds once, a form whose Save or Test sits a screen below a wrong
 * field takes the person to it, file fields say what to do, and New mailing's page button stays
 * still while "Send this mailing?" sends. Screens: axe-core and screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { VIEWPORTS } from "./browser.ts";
import { clickWithRequestHeld, type HeldFailure, waitForFocus, waitForLoading } from "./page-probes.ts";
import { type App, jobEvent, MAPLE_AVE_JOBS, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@walk.test", name: "Wade Walker", password: "correct horse battery" };

let app: App;
let page: Page;
let orgId: string;
let screens: ReturnType<App["screens"]>;

const toasts = () => page.locator(".mantine-Notification-root").count();

/**
 * `field` filled with `value`, `submit` pressed and its request answered with `failure`: the failure
 * is said in the alert headed `heading` within `scope`, the field is not blamed, and no toast repeats it.
 */
async function failureSaidApart(options: {
  scope: Page | Locator;
  field: Locator;
  value: string;
  submit: Locator;
  method: string;
  path: RegExp;
  failure: HeldFailure;
  heading: string;
}) {
  const { scope, field, failure } = options;
  await field.fill(options.value);
  const failing = await clickWithRequestHeld(page, options.submit, options.method, options.path);
  failing.release(failure);
  await scope.getByRole("alert").filter({ hasText: options.heading }).getByText(failure.message).waitFor();
  assert.equal(await field.getAttribute("aria-invalid"), null, "the field is not blamed");
  assert.equal(await toasts(), 0, "no toast repeats the failure");
}

describe("fixes from a contractor's walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes" });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Walk Plumbing", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("Create API key says a failure in the dialog, a too-long name on its field, and a double-click makes one key", async () => {
    await screens.open("/developers?tab=keys", "Developers");
    await page.getByRole("button", { name: "Create API key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create API key" });
    const name = dialog.getByRole("textbox", { name: "Name" });
    const create = dialog.getByRole("button", { name: "Create key" });

    // Longer than the API takes: said on the field before anything is sent.
    await name.fill("k".repeat(201));
    await create.click();
    await dialog.getByText("Use at most 200 characters").waitFor();

    // The server's own refusal of a field lands on that field, in words.
    await name.fill("CRM");
    const refused = await clickWithRequestHeld(page, create, "POST", /\/keys$/);
    refused.release({
      status: 422,
      code: "invalid_payload",
      message: "name: must NOT have more than 200 characters",
    });
    await dialog.getByText("Use at most 200 characters").waitFor();
    assert.equal(await dialog.getByText("name: must NOT").count(), 0, "no field code name is shown");

    // A failure no field can show: said inside the dialog, which stays open with what was typed.
    const failing = await clickWithRequestHeld(page, create, "POST", /\/keys$/);
    failing.release({ status: 500, code: "internal_error", message: "Something went wrong on our side." });
    const failure = dialog.getByRole("alert").filter({ hasText: "The key was not created" });
    await failure.getByText("Something went wrong on our side.").waitFor();
    assert.equal(await name.inputValue(), "CRM", "the name typed stays");
    assert.equal(await toasts(), 0, "no toast repeats the dialog's failure");
    await screens.checkScreen("walk-create-key-failed", "desktop");

    // Tried again with a double-click: one key, shown; the failure line is gone.
    await create.dblclick();
    await page.getByRole("dialog", { name: "Your new API key" }).getByLabel("New API key").waitFor();
    assert.equal(await failure.count(), 0);
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByRole("button", { name: "Revoke CRM" }).waitFor();
    assert.equal(
      await page.getByRole("button", { name: /^Revoke / }).count(),
      1,
      "a double-click made one key",
    );
  });

  it("Add endpoint says a server failure in the dialog, not on the URL field", async () => {
    await screens.open("/developers?tab=webhooks", "Developers");
    await page.getByRole("button", { name: "Add endpoint" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    await failureSaidApart({
      scope: dialog,
      field: dialog.getByRole("textbox", { name: "Endpoint URL" }),
      value: "https://hooks.example.com/porchlight",
      submit: dialog.getByRole("button", { name: "Add endpoint" }),
      method: "POST",
      path: /\/subscriptions$/,
      failure: { status: 503, code: "service_unavailable", message: "The service is unavailable." },
      heading: "The endpoint was not added",
    });
    await screens.checkScreen("walk-add-endpoint-failed", "desktop");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  });

  it("Add customer reads a refusal in words and adds once on a double-click; file fields say what to do", async () => {
    await screens.open("/customers", "Customers");
    const address = page.getByRole("textbox", { name: "Address", exact: true });
    await address.fill("Evergreen Terrace");
    await page.getByRole("button", { name: "Add customer" }).click();
    await page.getByText("Give the house number and street, and the city or ZIP").waitFor();
    assert.equal(await page.getByText("address:").count(), 0, "no field code name is shown");
    assert.equal(await toasts(), 0, "no toast repeats the field's refusal");
    // The button, disabled while it spun, does not drop the focus on the page: the refused field has it.
    await waitForFocus(page, address, "the refused Address field");

    // A failure that is not the address's is said under the form, not on the address.
    await failureSaidApart({
      scope: page,
      field: address,
      value: "742 Evergreen Terrace, Springfield, IL 62704",
      submit: page.getByRole("button", { name: "Add customer" }),
      method: "POST",
      path: /\/customers$/,
      failure: { status: 500, code: "internal_error", message: "Something went wrong on our side." },
      heading: "The customer was not added",
    });

    await page.getByRole("button", { name: "Add customer" }).dblclick();
    await page.getByText("Added. 1 customer in all.").waitFor();
    await page.getByRole("heading", { name: "Customers (do not mail): 1" }).waitFor();
    assert.equal(await page.getByText("already on the list").count(), 0);

    // An empty file field reads as one to pick a file in, not a blank box.
    await page.getByRole("button", { name: "CSV file" }).getByText("Choose a CSV file").waitFor();
    await screens.checkBothWidths("walk-customers");

    // On a phone the address field's example is read whole, not cut off at the field's edge (measured
    // once the layout has settled to the phone's: the navigation folds away after the resize).
    await page.setViewportSize(VIEWPORTS.phone);
    const measureExample = () =>
      address.evaluate((input: HTMLInputElement) => {
        const style = getComputedStyle(input);
        const context = document.createElement("canvas").getContext("2d")!;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room =
          input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
        return { text: input.placeholder, width: context.measureText(input.placeholder).width, room };
      });
    let example = await measureExample();
    await waitUntil(
      async () => {
        example = await measureExample();
        return example.width <= example.room;
      },
      "the address example fits its field",
      5_000,
    ).catch(() => {
      assert.fail(
        `"${example.text}" is ${Math.ceil(example.width)}px in a field with ${Math.floor(example.room)}px`,
      );
    });
    assert.match(example.text, /^e\.g\. /, "the address field shows an example");
    await page.setViewportSize(VIEWPORTS.desktop);
    await screens.open("/settings?tab=profile", "Settings");
    await page.getByRole("button", { name: "Logo file" }).getByText("Choose an image").waitFor();
  });

  it("A card without a message says what to write instead of a refusal's field code; the message is marked required", async () => {
    const refused: string[] = [];
    const onResponse = (response: { status(): number; url(): string }) => {
      if (response.status() === 422) refused.push(response.url());
    };
    page.on("response", onResponse);
    try {
      await screens.open("/automations/new?event_type=job.completed", "New automation");
      const message = page.getByRole("textbox", { name: "Message" });
      assert.equal(await message.getAttribute("required"), "", "Message is marked required, as its check is");
      await message.fill("");
      const proof = page.getByRole("region", { name: "Proof", exact: true });
      await proof.getByText("Write a headline and a message to see the card.").waitFor();
      // Past the proof's and the fit check's debounce: neither asked the server for an empty card.
      await page.waitForTimeout(1_000);
      assert.equal(await proof.getByText("could not be drawn").count(), 0);
      assert.equal(await page.getByText("template.message").count(), 0, "no field code name is shown");
      assert.deepEqual(refused, [], "no proof or fit check was refused");
      await screens.checkScreen("walk-builder-blank-message", "desktop");

      // An empty event type asks for one, rather than for a form it does not yet have. (The tab's
      // draft of the blank message goes first, so the new builder offers nothing to restore.)
      await page.evaluate(() => sessionStorage.clear());
      await screens.open("/automations/new", "New automation");
      await page.getByRole("textbox", { name: "Name" }).fill("Blank type");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByText("Pick the event your CRM sends, or type one such as job.completed").waitFor();
    } finally {
      page.off("response", onResponse);
      await page.evaluate(() => sessionStorage.clear());
    }
  });

  it("Settings refuses a phone number in words, not by the API's pattern, and keeps the focus", async () => {
    await screens.open("/settings?tab=profile", "Settings");
    const phone = page.getByRole("textbox", { name: "Phone" });
    await phone.fill("call me");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Use digits, spaces and + ( ) . - only, e.g. (217) 555-0100").waitFor();
    assert.equal(await page.getByText("must match pattern").count(), 0, "no schema pattern is shown");
    assert.equal(await toasts(), 0);
    await phone.fill("(217) 555-0100");
    const save = page.getByRole("button", { name: "Save profile" });
    await save.click();
    await page.getByText("Your business profile is saved.").waitFor();
    await waitForFocus(page, save, "Save profile");
  });

  it("Settings refuses a return address cards could not carry, on its fields, and a website nobody can type", async () => {
    await screens.open("/settings?tab=profile", "Settings");
    await page.getByRole("textbox", { name: "Website" }).fill("not a url");
    await page.getByRole("textbox", { name: "Street" }).fill("12 Shingle Rd");
    await page.getByRole("textbox", { name: "City" }).fill("");
    await page.getByRole("textbox", { name: "State" }).fill("TX");
    await page.getByRole("textbox", { name: "ZIP code" }).fill("62704");
    await page.getByRole("button", { name: "Save profile" }).click();
    // One save names every field to correct: the missing city and the ZIP outside the state written.
    await page.getByText("Enter the city").waitFor();
    await page.getByText("ZIP 62704 is in IL, not TX").waitFor();
    await page.getByText("Enter a web address like rooferpros.com").waitFor();
    await page.getByRole("textbox", { name: "City" }).fill("Springfield");
    await page.getByRole("textbox", { name: "Website" }).fill("rooferpros.com");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("ZIP 62704 is in IL, not TX").waitFor();
    await screens.checkBothWidths("settings-return-address-refused");
    await page.getByRole("textbox", { name: "State" }).fill("IL");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your business profile is saved.").waitFor();
  });

  it("Revenue offers no Download CSV while there are no conversions: the file would hold only headings", async () => {
    await screens.open("/revenue", "Revenue");
    const conversions = page.locator("section[aria-labelledby=revenue-conversions]");
    await conversions.getByRole("heading", { name: "No won deals attributed yet" }).waitFor();
    // How a won deal gets here, and that an event named deal.won does not.
    await conversions.getByText(/even one named deal\.won, is not counted as revenue/).waitFor();
    assert.equal(await page.getByRole("link", { name: "Download CSV" }).count(), 0);
    assert.equal(await page.getByText("Download CSV").count(), 0, "not shown in any form");
    await screens.checkBothWidths("walk-revenue-no-conversions");
  });

  it("Team says which member is the person signed in, whose role is fixed and who has no Remove", async () => {
    await screens.open("/settings?tab=team", "Settings");
    const own = page.getByRole("row").filter({ hasText: OWNER.email });
    await own.getByText("(you)").waitFor();
    assert.ok(await own.getByRole("combobox", { name: `Role of ${OWNER.name}` }).isDisabled());
    await screens.checkBothWidths("walk-team");
  });

  it("Skip to content is the first Tab stop and takes the keyboard past the navigation", async () => {
    await screens.open("/mail", "Mail");
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await waitForFocus(page, skip, "Skip to content");
    assert.ok(await skip.isVisible(), "it shows while it has the focus");
    await screens.checkScreen("walk-skip-link", "desktop");
    await page.keyboard.press("Enter");
    await waitForFocus(page, page.getByRole("main"), "the main region");
    assert.ok(!page.url().includes("#"), "the URL keeps no fragment");
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => document.activeElement?.closest("main") !== null);
    assert.ok(focused, "the next Tab lands in the screen's content, not the navigation");
  });

  it("Save and Test with a sample, far below an empty name, take the focus to the name", async () => {
    const apiKey: string = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.sendEvent(apiKey, jobEvent("walk-sample-1", { street: "742 Evergreen Terrace" }));
    await screens.open("/automations/new?event_type=job.completed", "New automation");
    const name = page.getByRole("textbox", { name: "Name" });
    const test = page.getByRole("button", { name: "Test with a sample" });
    await waitUntil(async () => await test.isEnabled(), "the sample is picked", 30_000);
    await test.click();
    await waitForFocus(page, name, "the Name field");
    await page.getByText("Give the automation a name").waitFor();
    assert.ok(await name.isVisible(), "the name field is scrolled into view");
    await page.keyboard.press("Tab");
    await page.getByRole("button", { name: "Save" }).click();
    await waitForFocus(page, name, "the Name field");
    await page.setViewportSize(VIEWPORTS.phone);
    await page.getByRole("button", { name: "Save" }).click();
    await waitForFocus(page, name, "the Name field");
    assert.ok(await name.isVisible(), "on a phone too, the name field is in view");
    await page.setViewportSize(VIEWPORTS.desktop);
    // Named, the test runs.
    await name.fill("Job done postcard");
    await test.click();
    await page.locator('.mantine-Alert-root[role="status"]').first().waitFor();
  });

  it("New mailing's page button stays still while Send this mailing? sends", async () => {
    const apiKey: string = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.importPastJobs(apiKey, MAPLE_AVE_JOBS.slice(0, 1));
    await screens.open("/customers?tab=past-jobs", "Customers");
    await page.getByRole("checkbox", { name: /Mail the batch of/ }).check();
    await page.getByRole("link", { name: /New mailing from 1 batch/ }).click();
    await page.getByRole("heading", { level: 1, name: "New mailing" }).waitFor();
    await page.getByText("1 card from 1 matching row").waitFor();
    await page.getByLabel("Mailing name").fill("Spring check");
    const pageButton = page.getByRole("button", { name: "Send 1 card" });
    await pageButton.click();
    const confirm = page.getByRole("dialog", { name: "Send this mailing?" });
    const send = confirm.getByRole("button", { name: "Send 1 card" });
    const sending = await clickWithRequestHeld(page, send, "POST", /\/reactivation\/mailings$/);
    await waitForLoading(send, "the dialog's Send 1 card");
    const spinning = await page
      .locator("form")
      .getByRole("button", { name: "Send 1 card", includeHidden: true })
      .getAttribute("data-loading");
    assert.equal(spinning, null, "the page's button under the dialog does not spin too");
    sending.release();
    await page.getByRole("heading", { level: 1, name: "Mail", exact: true }).waitFor();
  });
});
