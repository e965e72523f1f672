/**
 * Where the keyboard's focus goes after three actions a third walk fixed and no browser test held:
 * the operator console's sent invitation (Copy link, the next step), the console's neighbour address
 * Upload (the file field for the next file, or Upload again after a refusal), and the invitation
 * page's Sign out for someone signed in as another account; and the console's Organizations table
 * on a phone. In a real browser against the real service; screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { csvLineOf, syntheticHome } from "../../src/neighbours/synthetic-neighbourhood.ts";
import { VIEWPORTS } from "./browser.ts";
import { clickWithRequestHeld, waitForFocus, waitForLoading } from "./page-probes.ts";
import { type App, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@walk4.test", name: "Wren Walker", password: "correct horse battery" };
const SERVER_ERROR = { status: 500, code: "internal_error", message: "Something went wrong on our side." };
const OPERATOR_API = "**/admin/v1/**";
/** A small county: a few homes as OpenAddresses writes them. */
const ADDRESSES = [
  "LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE",
  ...Array.from({ length: 5 }, (_, index) => csvLineOf(syntheticHome(index))),
].join("\n");

let app: App;
let page: Page;
let orgId: string;
let screens: ReturnType<App["screens"]>;

describe("the focus after the console's invitation and address Upload and the invitation page's Sign out", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-4" });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Walk Gutters", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("the operator console: a sent invitation gives the focus to Copy link, and Enter copies the link", async () => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.base });
    await screens.openOperatorConsole();
    // A new organization opens its owner's invitation, the email field ready.
    await page.getByRole("textbox", { name: "New organization name" }).fill("Walk Chimneys");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Invite the owner of Walk Chimneys" });
    const email = dialog.getByRole("textbox", { name: /^Owner's email/ });
    await waitForFocus(page, email, "the Owner's email field");
    await email.fill("chimney-owner@walk4.test");
    const send = dialog.getByRole("button", { name: "Send invitation" });
    // Held, so the form is seen busy (Send disabled, the focus let go) before the link replaces it.
    const sending = await clickWithRequestHeld(
      page,
      send,
      "POST",
      /\/orgs\/[^/]+\/invitations$/,
      OPERATOR_API,
    );
    await waitForLoading(send, "Send invitation");
    sending.release();
    const copy = dialog.getByRole("button", { name: "Copy link" });
    await waitForFocus(page, copy, "Copy link");
    const link = (await dialog.locator("pre, code").first().innerText()).trim();
    assert.match(link, /\/invite\/[^/]+$/, "the dialog shows the invitation link");

    // The keyboard's next press does the next step: the link is on the clipboard.
    await page.keyboard.press("Enter");
    await dialog.getByRole("button", { name: "Copied" }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await screens.checkBothWidths("walk4-operator-invitation-sent");
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
  });

  it("the operator console: a double-click on Send invitation sends one, and a click beside the link keeps it", async () => {
    await screens.openOperatorConsole();
    await page.getByRole("button", { name: "Invite owner of Walk Chimneys" }).click();
    const dialog = page.getByRole("dialog", { name: "Invite the owner of Walk Chimneys" });
    await dialog.getByRole("textbox", { name: /^Owner's email/ }).fill("second-owner@walk4.test");
    const sentBefore = app.outbox().filter((mail) => mail.includes("second-owner@walk4.test")).length;
    await dialog.getByRole("button", { name: "Send invitation" }).dblclick();
    await dialog.getByRole("button", { name: "Copy link" }).waitFor();
    await page.mouse.click(4, 4);
    await page.waitForTimeout(300);
    assert.ok(await dialog.isVisible(), "a click beside the shown link does not close it");
    await waitUntil(
      async () => app.outbox().filter((mail) => mail.includes("second-owner@walk4.test")).length > sentBefore,
      "the invitation email is written",
    );
    await page.waitForTimeout(500);
    assert.equal(
      app.outbox().filter((mail) => mail.includes("second-owner@walk4.test")).length - sentBefore,
      1,
      "a double-click sent one invitation",
    );
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
  });

  it("the console's Organizations table reads whole on a phone: each id under its name, Invite owner beside it", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await screens.openOperatorConsole();
    const table = page.getByRole("region", { name: "Organizations table" });
    const row = table.getByRole("row").filter({ hasText: "Walk Gutters" });
    const id = row.getByText(orgId, { exact: true });
    const invite = row.getByRole("button", { name: "Invite owner of Walk Gutters" });
    await invite.waitFor();
    const [idBox, inviteBox] = [(await id.boundingBox())!, (await invite.boundingBox())!];
    assert.ok(idBox.x + idBox.width <= inviteBox.x, "the id ends left of Invite owner, not under it");
    assert.ok(inviteBox.x + inviteBox.width <= VIEWPORTS.phone.width, "Invite owner is in the screen");
    const width = await table.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
    }));
    assert.ok(width.scroll <= width.client, `the table fits without scrolling (${JSON.stringify(width)})`);
    await page.setViewportSize(VIEWPORTS.desktop);
    await screens.checkBothWidths("walk4-operator-organizations");
  });

  it("the console's neighbour address Upload: refused, the focus stays on Upload; done, it goes to the file field", async () => {
    await screens.openOperatorConsole();
    const section = page.getByRole("region", { name: "Neighbor addresses" });
    const fileField = section.getByRole("button", { name: "OpenAddresses file" });
    const upload = section.getByRole("button", { name: "Upload", exact: true });
    const chooser = page.waitForEvent("filechooser");
    await fileField.click();
    await (await chooser).setFiles({
      name: "walk4-county.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(ADDRESSES),
    });
    await waitUntil(async () => !(await upload.isDisabled()), "Upload is enabled by the chosen file");

    const refused = await clickWithRequestHeld(page, upload, "POST", /\/reference-addresses$/, OPERATOR_API);
    await waitForLoading(upload, "Upload");
    refused.release(SERVER_ERROR);
    await section.getByRole("alert").filter({ hasText: "The upload was refused" }).waitFor();
    await waitForFocus(page, upload, "Upload, refused,");
    assert.match(await fileField.innerText(), /walk4-county\.csv/, "the chosen file stays for another try");

    const uploading = await clickWithRequestHeld(
      page,
      upload,
      "POST",
      /\/reference-addresses$/,
      OPERATOR_API,
    );
    await waitForLoading(upload, "Upload");
    uploading.release();
    const uploads = page.getByRole("region", { name: "Address uploads" });
    await uploads.getByRole("row").nth(1).waitFor();
    await waitForFocus(page, fileField, "the OpenAddresses file field, after Upload,");
    assert.ok(await upload.isDisabled(), "Upload waits for the next file");
    assert.doesNotMatch(await fileField.innerText(), /walk4-county\.csv/, "the file field is empty again");
    await uploads.getByText("Done").waitFor({ timeout: 60_000 });
    await section.scrollIntoViewIfNeeded();
    await screens.checkBothWidths("walk4-operator-addresses-uploaded");
  });

  it("the invitation page, signed in as another account: Sign out refused keeps the focus; done, it goes to the form", async () => {
    const invited = await app.operator("POST", `/orgs/${orgId}/invitations`, {
      email: "new@walk4.test",
      role: "member",
    });
    await page.goto(invited.invite_url);
    await page.getByText(`You are signed in as ${OWNER.email}`).waitFor();
    const signOut = page.getByRole("button", { name: "Sign out", exact: true });

    const refused = await clickWithRequestHeld(page, signOut, "POST", /\/auth\/sign-out$/);
    await waitForLoading(signOut, "Sign out");
    refused.release(SERVER_ERROR);
    await waitUntil(async () => (await signOut.getAttribute("data-loading")) === null, "sign-out is refused");
    await waitForFocus(page, signOut, "Sign out, refused,");
    await page.getByText(`You are signed in as ${OWNER.email}`).waitFor();

    const signingOut = await clickWithRequestHeld(page, signOut, "POST", /\/auth\/sign-out$/);
    await waitForLoading(signOut, "Sign out");
    signingOut.release();
    // Signed out, the page offers the invited email's new account: the focus goes to its first field.
    const name = page.getByRole("textbox", { name: /^Your name/ });
    await name.waitFor();
    await waitForFocus(page, name, "the Your name field, after Sign out,");
    assert.equal(
      await page.getByText("You are signed in as").count(),
      0,
      "the page no longer says who is in",
    );
    await screens.checkBothWidths("walk4-invite-signed-out");
  });
});
