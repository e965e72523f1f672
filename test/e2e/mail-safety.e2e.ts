/**
 * Mail safety in a real browser (issue 29) against the real service as a process printing through a
 * fake Lob on loopback: an automation asks for approval, a card is approved in the Approvals queue by
 * keyboard and goes to print; a held card is cancelled from its page and never reaches Lob; a home
 * opts out on its landing page and the next card to it is suppressed, with the reason in Mail.
 * Every screen touched: axe-core (no serious or critical WCAG A/AA violation) and a screenshot at
 * desktop and phone width in test/e2e/artifacts/.
 *
 * PRINT_PROVIDER=lob refuses a loopback PUBLIC_BASE_URL (its QR codes would be dead), so the service
 * is named porchlight.test and Chromium resolves that name to 127.0.0.1.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { freePort, killStarted, type Started, start, waitReady } from "../helpers/server-process.ts";
import { startFakeLob } from "../pipeline/helpers.ts";
import { launchChromium, screenshot, seriousViolations, VIEWPORTS, type ViewportName } from "./browser.ts";

const WEB_DIST = path.resolve(import.meta.dirname, "../../web/dist/index.html");
const ADMIN_TOKEN = "e2e-operator-token-mail-safety";
const HOST = "porchlight.test";
const OWNER = { email: "owner@safety.test", name: "Sam Safety", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";

let server: Started;
let lob: Awaited<ReturnType<typeof startFakeLob>>;
let base: string;
let dataDir: string;
let browser: Browser;
let page: Page;
let orgId: string;
let apiKey: string;
let automationId: string;
let eventCount = 0;
/** Pieces already seen: the next event's piece is the one not among them. */
const seenPieces = new Set<string>();

interface ListedPiece {
  id: string;
  status: string;
  landing_url: string;
}

/** The service, reached from this process on loopback (the browser uses the public name). */
const direct = (port: number) => `http://127.0.0.1:${port}`;
let directBase: string;

async function operator(method: string, route: string, body?: unknown) {
  const response = await fetch(`${directBase}/admin/v1${route}`, {
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

/** One event for the home at `street`; answers its piece once the worker wrote it. */
async function sendEvent(street: string): Promise<ListedPiece> {
  const dedupId = `safety-${++eventCount}`;
  const response = await fetch(`${directBase}/api/v1/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      event_type: EVENT_TYPE,
      object_type: "job",
      dedup_id: dedupId,
      record: {
        id: dedupId,
        properties: { street, city: "Springfield", state: "IL", zip: "62704", client_name: "Marge Simpson" },
      },
    }),
  });
  const text = await response.text();
  assert.equal(response.status, 202, text);
  assert.equal(JSON.parse(text).outcomes[0]?.reason, "queued", text);
  let found: ListedPiece | undefined;
  await waitUntil(async () => {
    const { campaigns } = await operator("GET", `/orgs/${orgId}/campaigns`);
    found = campaigns
      .flatMap((campaign: { pieces: ListedPiece[] }) => campaign.pieces)
      .find((piece: ListedPiece) => !seenPieces.has(piece.id));
    return found !== undefined && found.status !== "queued";
  }, `the piece of ${dedupId} leaves queued`);
  seenPieces.add(found!.id);
  return found!;
}

const pieceStatus = async (id: string) => (await operator("GET", `/pieces/${id}`)).status as string;

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function open(appPath: string, heading: string | RegExp) {
  await page.goto(`${base}/app${appPath}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

async function checkScreen(name: string, viewport: ViewportName) {
  await page.waitForLoadState("networkidle");
  // A "Saved" toast closes by itself after a few seconds; the screen is judged without it.
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

/** The current screen at both widths (desktop last, as the flows continue there). */
async function checkBothWidths(name: string) {
  await page.setViewportSize(VIEWPORTS.phone);
  await checkScreen(name, "phone");
  await page.setViewportSize(VIEWPORTS.desktop);
  await checkScreen(name, "desktop");
}

async function setSafety(values: { approval?: boolean; hold?: string }) {
  await open(`/automations/${automationId}`, "Job done postcard");
  const safety = page.getByRole("group", { name: "Safety" });
  if (values.hold !== undefined) await safety.getByLabel("Hold window (minutes)").fill(values.hold);
  const approval = safety.getByRole("switch", { name: "Approve each card before print" });
  if (values.approval !== undefined && (await approval.isChecked()) !== values.approval) {
    // Mantine's switch input is visually hidden; a click event on it toggles it as a label click would.
    await approval.dispatchEvent("click");
  }
  await safety.getByRole("button", { name: "Save safety settings" }).click();
  await page.getByText("The safety settings are saved.").waitFor();
}

describe("mail safety in the browser: approvals, cancelling, opt-out", () => {
  before(async () => {
    assert.ok(existsSync(WEB_DIST), "web/dist is missing: run `npm run build:web` first");
    dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-e2e-safety-"));
    lob = await startFakeLob();
    const port = await freePort();
    directBase = direct(port);
    base = `http://${HOST}:${port}`;
    server = start({
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN,
      PUBLIC_BASE_URL: base,
      PRINT_PROVIDER: "lob",
      LOB_API_KEY: "test_e2e_key",
      LOB_BASE_URL: lob.url,
    });
    await waitReady(port, server);
    browser = await launchChromium([`--host-resolver-rules=MAP ${HOST} 127.0.0.1`]);
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: base });
    context.setDefaultTimeout(20_000);
    page = await context.newPage();

    const org = await operator("POST", "/orgs", { name: "Safe Siding Co." });
    orgId = org.org_id;
    apiKey = (await operator("POST", `/orgs/${orgId}/keys`)).key;
    automationId = (
      await operator("POST", `/orgs/${orgId}/automations`, {
        name: "Job done postcard",
        trigger: { type: "custom_api", event_type: EVENT_TYPE },
      })
    ).id;
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
    await lob?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("a card approved in the Approvals queue by keyboard goes to print; the other waits", async () => {
    await setSafety({ approval: true });
    await checkBothWidths("automation-safety");
    const first = await sendEvent("10 Approval Ave");
    const second = await sendEvent("12 Approval Ave");
    assert.equal(first.status, "awaiting_approval");
    assert.equal(second.status, "awaiting_approval");

    await open("/approvals", "Approvals");
    const cards = page.getByRole("list", { name: "Cards awaiting approval" }).getByRole("listitem");
    await waitUntil(async () => (await cards.count()) === 2, "both cards are in the queue");
    await page.getByText("Keyboard:").waitFor();
    await page
      .getByRole("img", { name: /Back of the card to 10 Approval Ave/ })
      .evaluate((img: HTMLImageElement) =>
        img.complete && img.naturalWidth > 0
          ? undefined
          : new Promise((resolve) => img.addEventListener("load", resolve)),
      );
    await checkBothWidths("approvals");

    // Newest first: the highlighted card is the second; j moves to the first, a approves it.
    const firstCard = page.getByRole("listitem", { name: /10 Approval Ave/ });
    await page.keyboard.press("j");
    await waitUntil(
      async () => (await firstCard.getAttribute("aria-current")) === "true",
      "j highlights the next card",
    );
    await page.keyboard.press("a");
    await page.getByText("1 card approved: on the way to print.").waitFor();
    await waitUntil(async () => (await cards.count()) === 1, "the approved card leaves the queue");
    await waitUntil(
      async () => (await pieceStatus(first.id)) === "submitted",
      "the approved card is printed",
    );
    assert.ok(
      lob.requests.some((request) => request.idempotencyKey === first.id),
      "Lob received it",
    );
    assert.equal(await pieceStatus(second.id), "awaiting_approval", "the other still waits");

    await open(`/mail/${first.id}`, /Postcard to/);
    await page.getByText("Submitted", { exact: true }).first().waitFor();
  });

  it("a held card is cancelled from its page and never reaches the print provider", async () => {
    await setSafety({ approval: false, hold: "120" });
    const held = await sendEvent("20 Hold Street");
    assert.equal(held.status, "held");
    await open(`/mail/${held.id}`, /Postcard to/);
    await page.getByText(/the automation's hold window/).waitFor();
    await checkBothWidths("piece-held");
    await page.getByRole("button", { name: "Cancel this card" }).click();
    await page.getByText("The card will not print.").waitFor();
    await page.getByRole("alert").getByText(`Cancelled by ${OWNER.name}`).waitFor();
    assert.equal(await pieceStatus(held.id), "cancelled");

    await open("/mail?status=cancelled", "Mail");
    await page.getByText(`Cancelled by ${OWNER.name}`).first().waitFor();
    await checkBothWidths("mail-cancelled");
    // A card sent after it prints at once (hold off): Lob has seen it, never the cancelled one.
    await setSafety({ hold: "0" });
    const later = await sendEvent("22 Hold Street");
    await waitUntil(async () => (await pieceStatus(later.id)) === "submitted", "the next card printed");
    assert.ok(
      !lob.requests.some((request) => request.idempotencyKey === held.id),
      "the cancelled card never reached Lob",
    );
  });

  it("a home that opts out on its landing page is suppressed on its next card, with the reason in Mail", async () => {
    const mailed = await sendEvent("30 Opt Out Lane");
    await waitUntil(async () => (await pieceStatus(mailed.id)) === "submitted", "the card printed");
    await page.goto(mailed.landing_url);
    await page.getByRole("link", { name: "Stop mail to this address" }).click();
    await page.getByRole("heading", { level: 1, name: "Stop mail to this address?" }).waitFor();
    await page.getByRole("button", { name: "Stop mail to this address" }).click();
    await page.getByRole("heading", { level: 1, name: "Done" }).waitFor();
    await page.getByText("will send no more cards to").waitFor();
    assert.equal((await operator("GET", `/orgs/${orgId}/do-not-mail`)).do_not_mail.length, 1);

    const next = await sendEvent("30 Opt Out Lane");
    assert.equal(next.status, "suppressed");
    await open("/mail?status=suppressed", "Mail");
    await page
      .getByText(/opted out of mail from its landing page/)
      .first()
      .waitFor();
    await checkBothWidths("mail-suppressed");
  });

  it("Overview shows the caps and their use; Settings sets the organization's cap", async () => {
    await open("/settings?tab=safety", "Settings");
    const cap = page.getByRole("combobox", { name: "Monthly cap of the organization" });
    await cap.selectOption("cards");
    await page.getByLabel("Cards per month").fill("250");
    await page.getByLabel("Frequency cap per home (days)").fill("45");
    await page.getByRole("button", { name: "Save mail safety" }).click();
    await page.getByText("The mail safety settings are saved.").waitFor();
    await checkBothWidths("settings-safety");
    const settings = await operator("GET", `/orgs/${orgId}/mail-safety`);
    assert.equal(settings.monthly_card_cap, 250);
    assert.equal(settings.frequency_cap_days, 45);

    await open("/", "Overview");
    await page.getByText("3 of 250 cards").waitFor();
    await page.getByText("1 card(s) wait for approval.").waitFor();
    await checkBothWidths("overview-caps");
  });
});
