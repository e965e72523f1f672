/**
 * An eighth walk's fixes, checked as a person meets them in a real browser against the real service:
 * Developers → Event samples tells an owner who already has a key to send the first event with it
 * (it said "create one under API keys" whatever the keys), sends an owner without one to API keys,
 * and tells a member that an owner makes keys; the Leads table keeps a short name on one line at
 * desktop width; Overview's new leads keep each date whole on a phone. Screens: axe-core and
 * screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@walk8.test", name: "Ada Owner", password: "correct horse battery" };
const MEMBER = { email: "member@walk8.test", name: "Max Member", password: "correct horse battery" };

let app: App;
let page: Page;
let orgId: string;
let screens: ReturnType<App["screens"]>;

const keyHint = () => page.getByText(/^Send a first event with/);

describe("fixes from an eighth walk through the app", () => {
  before(async () => {
    app = await startApp({ name: "walk-fixes-8" });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Birch Plumbing", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("an owner without a key is sent to API keys to make the one the first event needs", async () => {
    await screens.open("/developers?tab=samples", "Developers");
    await page.getByRole("heading", { level: 2, name: "No events received yet" }).waitFor();
    assert.match(await keyHint().innerText(), /with an API key \(create one under API keys\)/);
    await screens.checkBothWidths("walk8-samples-no-key");
    await keyHint().getByRole("link", { name: "create one under API keys" }).click();
    await page.getByRole("tab", { name: "API keys", selected: true }).waitFor();
  });

  it("an owner with a key is told to send the first event with it, not to create one", async () => {
    await app.operator("POST", `/orgs/${orgId}/keys`);
    await screens.open("/developers?tab=samples", "Developers");
    await page.getByRole("heading", { level: 2, name: "No events received yet" }).waitFor();
    const hint = keyHint();
    await waitUntil(
      async () => /one of your API keys/.test(await hint.innerText()),
      "the hint knows the key",
    );
    assert.doesNotMatch(await hint.innerText(), /create one/);
    await screens.checkBothWidths("walk8-samples-with-key");
  });

  it("a member, who cannot see keys, is told that an owner makes them", async () => {
    const memberPage = await app.signInMember(orgId, MEMBER);
    await memberPage.goto(`${app.base}/app/developers?tab=samples`);
    await memberPage.getByRole("heading", { level: 2, name: "No events received yet" }).waitFor();
    assert.match(
      await memberPage.getByText(/^Send a first event with/).innerText(),
      /an owner of your organization makes keys/,
    );
    await memberPage.close();
  });

  it("Leads keeps a short name on one line at desktop width, and Overview keeps each date whole on a phone", async () => {
    const apiKey: string = (await app.operator("POST", `/orgs/${orgId}/keys`)).key;
    await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    await app.sendEvent(
      apiKey,
      jobEvent("walk8-1", { street: "742 Evergreen Terrace", client_name: "Ann Lee" }),
    );
    let landingUrl = "";
    await waitUntil(async () => {
      const piece = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces)[0];
      landingUrl = piece?.status === "mailed" ? piece.landing_url : "";
      return landingUrl !== "";
    }, "the card to 742 Evergreen Terrace is mailed");
    // A short name, and one long enough that its date wraps on a phone.
    for (const [first, last] of [
      ["Ann", "Lee"],
      ["Maximiliana", "Featherstonehaugh-Cholmondeley"],
    ]) {
      const lead = await fetch(landingUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          first_name: first,
          last_name: last,
          email: `${first!.toLowerCase()}.from.the.corner.house@example-neighbourhood-mail.com`,
          phone: "(217) 555-0142",
        }),
      });
      assert.equal(lead.status, 201, await lead.text());
    }

    await screens.open("/leads", "Leads");
    const nameCell = page
      .getByRole("row", { name: /Ann Lee/ })
      .getByRole("cell")
      .first();
    await nameCell.waitFor();
    const lines = await nameCell.evaluate((cell) => {
      const link = cell.querySelector("a")!;
      return link.getClientRects().length;
    });
    assert.equal(lines, 1, "the name is one line");
    await screens.checkBothWidths("walk8-leads");

    await page.setViewportSize({ width: 390, height: 844 });
    await screens.open("/", "Overview");
    const dates = page.getByRole("listitem").getByText(/^\(.+\)$/);
    await waitUntil(async () => (await dates.count()) === 2, "both new leads are listed");
    for (const date of await dates.all()) {
      // One line: no taller than one line of its text (a date split after its year is two).
      const { height, fontSize } = await date.evaluate((span) => ({
        height: span.getBoundingClientRect().height,
        fontSize: Number.parseFloat(getComputedStyle(span).fontSize),
      }));
      assert.ok(height < fontSize * 2, `"${await date.innerText()}" is one line (${height} px tall)`);
    }
    await screens.checkBothWidths("walk8-overview-new-lead");
  });
});
