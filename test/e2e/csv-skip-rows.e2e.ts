/**
 * A CSV of customers with a bad row, in a real browser against the real service: the upload is
 * refused whole and lists the row; "Add the other N rows, skip this one" sends the file again with
 * skip_invalid_rows (a new request id), and the success says which line was left out. Each state:
 * axe-core (no serious or critical WCAG A/AA violation) and a screenshot at desktop and phone width
 * in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, pickCsv, startApp } from "./session.ts";

const OWNER = { email: "owner@csv-skip.test", name: "Sam Skip", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];

describe("a CSV upload may skip its bad rows in the browser", () => {
  before(async () => {
    app = await startApp({ name: "csv-skip" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    await app.signUpOwner(page, "Skip Roofing", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("refuses a file with a bad row, then adds the other rows and names the skipped line", async () => {
    await open("/customers", "Customers");
    await pickCsv(
      page,
      "customers.csv",
      "Customer,Service Address,City,ST,Postal Code\r\nMarge Simpson,742 Evergreen Terrace,Springfield,IL,62704\r\nNed Flanders,744 Evergreen Terrace,,,\r\nMaude Flanders,746 Evergreen Terrace,Springfield,IL,62704\r\n",
      "3 rows read",
    );
    const firstUpload = page.waitForRequest((request) => request.url().includes("/customers/upload"));
    await page.getByRole("button", { name: "Add these customers" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Nothing was added" });
    await refusal.getByText("1 row cannot be imported; nothing was added.", { exact: false }).waitFor();
    await refusal
      .getByRole("list", { name: "Rows that cannot be imported" })
      .getByText(/^Line 3:/)
      .waitFor();
    const firstId = new URL((await firstUpload).url()).searchParams.get("request_id");
    assert.equal(new URL((await firstUpload).url()).searchParams.get("skip_invalid_rows"), null);
    await checkBothWidths("csv-skip-refused");

    const skipping = page.waitForRequest((request) => request.url().includes("/customers/upload"));
    await refusal.getByRole("button", { name: "Add the other 2 rows, skip this one" }).click();
    const sent = new URL((await skipping).url()).searchParams;
    assert.equal(sent.get("skip_invalid_rows"), "true");
    assert.notEqual(sent.get("request_id"), firstId, "a different upload, a new request id");
    const success = page.getByRole("status").filter({ hasText: "Uploaded" });
    await success.getByText("2 new of 2 rows").waitFor();
    await success.getByText("1 row was skipped").waitFor();
    await success
      .getByRole("list", { name: "Rows that were skipped" })
      .getByText(/^Line 3:/)
      .waitFor();
    await page
      .getByRole("cell", { name: "742 Evergreen Terrace, Springfield, IL 62704", exact: true })
      .waitFor();
    await page
      .getByRole("cell", { name: "746 Evergreen Terrace, Springfield, IL 62704", exact: true })
      .waitFor();
    assert.equal(
      await page.getByRole("button", { name: "Add these customers" }).count(),
      0,
      "the sent file's mapping and button step away",
    );
    await success.getByText("To send more, choose another file above.").waitFor();
    await checkBothWidths("csv-skip-added");
  });
});
