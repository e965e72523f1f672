/**
 * A spreadsheet's ZIPs cut short (Excel writes Cambridge's 02139 as 2139), uploaded in a real
 * browser against the real service: the customers and past-jobs uploads say how many ZIPs had their
 * leading 0 put back, the list shows the homes with 5-digit ZIPs, and a cell that is no ZIP is
 * named on its line in words. Each state: axe-core (no serious or critical WCAG A/AA violation) and
 * a screenshot at desktop and phone width in test/e2e/artifacts/.
 */
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, pickCsv, startApp } from "./session.ts";

const OWNER = { email: "owner@zip-zero.test", name: "Zoe Zip", password: "correct horse battery" };

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];

describe("a spreadsheet's ZIPs that lost their leading 0, in the browser", () => {
  before(async () => {
    app = await startApp({ name: "zip-zero" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    await app.signUpOwner(page, "Cambridge Heating", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("customers: the summary counts the ZIPs put back, and the list shows them with 5 digits", async () => {
    await open("/customers", "Customers");
    await pickCsv(
      page,
      "customers.csv",
      "Name,Street,City,State,Zip\r\nAnn Lee,12 Oak St,Cambridge,MA,2139\r\nBo Chen,5 Main St,Newark,NJ,7102\r\nCy Diaz,9 Pine Rd,Springfield,IL,62704\r\nDi Eno,2 Birch Rd,Cambridge,MA,MA 02139\r\n",
      "4 rows read",
    );
    await page.getByRole("button", { name: "Add these customers" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Nothing was added" });
    await refusal
      .getByRole("list", { name: "Rows that cannot be imported" })
      .getByText('Line 5: ZIP "MA 02139" is not a ZIP code. Write its 5 digits (like 02134)', {
        exact: false,
      })
      .waitFor();
    await checkBothWidths("zip-zero-refused");
    await refusal.getByRole("button", { name: "Add the other 3 rows, skip this one" }).click();
    const success = page.getByRole("status").filter({ hasText: "Uploaded" });
    await success
      .getByText(
        "3 new of 3 rows; 3 customers in all. Leading 0 put back in the ZIP of 2 rows (the spreadsheet had dropped it: 2134 is 02134).",
      )
      .waitFor();
    await page.getByRole("cell", { name: "12 Oak St, Cambridge, MA 02139", exact: true }).waitFor();
    await page.getByRole("cell", { name: "5 Main St, Newark, NJ 07102", exact: true }).waitFor();
    await checkBothWidths("zip-zero-customers");
  });

  it("past jobs: the import's summary counts the ZIPs put back", async () => {
    await open("/customers?tab=past-jobs", "Customers");
    await pickCsv(
      page,
      "jobs.csv",
      "Client,Street,City,State,Zip,Completed\r\nEd Fox,20 Oak St,Cambridge,MA,2139,5/3/2023\r\nFlo Gil,22 Oak St,Cambridge,MA,02139,6/3/2023\r\n",
      "2 rows read",
    );
    await page.getByRole("button", { name: "Import these jobs" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Uploaded" })
      .getByText(
        "2 rows read: 2 imported. Leading 0 put back in the ZIP of 1 row (the spreadsheet had dropped it: 2134 is 02134).",
      )
      .waitFor();
    await checkBothWidths("zip-zero-past-jobs");
  });
});
