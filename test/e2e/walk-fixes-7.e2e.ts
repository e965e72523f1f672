/**
 * A seventh walk's fixes, checked as a person meets them in a real browser against the real service:
 * a refused CSV row says what is wrong in words, not by the field's code name ("address: is empty");
 * Revenue says "won deals" as Overview does, not "conversions"; the automation list says its trigger
 * in the builder's words and how many cards each home gets (a bare "1 card" read as a count); and New
 * mailing's Job type is greyed when the batches have none to pick; a card approved on its own page
 * shows itself mailed without a reload (it stayed "Queued"). Screens: axe-core and screenshots
 * in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, jobEvent, MAPLE_AVE_JOBS, pickCsv, startApp } from "./session.ts";

const OWNER = { email: "owner@walk7.test", name: "Rhea Roofer", password: "correct horse battery" };

let app: App;
let page: Page;
let apiKey: string;
let automationId: string;
let nextPiece: ReturnType<App["newPieces"]>;
let screens: ReturnType<App["screens"]>;

/** The rows the upload refused, as the list under "Nothing was added" says them. */
async function refusedRows() {
  const refusal = page.getByRole("alert").filter({ hasText: "Nothing was added" });
  await refusal.waitFor();
  return refusal
    .getByRole("list", { name: "Rows that cannot be imported" })
    .getByRole("listitem")
    .allInnerTexts();
}

describe("fixes from a seventh walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-7" });
    page = await app.newPage();
    screens = app.screens(page);
    const owner = await app.ownerWithAutomation(page, "Summit Roofing", OWNER);
    ({ apiKey, automationId } = owner);
    nextPiece = app.newPieces(owner.orgId);
    await app.sendEvent(apiKey, jobEvent("walk7-1", { street: "22 Birch Rd", client_name: "Ben Baker" }));
    await nextPiece("a job at 22 Birch Rd");
  });

  after(async () => {
    await app?.close();
  });

  it("a customers CSV with a row without an address names the row's problem in words", async () => {
    await screens.open("/customers", "Customers");
    await pickCsv(
      page,
      "customers.csv",
      "Customer,Service Address,City,ST,Postal Code\r\nMarge Simpson,742 Evergreen Terrace,Springfield,IL,62704\r\nBad Row,,,,\r\n",
      "2 rows read",
    );
    await page.getByRole("button", { name: "Add these customers" }).click();
    const rows = await refusedRows();
    assert.deepEqual(rows, ["Line 3: The address is empty."]);
    assert.doesNotMatch(rows.join("\n"), /address:/, "no field code name");
    await screens.checkBothWidths("walk7-customers-csv-refused");
  });

  it("a past jobs CSV with a date nobody can read says how to write it", async () => {
    await screens.open("/customers?tab=past-jobs", "Customers");
    await page.getByRole("tab", { name: "Past jobs", selected: true }).waitFor();
    await pickCsv(
      page,
      "jobs.csv",
      "Customer,Address,Date\r\nLisa Ray,12 Maple Ave Springfield IL 62704,last spring\r\n",
      "1 row read",
    );
    await page.getByRole("button", { name: "Import these jobs" }).click();
    assert.deepEqual(await refusedRows(), [
      "Line 2: The job date is not a date: write it as 5/31/2024 or 2024-05-31.",
    ]);
  });

  it("Revenue says won deals, as Overview does, never conversions", async () => {
    await screens.open("/", "Overview");
    await page.getByRole("region", { name: "This month" }).getByText("Won deals attributed").waitFor();

    await screens.open("/revenue", "Revenue");
    for (const table of ["Revenue by automation", "Revenue by month"]) {
      const headings = page.getByRole("region", { name: table }).getByRole("columnheader");
      await headings.first().waitFor();
      const words = await headings.allInnerTexts();
      assert.ok(words.includes("Won deals"), `${table}'s headings: ${words.join(", ")}`);
    }
    await page.getByRole("heading", { level: 2, name: "Won deals attributed" }).waitFor();
    await page.getByRole("heading", { name: "No won deals attributed yet" }).waitFor();
    assert.equal(await page.getByText(/conversions?/i).count(), 0, "no 'conversions' anywhere on Revenue");
    await screens.checkBothWidths("walk7-revenue-won-deals");
  });

  it("the automation list says the trigger in the builder's words and how many cards each home gets", async () => {
    await screens.open("/automations", "Automations");
    const row = page.getByRole("row").filter({ hasText: "Job done postcard" });
    await row.getByText("When your CRM sends job.completed", { exact: true }).waitFor();
    await row.getByText("Each home gets 1 card", { exact: true }).waitFor();
    assert.equal(
      await page.getByText("1 card", { exact: true }).count(),
      0,
      "no bare '1 card' beside the count",
    );
    await screens.checkBothWidths("walk7-automations");
  });

  it("New mailing's Job type is greyed when the batches have no job types, and says why", async () => {
    await app.importPastJobs(apiKey, MAPLE_AVE_JOBS);
    await screens.open("/customers?tab=past-jobs", "Customers");
    await page.getByRole("checkbox", { name: /^Mail the batch of / }).check();
    await page.getByRole("link", { name: "New mailing from 1 batch" }).click();
    await page.getByRole("heading", { level: 1, name: "New mailing" }).waitFor();
    const jobType = page.getByRole("combobox", { name: "Job type" });
    await page.getByText("These batches have no job types").waitFor();
    assert.equal(await jobType.isDisabled(), true, "nothing to pick: the field is greyed");
    assert.equal(await jobType.getAttribute("placeholder"), "None in these batches");
    await screens.checkBothWidths("walk7-new-mailing-no-job-types");
  });

  it("a card approved on its own page shows itself mailed, without a reload", async () => {
    await app.operator("PATCH", `/automations/${automationId}/mail-safety`, { approval_required: true });
    await app.sendEvent(apiKey, jobEvent("walk7-2", { street: "33 Cedar Ln", client_name: "Cal Cole" }));
    const waiting = await nextPiece("a job at 33 Cedar Ln");
    assert.equal(waiting.status, "awaiting_approval");

    await screens.open(`/mail/${waiting.id}`, "Postcard to Cal Cole");
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    await page.getByRole("button", { name: "Approve this card" }).click();
    // Queued while the worker takes it; then the page looks again by itself and finds it mailed.
    await page.getByRole("link", { name: "Open this card's landing page" }).waitFor();
    const badge = page.locator(".mantine-Badge-root").filter({ hasText: /^Mailed$/ });
    await badge.first().waitFor();
    assert.equal(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
      true,
      "the page was not reloaded",
    );
    await screens.checkBothWidths("walk7-piece-approved-mailed");
  });
});
