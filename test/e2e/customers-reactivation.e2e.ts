/**
 * Customers and reactivation mailings in a real browser (issue 28), against the real service as a
 * process (local print provider): a CSV of customers uploaded on the Customers screen suppresses
 * the next card to one of its homes; past jobs imported through the developer API are mailed again
 * from Customers → Past jobs → New mailing, leaving out the home that is a customer, and the cards
 * show in Mail. Every screen: axe-core (no serious or critical WCAG A/AA violation) and a screenshot
 * at desktop and phone width in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@customers.test", name: "Casey Customers", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;

const CUSTOMERS_CSV =
  "Customer,Service Address,City,ST,Postal Code\r\nMarge Simpson,742 Evergreen Terrace,Springfield,IL,62704\r\nNed Flanders,744 Evergreen Terrace,Springfield,IL,62704\r\n";

describe("customers and reactivation mailings in the browser", () => {
  before(async () => {
    app = await startApp({ name: "customers" });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));

    orgId = await app.signUpOwner(page, "Reliable Roofing", OWNER);
    apiKey = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
    });
  });

  after(async () => {
    await app?.close();
  });

  it("a CSV of customers, mapped and uploaded on the Customers screen, suppresses the next card to its home", async () => {
    await open("/customers", "Customers");
    // Said in a contractor's words: what the list does and how a mistake comes off it (no API talk).
    await page.getByRole("alert").getByText("Remove takes it off the list", { exact: false }).waitFor();
    await page.getByRole("tab", { name: "Customers (do not mail)" }).waitFor();
    // Two lists, two names: the opted-out homes are the Do-not-mail list.
    await page.getByRole("heading", { name: /^Customers \(do not mail\)/ }).waitFor();
    await page.getByRole("heading", { name: /^Do-not-mail list: homes that opted out/ }).waitFor();
    // A spreadsheet picked by mistake is refused in plain words, not the CSV parser's.
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({
        name: "customers.xlsx",
        mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        buffer: Buffer.concat([Buffer.from("PK\u0003\u0004\u0014\u0000", "latin1"), Buffer.alloc(200, 1)]),
      });
    const unreadable = page.getByRole("alert").filter({ hasText: "The file could not be read" });
    await unreadable.getByText("This file is not a CSV file.", { exact: false }).waitFor();
    assert.doesNotMatch(await unreadable.innerText(), /Invalid|quote|record/i);
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({
        name: "customers.csv",
        mimeType: "text/csv",
        buffer: Buffer.from(CUSTOMERS_CSV),
      });
    await page.getByText("2 rows read").waitFor();
    // Guessed from the headers ("Service Address", "ST", "Postal Code").
    assert.equal(
      await page
        .getByLabel(/^Street/)
        .first()
        .inputValue(),
      "Service Address",
    );
    assert.equal(await page.getByLabel(/^ZIP/).first().inputValue(), "Postal Code");
    await checkBothWidths("customers-upload");
    const sentUpload = page.waitForRequest((request) => request.url().includes("/customers/upload"));
    await page.getByRole("button", { name: "Add these customers" }).click();
    await page.getByText("2 new of 2 rows").waitFor();
    const requestId = new URL((await sentUpload).url()).searchParams.get("request_id");
    assert.match(requestId ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Sent, the file's mapping steps away (its button would only send the same upload again); the
    // same request id sent again (a retry after a lost answer) gets the first answer, not "0 new".
    assert.equal(await page.getByRole("button", { name: "Add these customers" }).count(), 0);
    const first = await sentUpload;
    const again = await page.evaluate(
      async ({ url, body, type }) =>
        (await fetch(url, { method: "POST", body, headers: { "content-type": type } })).json(),
      { url: first.url(), body: CUSTOMERS_CSV, type: "text/csv" },
    );
    assert.deepEqual(again, { added: 2, total: 2, rows: 2, stopped_cards: 0 });
    await page
      .getByRole("cell", { name: "742 Evergreen Terrace, Springfield, IL 62704", exact: true })
      .waitFor();
    await checkBothWidths("customers");

    const sent = await app.sendEvent(
      apiKey,
      jobEvent("csv-suppression-1", { street: "742 Evergreen Terrace" }, EVENT_TYPE),
    );
    assert.equal(sent.outcomes[0]?.reason, "queued");
    let piece: ListedPiece | undefined;
    await waitUntil(async () => {
      piece = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces)[0];
      return piece !== undefined && piece.status !== "queued";
    }, "the card leaves queued");
    assert.equal(piece!.status, "suppressed");
    await open("/mail?status=suppressed", "Mail");
    await page
      .getByText(/registered customer/)
      .first()
      .waitFor();
  });

  it("a reactivation mailing from an imported batch creates a card per home except the customer's, shown in Mail", async () => {
    await app.request("POST", "/api/v1/import/jobs", apiKey, {
      source: "jobs",
      rows: [
        {
          address: "742 Evergreen Terrace, Springfield, IL 62704",
          customer_name: "Marge Simpson",
          completed_at: "2023-04-02",
        },
        {
          address: "12 Maple Ave, Springfield, IL 62704",
          customer_name: "Lisa Ray",
          completed_at: "2023-05-01",
        },
        {
          address: "14 Maple Ave, Springfield, IL 62704",
          customer_name: "Otto Mann",
          completed_at: "2023-06-11",
        },
        {
          address: "16 Maple Ave, Springfield, IL 62704",
          customer_name: "Recent Roof",
          completed_at: "2025-03-01",
        },
      ],
    });
    await open("/customers?tab=past-jobs", "Customers");
    // The batch's own page counts what was imported and skipped, in badges readable at AA.
    await page.locator('a[href*="/customers/batches/"]').first().click();
    await page.getByText("4 rows imported").waitFor();
    await page.getByText("0 skipped: no address").waitFor();
    await checkBothWidths("past-jobs-batch");
    await open("/customers?tab=past-jobs", "Customers");
    await page.getByRole("checkbox", { name: /Mail the batch of/ }).check();
    await checkBothWidths("past-jobs");
    await page.getByRole("link", { name: /New mailing from 1 batch/ }).click();
    await page.getByRole("heading", { level: 1, name: "New mailing" }).waitFor();
    await page.getByText("3 cards from 4 matching rows").waitFor();
    await page.getByLabel("Last job before").fill("2024-01-01");
    await page.getByText("2 cards from 3 matching rows").waitFor();
    await page.getByText("1 left out: already customers").waitFor();
    await page.getByRole("img", { name: "First card, front" }).waitFor();
    await page.getByLabel("Mailing name").fill("Spring roof check");
    await checkBothWidths("new-mailing");
    // A card text the send refuses (an unknown merge field) is said on its field, not lost.
    const headline = page.getByRole("textbox", { name: "Headline" });
    const written = await headline.inputValue();
    await headline.fill("Time for a check-up, {{nickname}}?");
    await page.getByRole("button", { name: "Send 2 cards" }).click();
    await page
      .getByRole("dialog", { name: "Send this mailing?" })
      .getByRole("button", { name: "Send 2 cards" })
      .click();
    await page
      .getByText(/unknown merge field \{\{nickname\}\}/i)
      .first()
      .waitFor();
    assert.equal(await headline.getAttribute("aria-invalid"), "true");
    await page.getByRole("dialog", { name: "Send this mailing?" }).waitFor({ state: "hidden" });
    await headline.fill(written);
    await page.getByRole("main").getByRole("button", { name: "Send 2 cards" }).click();
    // The confirm step: the count (and its cost, with a cost per card) before anything is mailed.
    const confirm = page.getByRole("dialog", { name: "Send this mailing?" });
    await confirm.getByText(/2 cards will be printed and mailed/).waitFor();
    await confirm.getByRole("button", { name: "Send 2 cards" }).click();
    await page.getByRole("heading", { level: 1, name: "Mail", exact: true }).waitFor();
    // Mail says the mailing went, and how many cards it made.
    await page
      .locator(".mantine-Notification-root")
      .filter({ hasText: "Mailing sent" })
      .getByText("2 cards are on the way to print.")
      .waitFor();

    let mailing: { pieces: ListedPiece[] } | undefined;
    await waitUntil(async () => {
      mailing = (await app.campaigns(orgId)).find((campaign) => campaign.name === "Spring roof check");
      return mailing?.pieces.every((piece) => piece.status !== "queued") ?? false;
    }, "the mailing's cards are processed");
    assert.deepEqual(mailing!.pieces.map((piece) => piece.address).sort(), [
      "12 Maple Ave, Springfield, IL 62704",
      "14 Maple Ave, Springfield, IL 62704",
    ]);
    for (const piece of mailing!.pieces) assert.equal(piece.status, "mailed");
    await page.reload();
    await page.getByRole("cell", { name: "12 Maple Ave, Springfield, IL 62704", exact: true }).waitFor();
    await page.getByRole("cell", { name: "Spring roof check" }).first().waitFor();
    await checkBothWidths("mail-reactivation");

    // The Automation filter offers the mailings the Automation column names, and lists their cards only.
    const postcards = page.getByRole("region", { name: "Postcards" }).getByRole("row");
    const headings = await page
      .getByRole("region", { name: "Postcards" })
      .getByRole("columnheader")
      .allInnerTexts();
    const automationColumn = headings.indexOf("Automation");
    const automationOf = () =>
      postcards.evaluateAll(
        (rows, column) => rows.slice(1).map((row) => (row.children[column] as HTMLElement).innerText.trim()),
        automationColumn,
      );
    assert.ok(
      (await automationOf()).includes("Job done postcard"),
      "an automation's card is listed unfiltered",
    );
    await page.getByLabel("Automation").selectOption({ label: "Reactivation mailings" });
    await page.waitForURL(/[?&]mailing=reactivation\b/);
    await waitUntil(async () => (await postcards.count()) === 3, "the list shows the mailing's two cards");
    assert.deepEqual(await automationOf(), ["Spring roof check", "Spring roof check"]);
    await page.setViewportSize(VIEWPORTS.phone);
    const filterBar = await page.getByRole("search", { name: "Filter postcards" }).boundingBox();
    const automationSelect = await page.getByLabel("Automation").boundingBox();
    assert.ok(
      filterBar && automationSelect && automationSelect.width >= filterBar.width - 1,
      "on a phone the Automation filter has a line of its own: 'Reactivation mailings' is not cut",
    );
    await checkBothWidths("mail-reactivation-filter");
    await page.reload();
    assert.equal(
      await page.getByLabel("Automation").locator("option:checked").innerText(),
      "Reactivation mailings",
      "the filter is kept in the link",
    );
    await waitUntil(async () => (await postcards.count()) === 3, "the reloaded list is still the mailing's");
  });

  it("a batch's page lists the rows it did not import, each with why", async () => {
    const imported = await app.request("POST", "/api/v1/import/jobs", apiKey, {
      source: "jobs",
      rows: [
        { address: "20 Maple Ave, Springfield, IL 62704", customer_name: "Kept Row" },
        { customer_name: "Nora No-Address", external_id: "J-77" },
        { address: "9 Nowhere Rd, Atlantis, ZZ 00000", customer_name: "Ann Atlantis" },
      ],
    });
    await open(`/customers/batches/${imported.import_id}`, /imported/);
    await page.getByRole("heading", { name: "2 rows were not imported" }).waitFor();
    const skipped = page.getByRole("region", { name: "Rows not imported" }).getByRole("row");
    const cells = await skipped.evaluateAll((rows) =>
      rows.slice(1).map((row) => [...row.children].map((cell) => (cell as HTMLElement).innerText.trim())),
    );
    assert.deepEqual(cells, [
      ["2", "—", "Nora No-Address", "J-77", "No address"],
      [
        "3",
        "9 Nowhere Rd, Atlantis, ZZ 00000",
        "Ann Atlantis",
        "",
        "Not found on the map (check the street, house number and ZIP)",
      ],
    ]);
    await checkBothWidths("past-jobs-batch-skipped");
  });

  it("the Overview's mail safety shows the mailing's cards beside the automations', so the boxes add up", async () => {
    await waitUntil(async () => {
      await open("/", "Overview");
      const safety = page.getByRole("region", { name: /Mail safety in/ });
      return (await safety.getByText("Mailings to past customers").count()) === 1;
    }, "the mailing's cards are counted once sent to print");
    const box = page.getByText("Mailings to past customers").locator("xpath=..");
    assert.match(await box.innerText(), /^2 cards sent to print$/m);
    assert.match(await box.innerText(), /count against the organization's caps only/);
    await checkBothWidths("overview-mailings");
  });
  it("an owner takes a home added by mistake off the list, after a dialog says what follows, and its next card is mailed", async () => {
    const address = "744 Evergreen Terrace, Springfield, IL 62704";
    await open("/customers", "Customers");
    await page.getByRole("button", { name: `Remove ${address}` }).click();
    const dialog = page.getByRole("dialog", { name: "Take this home off the customers list?" });
    await dialog.getByText("From now on your automations may mail", { exact: false }).waitFor();
    assert.match(await dialog.innerText(), /Cards stopped when it was added stay stopped/);
    await checkBothWidths("customers-remove-dialog");
    await dialog.getByRole("button", { name: "Remove" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `${address} is off the list` })
      .waitFor();
    assert.equal(await page.getByRole("cell", { name: address, exact: true }).count(), 0, "the row is gone");
    await page
      .getByRole("cell", { name: "742 Evergreen Terrace, Springfield, IL 62704", exact: true })
      .waitFor();
    // Once the dialog has gone, the focus lost with the removed row's button is on the list's search.
    const search = page.getByLabel("Search addresses");
    await waitUntil(
      () => search.evaluate((input) => input === document.activeElement),
      "the focus is on the list's search",
      5_000,
    );
    await checkBothWidths("customers-removed");

    const sent = await app.sendEvent(
      apiKey,
      jobEvent("removed-customer-1", { street: "744 Evergreen Terrace" }, EVENT_TYPE),
    );
    assert.equal(sent.outcomes[0]?.reason, "queued");
    await waitUntil(async () => {
      const pieces = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);
      const card = pieces.find((piece) => piece.address.startsWith("744 Evergreen"));
      return card !== undefined && !["queued", "suppressed"].includes(card.status);
    }, "the home's next card goes on, not suppressed");
  });
});
