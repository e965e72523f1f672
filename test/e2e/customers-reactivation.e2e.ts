/**
 * Customers and reactivation mailings in a real browser (issue 28), against the real service as a
 * process (local print provider): a CSV of customers uploaded on the Customers screen suppresses
 * the next card to one of its homes; past jobs imported through the developer API are mailed again
 * from Customers → Past jobs → New mailing, leaving out the home that is a customer, and the cards
 * show in Mail. Every screen: axe-core (no serious or critical WCAG A/AA violation) and a screenshot
 * at desktop and phone width in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { freePort, killStarted, type Started, start, waitReady } from "../helpers/server-process.ts";
import { launchChromium, screenshot, seriousViolations, VIEWPORTS, type ViewportName } from "./browser.ts";

const WEB_DIST = path.resolve(import.meta.dirname, "../../web/dist/index.html");
const ADMIN_TOKEN = "e2e-operator-token-customers";
const OWNER = { email: "owner@customers.test", name: "Casey Customers", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";

let server: Started;
let base: string;
let dataDir: string;
let browser: Browser;
let page: Page;
let orgId: string;
let apiKey: string;

interface ListedPiece {
  id: string;
  status: string;
  address: string;
}

async function request(method: string, route: string, auth: string, body?: unknown) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${route} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}
const operator = (method: string, route: string, body?: unknown) =>
  request(method, `/admin/v1${route}`, ADMIN_TOKEN, body);

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const campaigns = async () =>
  (await operator("GET", `/orgs/${orgId}/campaigns`)).campaigns as {
    name: string;
    pieces: ListedPiece[];
  }[];

async function open(appPath: string, heading: string | RegExp) {
  await page.goto(`${base}/app${appPath}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

async function checkScreen(name: string, viewport: ViewportName) {
  await page.waitForLoadState("networkidle");
  await waitUntil(
    async () => (await page.locator(".mantine-Notification-root").count()) === 0,
    "toasts closed",
  );
  await screenshot(page, name, viewport);
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(pageWidth <= VIEWPORTS[viewport].width, `${name} at ${viewport} is ${pageWidth} px wide`);
  const violations = await seriousViolations(page);
  assert.deepEqual(violations, [], `axe on ${name} at ${viewport}:\n${violations.join("\n")}`);
}

async function checkBothWidths(name: string) {
  await page.setViewportSize(VIEWPORTS.phone);
  await checkScreen(name, "phone");
  await page.setViewportSize(VIEWPORTS.desktop);
  await checkScreen(name, "desktop");
}

describe("customers and reactivation mailings in the browser", () => {
  before(async () => {
    assert.ok(existsSync(WEB_DIST), "web/dist is missing: run `npm run build:web` first");
    dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-e2e-customers-"));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = start({
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN,
      PUBLIC_BASE_URL: base,
    });
    await waitReady(port, server);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: base });
    context.setDefaultTimeout(20_000);
    page = await context.newPage();

    orgId = (await operator("POST", "/orgs", { name: "Reliable Roofing" })).org_id;
    apiKey = (await operator("POST", `/orgs/${orgId}/keys`)).key;
    await operator("POST", `/orgs/${orgId}/automations`, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: EVENT_TYPE },
    });
    const invitation = await operator("POST", `/orgs/${orgId}/invitations`, {
      email: OWNER.email,
      role: "owner",
    });
    await page.goto(invitation.invite_url);
    await page.getByLabel("Your name").fill(OWNER.name);
    await page.getByRole("textbox", { name: /^Password/ }).fill(OWNER.password);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
  });

  after(async () => {
    await browser?.close();
    killStarted();
    await server?.exited;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("a CSV of customers, mapped and uploaded on the Customers screen, suppresses the next card to its home", async () => {
    await open("/customers", "Customers");
    await page.getByText("Suppression cannot be undone through the API").waitFor();
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({
        name: "customers.csv",
        mimeType: "text/csv",
        buffer: Buffer.from(
          "Customer,Service Address,City,ST,Postal Code\r\nMarge Simpson,742 Evergreen Terrace,Springfield,IL,62704\r\nNed Flanders,744 Evergreen Terrace,Springfield,IL,62704\r\n",
        ),
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
    await page.getByRole("button", { name: "Add these customers" }).click();
    await page.getByText("2 new of 2 rows").waitFor();
    await page.getByRole("cell", { name: "742 Evergreen Terrace, Springfield, IL 62704" }).waitFor();
    await checkBothWidths("customers");

    const sent = await request("POST", "/api/v1/events", apiKey, {
      event_type: EVENT_TYPE,
      object_type: "job",
      dedup_id: "csv-suppression-1",
      record: {
        id: "csv-suppression-1",
        properties: { street: "742 Evergreen Terrace", city: "Springfield", state: "IL", zip: "62704" },
      },
    });
    assert.equal(sent.outcomes[0]?.reason, "queued");
    let piece: ListedPiece | undefined;
    await waitUntil(async () => {
      piece = (await campaigns()).flatMap((campaign) => campaign.pieces)[0];
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
    await request("POST", "/api/v1/import/jobs", apiKey, {
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
    await page.getByRole("button", { name: "Send 2 cards" }).click();
    await page.getByRole("heading", { level: 1, name: "Mail", exact: true }).waitFor();

    let mailing: { pieces: ListedPiece[] } | undefined;
    await waitUntil(async () => {
      mailing = (await campaigns()).find((campaign) => campaign.name === "Spring roof check");
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
  });
});
