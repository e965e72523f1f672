/**
 * Neighbour addresses from the operator console (issue 43 part 4) in a real browser against the
 * real service as a process: the contractor's Automations page says none are loaded; the operator
 * uploads an OpenAddresses CSV (with a bad row) from the console and follows it to Done; the
 * contractor's page then names the ZIP that is covered. Every screen: axe-core and a screenshot
 * at desktop and phone width in test/e2e/artifacts/.
 */
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { csvLineOf, syntheticHome } from "../../src/neighbours/synthetic-neighbourhood.ts";
import { type App, startApp } from "./session.ts";

const OWNER = { email: "owner@addresses.test", name: "Ada Address", password: "correct horse battery" };
const HEADER = "LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE";
const FILE = [
  HEADER,
  ...Array.from({ length: 250 }, (_, index) => csvLineOf(syntheticHome(index))),
  csvLineOf({ ...syntheticHome(999), LAT: "north" }),
].join("\n");

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let openOperatorConsole: ReturnType<App["screens"]>["openOperatorConsole"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];

describe("neighbour addresses uploaded from the operator console", () => {
  before(async () => {
    app = await startApp({ name: "addresses" });
    page = await app.newPage();
    ({ open, openOperatorConsole, checkBothWidths } = app.screens(page));
    await app.signUpOwner(page, "Bright Roofing", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("the contractor sees that no neighbour addresses are loaded yet", async () => {
    await open("/automations", "Automations");
    await page.getByText("None are loaded yet, so neighbor automations find no homes.").waitFor();
  });

  it("the operator uploads a county's file and follows it to Done, the bad row counted", async () => {
    await openOperatorConsole();
    const section = page.getByRole("region", { name: "Neighbor addresses" });
    const chooser = page.waitForEvent("filechooser");
    await section.getByRole("button", { name: "OpenAddresses file" }).click();
    await (await chooser).setFiles({ name: "sangamon.csv", mimeType: "text/csv", buffer: Buffer.from(FILE) });
    await section.getByRole("button", { name: "Upload" }).click();
    const uploads = page.getByRole("region", { name: "Address uploads" });
    await uploads.getByText("Done").waitFor({ timeout: 60_000 });
    await uploads.getByRole("cell", { name: "Rejected: bad coordinates: 1" }).waitFor();
    await uploads.getByRole("cell", { name: "250", exact: true }).waitFor();
    await section.scrollIntoViewIfNeeded();
    await checkBothWidths("operator-reference-addresses");
  });

  it("the contractor's Automations page then names the ZIP that is covered", async () => {
    await open("/automations", "Automations");
    await page
      .getByText(/Neighbor automations can mail homes in 1 ZIP \(250 homes\): 62704 Springfield, IL/)
      .waitFor();
    await checkBothWidths("automations-neighbour-coverage");
  });
});
