/**
 * One e2e file's service and browser: `startApp()` starts the real service as a process on a fresh
 * data directory and a Chromium, and answers the helpers bound to that server (operator and developer
 * API, the outbox, pages, and the screen checks of a page). `close()` ends both and removes the data.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { copyClusterFiles } from "../../src/db/cluster-snapshot.ts";
import { migratedTemplateDir, PGLITE_TEMPLATE_ON } from "../helpers/pglite-template.ts";
import { freePort, killStarted, start, waitReady } from "../helpers/server-process.ts";
import {
  ARTIFACTS,
  launchChromium,
  screenshot,
  seriousAndStructureViolations,
  structureViolations,
  VIEWPORTS,
  type ViewportName,
} from "./browser.ts";

const WEB_DIST = path.resolve(import.meta.dirname, "../../web/dist/index.html");

export interface Person {
  email: string;
  name: string;
  password: string;
}

/** A piece as the operator API lists it in a campaign. */
export interface ListedPiece {
  id: string;
  status: string;
  address: string;
  landing_url: string;
}

/** Polls `check` until it answers true; fails naming `what` after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Past jobs on Maple Ave as a CRM's import sends them (`importPastJobs`): the batch the mailing tests send. */
/** Waits until the automation builder has picked its newest sample: the "Sample record" field is filled. */
export async function waitForSamplePicked(page: Page) {
  await waitUntil(
    async () => (await page.getByLabel("Sample record").inputValue()) !== "",
    "the newest sample is picked",
  );
}

export const MAPLE_AVE_JOBS = [
  { address: "12 Maple Ave, Springfield, IL 62704", customer_name: "Lisa Ray", completed_at: "2023-05-01" },
  { address: "14 Maple Ave, Springfield, IL 62704", customer_name: "Otto Mann", completed_at: "2023-06-11" },
];

/** The body of a job event at one home in Springfield, IL 62704 (`properties` add to or override it). */
/** The POSTs `page` sends to `path`, counted from now (a double click must send one). */
export function countPosts(page: Page, path: string): string[] {
  const sent: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === path) sent.push(request.url());
  });
  return sent;
}

export function jobEvent(dedupId: string, properties: Record<string, string>, eventType = "job.completed") {
  return {
    event_type: eventType,
    object_type: "job",
    dedup_id: dedupId,
    record: { id: dedupId, properties: { city: "Springfield", state: "IL", zip: "62704", ...properties } },
  };
}

/** On an invitation's page: sets the name and password and waits until the Overview shows. */
/** Picks a CSV file in the first upload of the screen shown and waits until its rows are read ("3 rows read"). */
export async function pickCsv(page: Page, name: string, text: string, rowsRead: string) {
  await page
    .locator('input[type="file"]')
    .first()
    .setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(text) });
  await page.getByText(rowsRead).waitFor();
}

export async function acceptInvitation(page: Page, person: Person, inviteUrl?: string) {
  if (inviteUrl) await page.goto(inviteUrl);
  await page.getByLabel("Your name").fill(person.name);
  await page.getByRole("textbox", { name: /^Password/ }).fill(person.password);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}

export interface AppOptions {
  /** Names the data directory and the operator token. */
  name: string;
  /** More environment for the service (e.g. a print provider). */
  env?: Record<string, string>;
  /** The name the browser reaches the service by (Chromium resolves it to 127.0.0.1); loopback when absent. */
  publicHost?: string;
  /** Runs with the service's environment before it starts, e.g. to load data into its data directory. */
  prepare?: (env: Record<string, string>) => void;
  /**
   * Starts on an empty data directory, as a user's first `npm start` (initdb and every migration:
   * several seconds on a 2-core VM). Otherwise the directory starts as a copy of the tests' migrated
   * PGlite template, which the service opens as its own (TEST_PGLITE_TEMPLATE=off: always empty).
   */
  firstStart?: boolean;
}

export async function startApp(options: AppOptions) {
  assert.ok(existsSync(WEB_DIST), "web/dist is missing: run `npm run build:web` before `npm run test:e2e`");
  const adminToken = `e2e-operator-token-${options.name}-0123456789`;
  const dataDir = mkdtempSync(path.join(tmpdir(), `porchlight-e2e-${options.name}-`));
  const port = await freePort();
  /** The service from this process, on loopback. */
  const direct = `http://127.0.0.1:${port}`;
  /** The service as the browser and the links in cards and emails name it. */
  const base = options.publicHost ? `http://${options.publicHost}:${port}` : direct;
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    ADMIN_TOKEN: adminToken,
    PUBLIC_BASE_URL: base,
    ...options.env,
  };
  if (PGLITE_TEMPLATE_ON && !options.firstStart) copyClusterFiles(await migratedTemplateDir(), dataDir);
  options.prepare?.(env);
  const server = start(env);
  await waitReady(port, server);
  const browser = await launchChromium(
    options.publicHost ? [`--host-resolver-rules=MAP ${options.publicHost} 127.0.0.1`] : [],
  );

  /** A JSON request with a bearer token; fails the test unless it is answered 2xx. */
  async function request(method: string, route: string, auth: string, body?: unknown) {
    const response = await fetch(`${direct}${route}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${route} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  }

  const operator = (method: string, route: string, body?: unknown) =>
    request(method, `/admin/v1${route}`, adminToken, body);

  /** Every campaign of an organization with its pieces, through the operator API. */
  const campaigns = async (orgId: string) =>
    (await operator("GET", `/orgs/${orgId}/campaigns`)).campaigns as {
      name: string;
      pieces: ListedPiece[];
    }[];

  /**
   * Follows an organization's new pieces: `next(what)` waits for a piece not seen before to leave
   * `queued` (the worker has decided it) and answers it. For tests that send one event at a time.
   */
  function newPieces(orgId: string) {
    const seen = new Set<string>();
    return async (what: string): Promise<ListedPiece> => {
      let found: ListedPiece | undefined;
      await waitUntil(async () => {
        found = (await campaigns(orgId)).flatMap((campaign) => campaign.pieces).find((p) => !seen.has(p.id));
        return found !== undefined && found.status !== "queued";
      }, `the piece of ${what} leaves queued`);
      seen.add(found!.id);
      return found!;
    };
  }

  /** Every email the service wrote to DATA_DIR/mail-outbox/, oldest first. */
  function outbox(): string[] {
    const folder = path.join(dataDir, "mail-outbox");
    if (!existsSync(folder)) return [];
    return readdirSync(folder)
      .filter((file) => file.endsWith(".eml"))
      .sort()
      .map((file) => readFileSync(path.join(folder, file), "utf8"));
  }

  /** A page in a context of its own (its own cookies: one signed-in person). */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: base });
    context.setDefaultTimeout(30_000);
    return context.newPage();
  }

  /** Opening app paths and judging screens on one page. */
  function screens(page: Page) {
    /** Opens an app path and waits until its page heading shows. */
    async function open(appPath: string, heading: string | RegExp) {
      await page.goto(`${base}/app${appPath}`);
      try {
        await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      } catch (error) {
        await page.screenshot({ path: path.join(ARTIFACTS, "failed-open.png"), fullPage: true });
        const shown = (await page.locator("body").innerText()).slice(0, 500);
        throw new Error(`${appPath} did not show "${heading}" (see failed-open.png); it shows:\n${shown}`, {
          cause: error,
        });
      }
    }

    /**
     * The settled screen (no toast, no transition) as a screenshot in test/e2e/artifacts/; the page never
     * scrolls sideways, and axe finds no serious or critical WCAG A/AA violation, nor any of
     * `checkStructure`'s (landmarks, heading order, content outside a landmark), from the same run.
     */
    async function checkScreen(name: string, viewport: ViewportName) {
      await page.waitForLoadState("networkidle");
      // A "Saved" toast closes by itself after a few seconds; the screen is judged without it.
      await waitUntil(
        async () => (await page.locator(".mantine-Notification-root").count()) === 0,
        "toasts closed",
      );
      // A spinner (a proof being drawn, a list loading) is judged once what it waits for has come.
      await waitUntil(
        async () => (await page.locator(".mantine-Loader-root:visible").count()) === 0,
        `${name}: no spinner shows`,
      );
      await screenshot(page, name, viewport);
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(
        pageWidth <= VIEWPORTS[viewport].width,
        `${name} at ${viewport} is ${pageWidth} px wide: it scrolls sideways`,
      );
      const { serious, structure } = await seriousAndStructureViolations(page);
      assert.deepEqual(serious, [], `axe on ${name} at ${viewport}:\n${serious.join("\n")}`);
      assertStructure(name, viewport, structure);
    }

    function assertStructure(name: string, viewport: ViewportName, violations: string[]) {
      assert.deepEqual(
        violations,
        [],
        `axe (structure) on ${name} at ${viewport}:\n${violations.join("\n")}`,
      );
    }

    /**
     * Stricter than `checkScreen`'s axe run, for the screens held to it: no landmark or heading-order
     * finding of any impact (these are "moderate").
     */
    async function checkStructure(name: string, viewport: ViewportName) {
      assertStructure(name, viewport, await structureViolations(page));
    }

    /** The current screen at both widths (desktop last, as the flows continue there). */
    async function checkBothWidths(name: string) {
      await page.setViewportSize(VIEWPORTS.phone);
      await checkScreen(name, "phone");
      await page.setViewportSize(VIEWPORTS.desktop);
      await checkScreen(name, "desktop");
    }

    /**
     * Opens the operator console signed in with the operator token (the tab keeps it for its session,
     * so it is asked for once); waits for the console's Organizations.
     */
    async function openOperatorConsole() {
      await open("/operator", "Operator console");
      const token = page.getByLabel("Operator token");
      const organizations = page.getByRole("heading", { level: 2, name: "Organizations" });
      await token.or(organizations).first().waitFor();
      if (await token.isVisible()) {
        await token.fill(adminToken);
        await page.getByRole("button", { name: "Sign in" }).click();
      }
      await organizations.waitFor();
    }

    return { open, openOperatorConsole, checkScreen, checkStructure, checkBothWidths };
  }

  /** A new organization and its owner, invited and signed in on `page`; answers the organization's id. */
  async function signUpOwner(page: Page, orgName: string, owner: Person): Promise<string> {
    const orgId: string = (await operator("POST", "/orgs", { name: orgName })).org_id;
    const invitation = await operator("POST", `/orgs/${orgId}/invitations`, {
      email: owner.email,
      role: "owner",
    });
    await acceptInvitation(page, owner, invitation.invite_url);
    return orgId;
  }

  /** A member of the organization, invited and signed in on a page of their own. */
  async function signInMember(orgId: string, member: Person): Promise<Page> {
    const invitation = await operator("POST", `/orgs/${orgId}/invitations`, {
      email: member.email,
      role: "member",
    });
    const page = await newPage();
    await acceptInvitation(page, member, invitation.invite_url);
    return page;
  }

  /**
   * A new organization whose owner is signed in on `page`, with an API key and an automation
   * "Job done postcard" bound to `eventType`.
   */
  async function ownerWithAutomation(
    page: Page,
    orgName: string,
    owner: Person,
    eventType = "job.completed",
  ) {
    const orgId = await signUpOwner(page, orgName, owner);
    const apiKey: string = (await operator("POST", `/orgs/${orgId}/keys`)).key;
    const automation = await operator("POST", `/orgs/${orgId}/automations`, {
      name: "Job done postcard",
      trigger: { type: "custom_api", event_type: eventType },
    });
    return { orgId, apiKey, automationId: automation.id as string };
  }

  /** Ends the browser and the service and removes the data directory. */
  async function close() {
    await browser.close();
    killStarted();
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }

  return {
    base,
    direct,
    dataDir,
    adminToken,
    request,
    operator,
    /** Past jobs imported through the developer API with `apiKey` (POST /api/v1/import/jobs), as one batch. */
    importPastJobs: (apiKey: string, rows: typeof MAPLE_AVE_JOBS) =>
      request("POST", "/api/v1/import/jobs", apiKey, { source: "jobs", rows }),
    /** A job event through the developer API with `apiKey`: accepted with 202. */
    async sendEvent(apiKey: string, event: ReturnType<typeof jobEvent>) {
      const response = await fetch(`${direct}/api/v1/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(event),
      });
      const text = await response.text();
      assert.equal(response.status, 202, text);
      return JSON.parse(text);
    },
    campaigns,
    newPieces,
    outbox,
    newPage,
    screens,
    signUpOwner,
    signInMember,
    ownerWithAutomation,
    close,
  };
}

export type App = Awaited<ReturnType<typeof startApp>>;
