/**
 * Settings → Connections → HubSpot in a real browser (issue 43, part 3), against the real service as
 * a process and a fake HubSpot on loopback (HUBSPOT_API_URL and HUBSPOT_AUTH_URL point at it): an
 * owner connects (HubSpot's consent page grants at once and sends the browser back through
 * /connectors/hubspot/callback), a signed webhook's contact fires a bound automation and shows as
 * the last event received, the owner names the won stages and disconnects; a member is told only
 * owners manage connections; a server without a HubSpot app says so, with no button. Every screen:
 * axe-core and screenshots at 1280 and 390 px.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { signHubSpotRequest } from "../../src/hubspot/signature.ts";
import { type FakeHubSpot, startFakeHubSpot } from "../helpers/fake-hubspot.ts";
import { waitForFocus } from "./page-probes.ts";
import { type App, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@hubspot.test", name: "Hana Spot", password: "correct horse battery" };
const MEMBER = { email: "member@hubspot.test", name: "Milo Member", password: "correct horse battery" };

let app: App;
let fake: FakeHubSpot;
let page: Page;
let orgId: string;
let screens: ReturnType<App["screens"]>;

/** A contact.creation webhook as HubSpot sends it, signed with the app's client secret. */
async function sendContactCreated(objectId: number) {
  const body = Buffer.from(
    JSON.stringify([
      {
        eventId: Date.now(),
        subscriptionId: 234_567,
        portalId: fake.portalId,
        appId: 456_789,
        occurredAt: Date.now() - 1000,
        subscriptionType: "contact.creation",
        attemptNumber: 0,
        objectId,
        changeSource: "CRM_UI",
      },
    ]),
  );
  const timestamp = String(Date.now());
  const uri = `${app.base}/connectors/hubspot/webhooks`;
  const response = await fetch(`${app.direct}/connectors/hubspot/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-hubspot-request-timestamp": timestamp,
      "x-hubspot-signature-v3": signHubSpotRequest(fake.config.clientSecret, {
        method: "POST",
        uri,
        rawBody: body,
        timestamp,
      }),
    },
    body,
  });
  assert.equal(response.status, 200, await response.text());
}

describe("HubSpot in the browser", () => {
  before(async () => {
    fake = await startFakeHubSpot();
    fake.contacts.set("501", {
      properties: {
        firstname: "Homer",
        lastname: "Simpson",
        email: "homer@example.com",
        address: "742 Evergreen Terrace",
        city: "Springfield",
        state: "IL",
        zip: "62704",
      },
    });
    app = await startApp({
      name: "hubspot",
      env: {
        HUBSPOT_CLIENT_ID: fake.config.clientId,
        HUBSPOT_CLIENT_SECRET: fake.config.clientSecret,
        HUBSPOT_API_URL: fake.config.apiUrl,
        HUBSPOT_AUTH_URL: fake.config.authUrl,
      },
    });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Spot Roofing", OWNER);
  });

  after(async () => {
    await app?.close();
    await fake?.close();
  });

  it("an owner connects HubSpot, sees its events arrive, names the won stages and disconnects", async () => {
    await screens.open("/settings?tab=connections", "Settings");
    const card = page.getByRole("region", { name: "HubSpot" });
    await card.getByRole("button", { name: "Connect HubSpot" }).waitFor();
    await screens.checkBothWidths("hubspot-not-connected");

    await card.getByRole("button", { name: "Connect HubSpot" }).click();
    // The fake's consent page grants at once; the callback brings the browser back here.
    await page.getByRole("alert").filter({ hasText: "HubSpot is connected" }).waitFor();
    assert.match(page.url(), /\/app\/settings\?tab=connections&hubspot=connected$/);
    await card.getByText(String(fake.portalId)).waitFor();
    await card.getByText("Last event received: none yet").waitFor();
    await screens.checkBothWidths("hubspot-connected");

    await app.operator("POST", `/orgs/${orgId}/automations`, {
      name: "New HubSpot contact",
      trigger: { type: "custom_api", event_type: "hubspot.contact_created" },
    });
    await sendContactCreated(501);
    await waitUntil(
      async () =>
        (await app.campaigns(orgId)).some((campaign) => campaign.name.startsWith("New HubSpot contact")),
      "the bound automation queued a card",
    );
    await page.getByRole("button", { name: "Dismiss" }).click();
    assert.match(page.url(), /\/app\/settings\?tab=connections$/);
    await page.reload();
    await card.getByText(/^Last event received: (?!none)/).waitFor();

    const stages = card.getByLabel("Won deal stages");
    await stages.fill("contractsigned");
    await stages.press("Enter");
    await card.getByRole("button", { name: "Save stages" }).click();
    await waitUntil(
      async () => (await card.getByRole("button", { name: "Save stages" }).isDisabled()) === true,
      "the stages are saved",
    );
    await card.getByText("contractsigned", { exact: true }).waitFor();
    // Save stages, disabled once saved, gives its focus to the stages.
    await waitForFocus(page, stages, "the Won deal stages field");
    await screens.checkBothWidths("hubspot-won-stages");

    await card.getByRole("button", { name: "Disconnect" }).click();
    const confirm = page.getByRole("dialog", { name: "Disconnect HubSpot?" });
    await screens.checkBothWidths("hubspot-disconnect");
    await confirm.getByRole("button", { name: "Disconnect HubSpot" }).click();
    await card.getByRole("button", { name: "Connect HubSpot" }).waitFor();
  });

  it("a member is told that only owners manage connections", async () => {
    const memberPage = await app.signInMember(orgId, MEMBER);
    const memberScreens = app.screens(memberPage);
    await memberScreens.open("/settings?tab=connections", "Settings");
    await memberPage.getByText("Only owners manage connections").waitFor();
    await memberScreens.checkBothWidths("hubspot-member");
  });
});

describe("HubSpot not set up by the operator, in the browser", () => {
  let bare: App;
  after(async () => bare?.close());

  it("the panel says so and offers no button", async () => {
    bare = await startApp({ name: "hubspot-unset" });
    const ownerPage = await bare.newPage();
    await bare.signUpOwner(ownerPage, "Plain Roofing", OWNER);
    const bareScreens = bare.screens(ownerPage);
    await bareScreens.open("/settings?tab=connections", "Settings");
    const card = ownerPage.getByRole("region", { name: "HubSpot" });
    await card.getByText("HubSpot is not set up on this server").waitFor();
    assert.equal(await card.getByRole("button").count(), 0);
    // The way that needs no HubSpot app is one link away.
    assert.equal(
      await card.getByRole("link", { name: "API key" }).getAttribute("href"),
      "/app/developers?tab=keys",
    );
    await bareScreens.checkBothWidths("hubspot-not-configured");
  });
});
