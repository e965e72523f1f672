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
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { freePort, killStarted, type Started, start, waitReady } from "../helpers/server-process.ts";
import { launchChromium, screenshot, seriousViolations, VIEWPORTS, type ViewportName } from "./browser.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const WEB_DIST = path.join(ROOT, "web/dist/index.html");
const ADMIN_TOKEN = "e2e-operator-token-neighbours";
const OWNER = { email: "owner@neighbours.test", name: "Nora Neighbour", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";
const SPRINGFIELD = { city: "Springfield", state: "IL", zip: "62704" };

let server: Started;
let base: string;
let dataDir: string;
let browser: Browser;
let page: Page;
let orgId: string;
let apiKey: string;

async function operator(method: string, route: string, body?: unknown) {
  const response = await fetch(`${base}/admin/v1${route}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} /admin/v1${route} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

async function developer(route: string, body: unknown) {
  const response = await fetch(`${base}/api/v1${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `POST /api/v1${route} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

const sendJob = (street: string, dedupId: string) =>
  developer("/events", {
    event_type: EVENT_TYPE,
    object_type: "job",
    dedup_id: dedupId,
    record: { id: dedupId, properties: { street, ...SPRINGFIELD, client_name: "Homer Simpson" } },
  });

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

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

describe("neighbour mail in the browser: build, test on a sample, mail, revenue by source job", () => {
  before(async () => {
    assert.ok(existsSync(WEB_DIST), "web/dist is missing: run `npm run build:web` first");
    dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-e2e-neighbours-"));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN,
      PUBLIC_BASE_URL: base,
    };
    // The generated neighbourhood around 742 Evergreen Terrace, loaded before the server owns the data dir.
    const loaded = execFileSync(
      process.execPath,
      ["--import", "tsx", "scripts/addresses-load.ts", "--synthetic", "3000"],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env }, encoding: "utf8" },
    );
    assert.match(loaded, /3000 added/, loaded);
    server = start(env);
    await waitReady(port, server);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: base });
    context.setDefaultTimeout(20_000);
    page = await context.newPage();

    const org = await operator("POST", "/orgs", { name: "Bright Roofing" });
    orgId = org.org_id;
    apiKey = (await operator("POST", `/orgs/${orgId}/keys`)).key;
    // The sample the builder tests on, and a customer next door the neighbour mail must leave out.
    await sendJob("742 Evergreen Terrace", "sample-742");
    await developer("/customers/webhook", { address: "744 Evergreen Terrace, Springfield, IL 62704" });
    const invitation = await operator("POST", `/orgs/${orgId}/invitations`, {
      email: OWNER.email,
      role: "owner",
    });
    await page.goto(invitation.invite_url);
    await page.getByLabel("Your name").fill(OWNER.name);
    await page.getByRole("textbox", { name: /^Password/ }).fill(OWNER.password);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    const profile = await page.request.patch(`${base}/app/api/v1/organization`, {
      headers: { origin: base },
      data: { cost_per_card_cents: 90 },
    });
    assert.equal(profile.status(), 200, await profile.text());
  });

  after(async () => {
    await browser?.close();
    killStarted();
    await server?.exited;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("builds a neighbour automation, tests it on a sample and sees the homes on the offline map", async () => {
    await open(`/automations/new?event_type=${EVENT_TYPE}`, "New automation");
    await page.getByLabel("Name").fill("Roof neighbours");
    await page.getByRole("radio", { name: "Neighbours of the record's home" }).check();
    // The untouched home card gives way to the neighbour card's text (no customer name on it).
    assert.match(await page.getByLabel("Headline").inputValue(), /\{\{job_street\}\}/);
    await page.getByLabel("Homes to mail").fill("12");
    await page.getByLabel("Within (metres)").fill("300");
    const test = page.getByRole("button", { name: "Test with a sample" });
    await waitUntil(() => test.isEnabled(), "the newest sample is picked");
    await test.click();
    const result = page.getByRole("status").filter({ hasText: "would be mailed" });
    await result.getByText("12 homes would be mailed").waitFor();
    await result.getByText("1 home: your customers").waitFor();
    await result.getByText("1 home: the job's own home").waitFor();
    const map = result.getByRole("img", {
      name: /Map of the job and the 12 homes that would be mailed, within 300 m/,
    });
    await map.waitFor();
    assert.equal(await map.locator("circle").count(), 13, "the radius and 12 homes, drawn without tiles");
    assert.equal(await page.locator(".leaflet-container").count(), 0, "no tile map without MAP_TILE_URL");
    await result.scrollIntoViewIfNeeded();
    await checkBothWidths("neighbours-test");

    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { level: 1, name: "Automations" }).waitFor();
    const saved = await (await page.request.get(`${base}/app/api/v1/automations`)).json();
    assert.deepEqual(saved.automations[0].audience, { type: "neighbours", count: 12, radius_m: 300 });
  });

  it("a job event mails its neighbours; a won deal at a neighbour's address shows by source job", async () => {
    const event = await sendJob("820 Maple Avenue", "job-820");
    assert.equal(event.outcomes[0]?.reason, "queued", JSON.stringify(event));
    let pieces: { id: string; address: string; status: string }[] = [];
    await waitUntil(async () => {
      const { campaigns } = await operator("GET", `/orgs/${orgId}/campaigns`);
      pieces = campaigns.flatMap((campaign: { pieces: typeof pieces }) => campaign.pieces);
      return pieces.length === 12 && pieces.every((piece) => piece.status === "mailed");
    }, "the 12 neighbour cards are mailed");
    assert.ok(!pieces.some((piece) => piece.address.startsWith("820 Maple")), "never the job's own home");

    await open("/mail", "Mail");
    await page.getByRole("cell", { name: pieces[0]!.address }).first().waitFor();
    await checkBothWidths("neighbours-mail");

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
    const spend = page.getByRole("group", { name: "Neighbour mail against its cost" });
    await spend.getByText("Cost of the cards: $11").waitFor();
    await spend.getByText("Return on spend: 833.33×").waitFor();
    await page.getByRole("heading", { name: "By source job" }).scrollIntoViewIfNeeded();
    await checkBothWidths("neighbours-revenue");
  });
});
