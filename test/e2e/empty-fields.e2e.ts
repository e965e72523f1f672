/**
 * Every form sent with its required fields empty, in a real browser against the real service: the
 * app refuses it in its own words on the field (marked invalid, the words tied to it and shown), and
 * the first refused field takes the focus. A `required` input without `noValidate` on its form let
 * the browser's "Please fill out this field" bubble stop the form first: the bubble vanished, the
 * field was never marked and the app's words never shown. Screens: test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { screenshot } from "./browser.ts";
import { waitForFocus } from "./page-probes.ts";
import { type App, MAPLE_AVE_JOBS, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@empty-fields.test", name: "Ella Empty", password: "correct horse battery" };

let app: App;
let page: Page;
let orgId: string;
let screens: ReturnType<App["screens"]>;

/**
 * `field` says `words` as the app's refusal: it is aria-invalid, and the words are shown in an element
 * its aria-describedby names (Mantine's `<id>-error`), so a screen reader hears them on the field.
 */
async function refusedOnField(field: Locator, words: string, what: string) {
  await waitUntil(
    async () => (await field.getAttribute("aria-invalid")) === "true",
    `${what} is marked invalid`,
    10_000,
  ).catch(async (error: unknown) => {
    await screenshot(field.page(), "empty-fields-failed", "desktop");
    throw new Error(
      `${what} was not refused by the app (aria-invalid=${await field.getAttribute("aria-invalid")}); see empty-fields-failed.png`,
      { cause: error },
    );
  });
  const ids = ((await field.getAttribute("aria-describedby")) ?? "").split(/\s+/).filter(Boolean);
  const said = await Promise.all(
    ids.map(async (id) => {
      const element = field.page().locator(`[id="${id}"]`);
      return (await element.isVisible()) ? ((await element.textContent()) ?? "") : "";
    }),
  );
  assert.ok(
    said.some((text) => text.includes(words)),
    `${what} should say "${words}" on the field; it says ${JSON.stringify(said)}`,
  );
}

describe("a form sent with its required fields empty says so on the field", () => {
  before(async () => {
    app = await startApp({ name: "empty-fields" });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Empty Roofing", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("Sign in, empty: Email, then Password, in the app's words", async () => {
    const signedOut = await app.newPage();
    await app.screens(signedOut).open("/sign-in", "Sign in");
    const email = signedOut.getByRole("textbox", { name: /^Email/ });
    const password = signedOut.getByLabel(/^Password/);
    await signedOut.getByRole("button", { name: "Sign in" }).click();
    await refusedOnField(email, "Enter your email address", "Sign in's Email");
    await refusedOnField(password, "Enter your password", "Sign in's Password");
    await waitForFocus(signedOut, email, "the refused Email field");
    await screenshot(signedOut, "empty-fields-sign-in", "desktop");
    await email.fill("mike at kowalski");
    await signedOut.getByRole("button", { name: "Sign in" }).click();
    await refusedOnField(
      email,
      "This is not an email address: write it as name@example.com",
      "Sign in's malformed Email",
    );
    await email.fill("");
    await password.fill("typed by keyboard");
    await signedOut.keyboard.press("Tab");
    const toggle = signedOut.getByRole("button", { name: "Toggle password visibility" });
    await waitForFocus(signedOut, toggle, "the password's show button");
    await signedOut.keyboard.press("Enter");
    assert.equal(await password.getAttribute("type"), "text", "the keyboard shows the typed password");
    await signedOut.context().close();
  });

  it("Forgot your password and Choose a new password, empty", async () => {
    const signedOut = await app.newPage();
    await app.screens(signedOut).open("/forgot-password", "Reset your password");
    const email = signedOut.getByRole("textbox", { name: /^Email/ });
    await email.press("Enter");
    await refusedOnField(email, "Enter your email address", "Reset's Email");
    await waitForFocus(signedOut, email, "the refused Email field");

    // A real link, from the email the filled form sends.
    await email.fill(OWNER.email);
    await signedOut.getByRole("button", { name: "Send reset link" }).click();
    await signedOut.getByText("Check your email").waitFor();
    let link: string | undefined;
    await waitUntil(async () => {
      link = app
        .outbox()
        .reverse()
        .find((eml) => eml.includes(`\r\nTo: ${OWNER.email}\r\n`))
        ?.match(/https?:\/\/\S+/g)
        ?.find((url) => new URL(url).pathname.startsWith("/app/reset-password"));
      return link !== undefined;
    }, "the reset email with its link");
    await signedOut.goto(link!);
    await signedOut.getByRole("heading", { level: 1, name: "Choose a new password" }).waitFor();
    const newPassword = signedOut.getByLabel(/^New password/);
    const repeat = signedOut.getByLabel(/^Repeat the new password/);
    await signedOut.getByRole("button", { name: "Save new password" }).click();
    await refusedOnField(newPassword, "Use at least 10 characters", "New password");
    await refusedOnField(repeat, "Repeat the new password", "Repeat the new password");
    await waitForFocus(signedOut, newPassword, "the refused New password field");
    await screenshot(signedOut, "empty-fields-reset-password", "desktop");

    // Long enough, but among the most used passwords: the service refuses it beside the field.
    await newPassword.fill("password123");
    await repeat.fill("password123");
    await signedOut.getByRole("button", { name: "Save new password" }).click();
    await refusedOnField(newPassword, "one of the most used passwords", "A most used New password");
    await waitForFocus(signedOut, newPassword, "the New password field the service refused");
    await signedOut.getByRole("heading", { level: 1, name: "Choose a new password" }).waitFor();
    await screenshot(signedOut, "reset-password-most-used", "desktop");
    await signedOut.context().close();
  });

  it("An invitation's new account, empty: Your name, then Password", async () => {
    const invitation = await app.operator("POST", `/orgs/${orgId}/invitations`, {
      email: "new@empty-fields.test",
      role: "member",
    });
    const invitee = await app.newPage();
    await invitee.goto(invitation.invite_url);
    const name = invitee.getByRole("textbox", { name: /^Your name/ });
    const password = invitee.getByLabel(/^Password/);
    await name.waitFor();
    await invitee.getByRole("button", { name: "Set password and sign in" }).click();
    await refusedOnField(name, "Enter your name", "the invitation's Your name");
    await refusedOnField(password, "Use at least 10 characters", "the invitation's Password");
    await waitForFocus(invitee, name, "the refused Your name field");
    await invitee.context().close();
  });

  it("New mailing, its Mailing name and Headline emptied", async () => {
    const apiKey: string = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.importPastJobs(apiKey, MAPLE_AVE_JOBS);
    await screens.open("/customers?tab=past-jobs", "Customers");
    await page.getByRole("checkbox", { name: /Mail the batch of/ }).check();
    await page.getByRole("link", { name: /New mailing from 1 batch/ }).click();
    await page.getByRole("heading", { level: 1, name: "New mailing" }).waitFor();
    const send = page.getByRole("button", { name: /^Send \d+ cards?$/ });
    await waitUntil(() => send.isEnabled(), "Send is enabled once the preview counts the cards");
    const mailingName = page.getByRole("textbox", { name: /^Mailing name/ });
    const headline = page.getByRole("textbox", { name: /^Headline/ });
    await mailingName.fill("");
    await headline.fill("");
    await send.click();
    await refusedOnField(mailingName, "Give the mailing a name", "Mailing name");
    await refusedOnField(headline, "Write a headline", "Headline");
    await waitForFocus(page, mailingName, "the refused Mailing name field");
    assert.equal(await page.getByRole("dialog").count(), 0, "nothing asks to send the mailing");
    await screenshot(page, "empty-fields-new-mailing", "desktop");
  });

  it("Add a customer, empty: the Address", async () => {
    await screens.open("/customers", "Customers");
    const address = page.getByRole("textbox", { name: "Address", exact: true });
    await page.getByRole("button", { name: "Add customer" }).click();
    await refusedOnField(address, "Enter the customer's address", "the customer's Address");
    await waitForFocus(page, address, "the refused Address field");
  });

  it("Your account, empty: Your name, and Current password then the new ones", async () => {
    await screens.open("/settings?tab=account", "Settings");
    const name = page.getByRole("textbox", { name: /^Your name/ });
    await name.fill("");
    await page.getByRole("button", { name: "Save name" }).click();
    await refusedOnField(name, "Enter your name", "the account's Your name");
    await waitForFocus(page, name, "the refused Your name field");

    const current = page.getByLabel(/^Current password/);
    await page.getByRole("button", { name: "Change password" }).click();
    await refusedOnField(current, "Enter your current password", "Current password");
    await refusedOnField(page.getByLabel(/^New password/), "Use at least 10 characters", "New password");
    await refusedOnField(
      page.getByLabel(/^Repeat the new password/),
      "Repeat the new password",
      "Repeat the new password",
    );
    await waitForFocus(page, current, "the refused Current password field");
  });

  it("Your account, a wrong current password: said once, on its field, not in a toast too", async () => {
    await screens.open("/settings?tab=account", "Settings");
    const current = page.getByLabel(/^Current password/);
    await current.fill("not my password at all");
    await page.getByLabel(/^New password/).fill("a brand new passphrase");
    await page.getByLabel(/^Repeat the new password/).fill("a brand new passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await refusedOnField(current, "The current password is not right.", "Current password");
    await waitForFocus(page, current, "the refused Current password field");
    assert.equal(await page.getByText("That did not work").count(), 0, "no toast repeats the refusal");
  });

  it("The operator console, empty: its token, a new organization's name, an owner's email", async () => {
    const operator = await app.newPage();
    const consoleScreens = app.screens(operator);
    await consoleScreens.open("/operator", "Operator console");
    const token = operator.getByLabel(/^Operator token/);
    await token.press("Enter");
    await refusedOnField(token, "Enter the operator token", "Operator token");
    await waitForFocus(operator, token, "the refused Operator token field");

    await consoleScreens.openOperatorConsole();
    const orgName = operator.getByRole("textbox", { name: /^New organization name/ });
    await operator.getByRole("button", { name: "Create organization" }).click();
    await refusedOnField(orgName, "Enter the organization's name", "New organization name");
    await waitForFocus(operator, orgName, "the refused New organization name field");

    await operator.getByRole("button", { name: "Invite owner of Empty Roofing" }).click();
    const dialog = operator.getByRole("dialog", { name: "Invite the owner of Empty Roofing" });
    const email = dialog.getByRole("textbox", { name: /^Owner's email/ });
    await waitForFocus(operator, email, "the Owner's email field");
    await dialog.getByRole("button", { name: "Send invitation" }).click();
    await refusedOnField(email, "Enter the owner's email", "Owner's email");
    await waitForFocus(operator, email, "the refused Owner's email field");
    await screenshot(operator, "empty-fields-invite-owner", "desktop");
    await operator.context().close();
  });
});
