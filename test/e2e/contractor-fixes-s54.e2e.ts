/**
 * What a contractor's walk found in session 54, in a real browser against the real service:
 * double-clicking "Import these jobs" sent the file twice, and the second sending's 409
 * `import_in_progress` put a red "Nothing was added" over the first's success; a click now sends
 * once while an upload is on its way, and a 409 that still comes (a retry after a lost answer)
 * reads "Still importing". Revenue's won deals named a CRM's deal by its id ("deal-2001") beside
 * customers' names: each row is now its customer's (or its home's), the deal after it. The
 * Customers subtitle no longer contradicts itself. The geocoder is a fake on loopback (the edge)
 * that the tests hold, so an import is on its way for as long as they need. Axe-core and both
 * widths on each screen; screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { APIResponse, Page } from "playwright-core";
import { type FakeGeocoderServer, type FakeRequest, startFakeGeocoder } from "../geo/fake-geocoder.ts";
import { settled, VIEWPORTS } from "./browser.ts";
import { type App, countPosts, jobEvent, type ListedPiece, pickCsv, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@fixes54.test", name: "Iris Importer", password: "correct horse battery" };
const AUTOMATION = "Job done postcard";

let app: App;
let page: Page;
let geocoder: FakeGeocoderServer;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let apiKey: string;
let orgId: string;

/** Held: every geocoding waits until `release()`; an import stays on its way meanwhile. */
let held: Promise<void> | undefined;
let release = () => {};
const hold = () => {
  held = new Promise((resolve) => {
    release = () => {
      held = undefined;
      resolve();
    };
  });
};

/**
 * Nominatim's answer for a Springfield home, its point set apart by the house number (55 m a
 * number), so no two homes are within the geo match's 30 m.
 */
async function geocode(request: FakeRequest) {
  await held;
  const number = Number(/^\d+/.exec(request.query.get("q") ?? "")?.[0] ?? 1);
  return {
    status: 200,
    body: [
      {
        lat: String(39.7 + number * 0.0005),
        lon: "-89.65",
        addresstype: "house",
        address: { city: "Springfield", postcode: "62704", "ISO3166-2-lvl4": "US-IL" },
      },
    ],
  };
}

const batchRows = () =>
  page.getByRole("region", { name: "Imported batches table" }).locator("tbody").getByRole("row");
const uploaded = () => page.getByRole("status").filter({ hasText: "Uploaded" });
const nothingAdded = () => page.getByRole("alert").filter({ hasText: "Nothing was added" });

/** The day as the browser's date field writes it (the page's own time zone). */
const localDay = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;

/** A job event's card at `street`, once mailed. */
async function mailedCard(street: string, properties: Record<string, string> = {}): Promise<ListedPiece> {
  const sent = await app.sendEvent(apiKey, jobEvent(`s54-${street}`, { street, ...properties }));
  assert.equal(sent.outcomes[0]?.reason, "queued", JSON.stringify(sent));
  let card: ListedPiece | undefined;
  await waitUntil(async () => {
    card = (await app.campaigns(orgId))
      .flatMap((campaign) => campaign.pieces)
      .find((piece) => piece.address.startsWith(street));
    return card?.status === "mailed";
  }, `the card to ${street} is mailed`);
  return card!;
}

describe("contractor walk fixes (session 54)", () => {
  before(async () => {
    geocoder = await startFakeGeocoder(geocode);
    app = await startApp({
      name: "fixes-s54",
      // A held import outlasts the default 10 s a geocoding may take.
      env: { GEOCODER: "nominatim", GEOCODER_URL: geocoder.url, GEOCODER_TIMEOUT_MS: "120000" },
    });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));
    orgId = await app.signUpOwner(page, "Importer Roofing", OWNER);
    apiKey = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: AUTOMATION,
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
  });

  after(async () => {
    release();
    await app?.close();
    await geocoder?.close();
  });

  const HEADER = "address,city,state,zip,job_date,customer";
  const jobs = (...streets: string[]) =>
    `${[HEADER, ...streets.map((street, n) => `${street},Springfield,IL,62704,2024-05-0${n + 1},Person ${n + 1}`)].join("\n")}\n`;

  it("the Customers subtitle says who is never mailed and that past jobs are mailed only on purpose", async () => {
    await open("/customers", "Customers");
    await page
      .getByText(
        "Homes on your customers list, and homes that opted out, are never mailed. Past jobs you import stay off that list: they are mailed only when you start a mailing from them.",
        { exact: true },
      )
      .waitFor();
    // The words it names are the page's own: the customers list's tab and the Past jobs tab.
    await page.getByRole("tab", { name: "Customers (do not mail)" }).waitFor();
    await page.getByRole("tab", { name: "Past jobs" }).waitFor();
    await checkBothWidths("s54-customers-subtitle");
  });

  it("a double-click on Import these jobs sends the file once and says Uploaded, with no failure", async () => {
    await open("/customers?tab=past-jobs", "Customers");
    await pickCsv(page, "past-jobs.csv", jobs("101 Oak St", "103 Oak St"), "2 rows read.");
    const sent = countPosts(page, "/app/api/v1/imports/upload");
    await page.getByRole("button", { name: "Import these jobs" }).dblclick();
    await uploaded().getByText("2 rows read: 2 imported.", { exact: true }).waitFor();
    await batchRows().first().waitFor();
    assert.equal(sent.length, 1, "one upload sent");
    assert.equal(await nothingAdded().count(), 0, "no failure said");
    assert.equal(await batchRows().count(), 1, "one batch");
    await checkBothWidths("s54-import-double-click");

    // Two clicks in one task, as a fast double-click or a key pressed twice lands before any render
    // (the button's spinner is no guard then), while the first sending is held at the geocoder.
    await pickCsv(page, "past-jobs-2.csv", jobs("105 Oak St", "107 Oak St", "109 Oak St"), "3 rows read.");
    hold();
    await page.getByRole("button", { name: "Import these jobs" }).evaluate((button: HTMLElement) => {
      button.click();
      button.click();
    });
    await waitUntil(async () => sent.length === 2, "the second file is sent");
    await page
      .getByRole("button", { name: "Import these jobs" })
      .and(page.locator("[data-loading]"))
      .waitFor();
    release();
    await uploaded().getByText("3 rows read: 3 imported.", { exact: true }).waitFor();
    await waitUntil(async () => (await batchRows().count()) === 2, "the second batch is listed");
    await settled(page);
    assert.equal(sent.length, 2, "one upload per file");
    assert.equal(await nothingAdded().count(), 0, "no failure said");
  });

  it("a 409 import_in_progress (a retry while the first sending runs) reads Still importing; Check again shows what it added", async () => {
    await open("/customers?tab=past-jobs", "Customers");
    // The batches of the test before, once listed.
    await batchRows().first().waitFor();
    await page.waitForLoadState("networkidle");
    const batchesBefore = await batchRows().count();
    await pickCsv(page, "past-jobs-3.csv", jobs("201 Birch St", "203 Birch St"), "2 rows read.");
    hold();
    // The first sending reaches the server, which imports it (held at the geocoder), but its answer
    // is lost on the way back: the browser sees the connection fail.
    let first: Promise<APIResponse> | undefined;
    await page.route(
      (url) => url.pathname === "/app/api/v1/imports/upload",
      async (route) => {
        first = route.fetch();
        await waitUntil(
          async () => geocoder.requests.some((request) => /birch/i.test(request.query.get("q") ?? "")),
          "the server is importing the file",
        );
        await route.abort("connectionreset");
      },
      { times: 1 },
    );
    const importButton = page.getByRole("button", { name: "Import these jobs" });
    await importButton.click();
    await nothingAdded()
      .getByText(/The server could not be reached/)
      .waitFor();
    await page.unrouteAll({ behavior: "wait" });

    // Sent again, the same upload (its request id) finds the first still importing: no failure.
    await importButton.click();
    const still = page.getByRole("status").filter({ hasText: "Still importing" });
    await still.getByText(/This file is still being imported from the first time it was sent/).waitFor();
    assert.equal(await nothingAdded().count(), 0, "not read as a failure");
    assert.equal(await page.getByRole("alert").count(), 0, "no alert at all");
    await checkBothWidths("s54-still-importing");

    // Done: Check again answers the first sending's counts, and the file is one batch.
    release();
    const answered = await first!;
    assert.ok(answered.ok(), await answered.text());
    await still.getByRole("button", { name: "Check again" }).click();
    await uploaded().getByText("2 rows read: 2 imported.", { exact: true }).waitFor();
    assert.equal(await still.count(), 0, "Still importing has gone");
    await waitUntil(async () => (await batchRows().count()) === batchesBefore + 1, "the batch is listed");
    await settled(page);
    assert.equal(await batchRows().count(), batchesBefore + 1, "one batch for the file");
    await checkBothWidths("s54-still-importing-done");
  });

  it("the customers CSV on the same form still adds once on a double-click", async () => {
    await open("/customers", "Customers");
    await pickCsv(
      page,
      "customers.csv",
      "address,city,state,zip\n301 Elm St,Springfield,IL,62704\n303 Elm St,Springfield,IL,62704\n",
      "2 rows read.",
    );
    const sent = countPosts(page, "/app/api/v1/customers/upload");
    await page.getByRole("button", { name: "Add these customers" }).dblclick();
    await uploaded().getByText("2 new of 2 rows; 2 customers in all.", { exact: true }).waitFor();
    await settled(page);
    assert.equal(sent.length, 1, "one upload sent");
    assert.equal(await nothingAdded().count(), 0);
    await page.getByRole("cell", { name: /^301 Elm St/ }).waitFor();
    await checkBothWidths("s54-customers-csv");

    // The list goes out as a file, for another mail vendor or the CRM.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download every home never mailed (CSV)" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), "do-not-mail.csv");
    const file = await download.path();
    const lines = (await readFile(file, "utf8")).trimEnd().split("\r\n");
    assert.equal(lines[0], "address,why never mailed,notes,since");
    assert.ok(
      lines.some((line) => line.startsWith('"301 Elm St')),
      lines.join("\n"),
    );
  });

  it("Revenue names each won deal by its customer, or its home, with the CRM's deal after it", async () => {
    // A CRM's deal sent with its id only, at a home whose card named its customer.
    await mailedCard("742 Evergreen Terrace", { client_name: "Homer Simpson" });
    // A deal with its name, at a home whose card named nobody.
    await mailedCard("744 Evergreen Terrace");
    // A lead marked won in the app.
    const leadCard = await mailedCard("746 Evergreen Terrace");
    for (const deal of [
      {
        address: "742 Evergreen Terrace, Springfield, IL 62704",
        deal_id: "deal-2001",
        deal_amount: "12500.50",
      },
      {
        address: "744 Evergreen Terrace, Springfield, IL 62704",
        deal_id: "deal-2002",
        deal_name: "Gutter replacement",
        deal_amount: "4250.25",
      },
    ]) {
      const won = await app.request("POST", "/api/v1/conversions", apiKey, deal);
      assert.equal(won.matched, true, JSON.stringify(won));
    }
    const lead = await page.request.post(leadCard.landing_url, {
      data: { first_name: "Marge", last_name: "Simpson", email: "marge@example.test" },
    });
    assert.equal(lead.status(), 201, await lead.text());
    const marked = await page.request.put(`${app.base}/app/api/v1/leads/${(await lead.json()).lead_id}/won`, {
      headers: { origin: app.base },
      data: { amount: 900, closed_on: localDay(new Date()) },
    });
    assert.equal(marked.status(), 200, await marked.text());

    await open("/revenue", "Revenue");
    const table = page.getByRole("region", { name: "Won deals attributed table", exact: true });
    const rowOf = (customer: string) =>
      table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: customer, exact: true }) });
    await rowOf("Homer Simpson").waitFor();
    // Cells after the row's name: closed, deal, address, amount, automation, how it was matched.
    const cells = async (customer: string) => rowOf(customer).getByRole("cell").allInnerTexts();
    const homer = await cells("Homer Simpson");
    assert.equal(homer[1], "deal-2001", "the CRM's id, after the customer");
    assert.match(homer[2] ?? "", /^742 Evergreen Terrace/);
    assert.equal(homer[3], "$12,500.50");
    const gutters = await cells("744 Evergreen Terrace");
    assert.equal(gutters[1], "Gutter replacement", "named by its home: no name was sent or printed");
    assert.equal(gutters[3], "$4,250.25");
    const marge = await cells("Marge Simpson");
    assert.equal(marge[1], "—", "a job marked won in the app has no CRM deal");
    assert.match(marge[5] ?? "", /marked won in the app/);
    // No deal is named by its CRM id.
    assert.equal(await table.getByRole("rowheader", { name: "deal-2001" }).count(), 0);
    assert.deepEqual(await table.getByRole("columnheader").allInnerTexts(), [
      "Closed",
      "Customer",
      "Deal",
      "Address",
      "Amount",
      "Automation or campaign",
      "How it was matched",
    ]);

    // On a phone the customer stays in sight as the figures scroll sideways.
    await page.setViewportSize(VIEWPORTS.phone);
    await settled(page);
    await table.scrollIntoViewIfNeeded();
    await table.evaluate((element) => {
      element.scrollLeft = element.scrollWidth;
    });
    await settled(page);
    const frame = (await table.boundingBox())!;
    for (const key of [
      table.getByRole("columnheader", { name: "Customer", exact: true }),
      table.getByRole("rowheader", { name: "Homer Simpson" }),
    ]) {
      const box = (await key.boundingBox())!;
      assert.ok(
        box.x >= frame.x - 1 && box.x + box.width <= frame.x + frame.width + 1,
        `"${await key.innerText()}" stays in sight (${JSON.stringify(box)} in ${JSON.stringify(frame)})`,
      );
    }
    await table.evaluate((element) => {
      element.scrollLeft = 0;
    });
    await page.setViewportSize(VIEWPORTS.desktop);
    await table.scrollIntoViewIfNeeded();
    await checkBothWidths("s54-revenue-customers");
  });
});
