/**
 * What a walkthrough of the app found, fixed, in a real browser against the real service started on a
 * fresh data directory, signed in as the owner the first start invites to its demo organization: a
 * first-run checklist that does not count the demo key.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, acceptInvitation, startApp, waitUntil } from "./session.ts";

/** The owner the first start invites to the demo organization (src/bootstrap.ts). */
const DEMO_OWNER = { email: "owner@demo.example", name: "Dana Demo", password: "correct horse battery" };

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;

/** The invitation link the first start emailed to the demo organization's owner. */
async function demoInvitationLink(): Promise<string> {
  let link: string | undefined;
  await waitUntil(async () => {
    const email = app.outbox().find((eml) => eml.includes(`\r\nTo: ${DEMO_OWNER.email}\r\n`));
    link = email?.match(/https?:\/\/\S+/g)?.find((url) => new URL(url).pathname.startsWith("/app/invite/"));
    return link !== undefined;
  }, "the first start emailed the demo owner's invitation");
  return link ?? "";
}

/** The step lines of the Overview's first-run checklist, as a screen reader reads them. */
async function checklistSteps(): Promise<string[]> {
  const checklist = page.getByRole("region", { name: "Get started" });
  await checklist.waitFor();
  const lines = await checklist.getByRole("listitem").locator("p:first-child").allTextContents();
  return lines.map((line) => line.trim());
}

describe("the walkthrough's findings, fixed, in the browser", () => {
  before(async () => {
    app = await startApp({ name: "polish" });
    page = await app.newPage();
    screens = app.screens(page);
    await acceptInvitation(page, DEMO_OWNER, await demoInvitationLink());
  });

  after(async () => {
    await app?.close();
  });

  it("the demo key a first start makes does not tick 'get an API key'; a key the owner creates does", async () => {
    await screens.open("/", "Overview");
    assert.ok(
      (await checklistSteps()).includes("To do: Connect your CRM: get an API key"),
      "the demo key alone leaves the step to do",
    );
    await screens.open("/developers?tab=keys", "Developers");
    await page.getByRole("cell", { name: "demo", exact: true }).waitFor();

    await page.getByRole("button", { name: "Create API key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create API key" });
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("CRM");
    await dialog.getByRole("button", { name: "Create key" }).click();
    const issued = page.getByRole("dialog", { name: "Your new API key" });
    assert.match(await issued.getByLabel("New API key").innerText(), /^ak_/);
    await issued.getByRole("button", { name: "Done" }).click();
    await page.getByRole("cell", { name: "CRM", exact: true }).waitFor();

    await screens.open("/", "Overview");
    assert.ok((await checklistSteps()).includes("Done: Connect your CRM: get an API key"));
  });
});
