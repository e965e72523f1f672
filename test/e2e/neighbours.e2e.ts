/**
 * Neighbour mail in a real browser (issue 30) against the real service as a process, on the
 * generated neighbourhood (`npm run addresses:load -- --synthetic`, never a download): build a
 * neighbour automation, test it on a sample and see the homes, the exclusions and the map (the
 * offline drawing: no MAP_TILE_URL), send a job event through the developer API, see its pieces
 * in Mail, post a won deal at a neighbour's address and see it in Revenue by source job.
 * Every screen: axe-core (no serious or critical violation) and a screenshot at desktop and phone
 * width in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const OWNER = { email: "owner@neighbours.test", name: "Nora Neighbour", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";

let app: App;
let page: Page;
let open: ReturnType<App["screens"]>["open"];
let checkBothWidths: ReturnType<App["screens"]>["checkBothWidths"];
let orgId: string;
let apiKey: string;

const developer = (route: string, body: unknown) => app.request("POST", `/api/v1${route}`, apiKey, body);

const sendJob = (street: string, dedupId: string) =>
  app.sendEvent(apiKey, jobEvent(dedupId, { street, client_name: "Homer Simpson" }, EVENT_TYPE));

describe("neighbour mail in the browser: build, test on a sample, mail, revenue by source job", () => {
  before(async () => {
    app = await startApp({
      name: "neighbours",
      // The generated neighbourhood around 742 Evergreen Terrace, loaded before the server owns the data dir.
      prepare: (env) => {
        const loaded = execFileSync(
          process.execPath,
          ["--import", "tsx", "scripts/addresses-load.ts", "--synthetic", "3000"],
          { cwd: ROOT, env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env }, encoding: "utf8" },
        );
        assert.match(loaded, /3000 added/, loaded);
      },
    });
    page = await app.newPage();
    ({ open, checkBothWidths } = app.screens(page));

    orgId = await app.signUpOwner(page, "Bright Roofing", OWNER);
    apiKey = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    // The sample the builder tests on, and a customer next door the neighbour mail must leave out.
    await sendJob("742 Evergreen Terrace", "sample-742");
    await developer("/customers/webhook", { address: "744 Evergreen Terrace, Springfield, IL 62704" });
    const profile = await page.request.patch(`${app.base}/app/api/v1/organization`, {
      headers: { origin: app.base },
      data: { cost_per_card_cents: 90 },
    });
    assert.equal(profile.status(), 200, await profile.text());
  });

  after(async () => {
    await app?.close();
  });

  it("builds a neighbour automation, tests it on a sample and sees the homes on the offline map", async () => {
    await open(`/automations/new?event_type=${EVENT_TYPE}`, "New automation");
    await page.getByLabel("Name").fill("Roof neighbours");
    await page.getByRole("radio", { name: "Neighbors of the record's home" }).check();
    // The untouched home card gives way to the neighbour card's text (no customer name on it).
    assert.match(await page.getByLabel("Headline").inputValue(), /\{\{job_street\}\}/);
    // The merge fields offered are a neighbour card's: the job's street and city, no customer name.
    await page.getByText("Merge fields like {{job_street}} are filled from the job next door.").waitFor();
    await page.getByRole("button", { name: "Insert merge field" }).click();
    const menu = page.getByRole("menu");
    await menu.getByRole("menuitem", { name: /The job's street/ }).waitFor();
    assert.equal(await menu.getByRole("menuitem", { name: /Customer name/ }).count(), 0);
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "hidden" });
    await page.getByLabel("Homes to mail").fill("12");
    // Typed in feet, saved in the API's meters: 984 ft is 300 m.
    await page.getByLabel("Within (feet)").fill("984");
    const test = page.getByRole("button", { name: "Test with a sample" });
    await waitUntil(() => test.isEnabled(), "the newest sample is picked");
    await test.click();
    const result = page.getByRole("status").filter({ hasText: "would be mailed" });
    await result.getByText("12 homes would be mailed").waitFor();
    await result.getByText("1 home: your customers").waitFor();
    await result.getByText("1 home: the job's own home").waitFor();
    const map = result.getByRole("img", {
      name: /Map of the job and the 12 homes that would be mailed, within 984 ft/,
    });
    await map.waitFor();
    assert.equal(await map.locator("circle").count(), 13, "the radius and 12 homes, drawn without tiles");
    assert.equal(await page.locator(".leaflet-container").count(), 0, "no tile map without MAP_TILE_URL");
    await result.scrollIntoViewIfNeeded();
    await checkBothWidths("neighbours-test");

    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();
    const saved = await (await page.request.get(`${app.base}/app/api/v1/automations`)).json();
    assert.deepEqual(saved.automations[0].audience, { type: "neighbours", count: 12, radius_m: 300 });
  });

  it("a job event mails its neighbours; a won deal at a neighbour's address shows by source job", async () => {
    const event = await sendJob("820 Maple Avenue", "job-820");
    assert.equal(event.outcomes[0]?.reason, "queued", JSON.stringify(event));
    let pieces: { id: string; address: string; status: string }[] = [];
    await waitUntil(async () => {
      pieces = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces);
      return pieces.length === 12 && pieces.every((piece) => piece.status === "mailed");
    }, "the 12 neighbour cards are mailed");
    assert.ok(!pieces.some((piece) => piece.address.startsWith("820 Maple")), "never the job's own home");

    await open("/mail", "Mail");
    await page.getByRole("cell", { name: pieces[0]!.address }).first().waitFor();
    await checkBothWidths("neighbours-mail");
    // On a phone the Automation filter has a line of its own (an automation's name is cut at half a
    // line), and the other three stand two a line, so the list still starts on the first screen.
    await page.setViewportSize(VIEWPORTS.phone);
    try {
      const labels = page.getByRole("search", { name: "Filter postcards" }).locator("label");
      let lefts: number[] = [];
      await waitUntil(async () => {
        lefts = await labels.evaluateAll((all) =>
          all.map((label) => Math.round(label.getBoundingClientRect().left)),
        );
        return lefts.length === 4 && new Set(lefts).size === 2;
      }, "Automation alone, the other filters two a line at 390 px");
      const [automation, status, from, to] = lefts as [number, number, number, number];
      assert.ok(
        status === automation && from > status && to === automation,
        `filter labels' left edges: ${lefts.join(", ")}`,
      );
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }

    const won = await developer("/conversions", {
      address: pieces[0]!.address,
      deal_id: "D-NEIGHBOUR",
      deal_name: "New roof",
      deal_amount: "9000",
      deal_stage: "closedwon",
    });
    assert.equal(won.matched, true, JSON.stringify(won));

    await open("/revenue", "Revenue");
    const section = page.getByRole("region", { name: "Revenue by source job" });
    const row = section.getByRole("row", { name: /Maple Ave, Springfield/ });
    await row.waitFor();
    assert.deepEqual(
      (await row.getByRole("cell").allInnerTexts()).slice(1),
      ["12", "0", "1", "$9,000"],
      "cards sent, leads, won deals, revenue",
    );
    assert.doesNotMatch(await section.innerText(), /820 Maple/, "never the job's house number");
    const spend = page.getByRole("group", { name: "Neighbor mail against its cost" });
    await spend.getByText("Cost of the cards: $10.80").waitFor();
    await spend.getByText("Return on spend: $833 back per $1").waitFor();
    await page.getByRole("heading", { name: "By source job" }).scrollIntoViewIfNeeded();
    await checkBothWidths("neighbours-revenue");
  });
});
