/**
 * What a walkthrough of the app found, fixed, in a real browser against the real service started on a
 * fresh data directory, signed in as the owner the first start invites to its demo organization:
 * landmarks and headings in order (axe's moderate structure rules), wide tables that scroll sideways
 * on a phone and show it, "Review it" for one card awaiting approval, cards mailing without a return
 * address said in Needs attention, a first-run checklist that
 * does not count the demo key, and customers from a CSV upload that say so. Each screen: a screenshot
 * in test/e2e/artifacts/ at desktop and phone width, and axe.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { settled, VIEWPORTS } from "./browser.ts";
import { type App, acceptInvitation, jobEvent, startApp, waitUntil } from "./session.ts";

/** The owner the first start invites to the demo organization (src/bootstrap.ts). */
const DEMO_OWNER = { email: "owner@demo.example", name: "Dana Demo", password: "correct horse battery" };
const EVENT_TYPE = "job.completed";
const HOME = { street: "742 Evergreen Terrace", city: "Springfield", state: "IL", zip: "62704" };

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;
let orgId: string;
let apiKey: string;
let automationId: string;

/** The invitation link the first start emailed to the demo organization's owner. */
async function demoInvitationLink(): Promise<string> {
  let link: string | undefined;
  await waitUntil(async () => {
    const email = app.outbox().find((eml) => eml.includes(`\r\nTo: ${DEMO_OWNER.email}\r\n`));
    link = email?.match(/https?:\/\/\S+/g)?.find((url) => new URL(url).pathname.startsWith("/app/invite/"));
    return link !== undefined;
  }, "the first start emailed the demo owner's invitation");
  return link ?? "";
}

/** Opens `appPath` at each width and judges it: screenshot, axe, and landmarks and headings in order. */
async function checkStructureAtBothWidths(name: string, appPath: string, heading: string | RegExp) {
  for (const viewport of ["desktop", "phone"] as const) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    await screens.open(appPath, heading);
    await screens.checkScreen(name, viewport);
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** The step lines of the Overview's first-run checklist, as a screen reader reads them. */
async function checklistSteps(): Promise<string[]> {
  const checklist = page.getByRole("region", { name: "Get started" });
  await checklist.waitFor();
  const lines = await checklist.getByRole("listitem").locator("p:first-child").allTextContents();
  return lines.map((line) => line.trim());
}

/** The sideways scroller of a table (ScrollTable): the named region, and the box that shows its cues. */
function scrollTable(label: string): { region: Locator; frame: Locator } {
  const region = page.getByRole("region", { name: label, exact: true });
  return { region, frame: page.locator(".pl-scroll-table").filter({ has: region }) };
}

const sendJob = (dedupId: string, street: string) =>
  app.sendEvent(apiKey, jobEvent(dedupId, { ...HOME, street, client_name: "Homer Simpson" }, EVENT_TYPE));

describe("the walkthrough's findings, fixed, in the browser", () => {
  before(async () => {
    app = await startApp({ name: "polish" });
    page = await app.newPage();
    screens = app.screens(page);
    await acceptInvitation(page, DEMO_OWNER, await demoInvitationLink());
    const orgs = (await app.operator("GET", "/orgs")).orgs as { org_id: string; org_name: string }[];
    orgId = orgs.find((org) => org.org_name === "Demo Contractor")?.org_id ?? "";
    assert.ok(orgId, "the demo organization is there");
  });

  after(async () => {
    await app?.close();
  });

  it("empty screens put their heading right under the page's, at both widths", async () => {
    const emptyScreens: [string, string, string, string][] = [
      ["polish-automations-empty", "/automations", "Automations", "No automations yet"],
      ["polish-leads-empty", "/leads", "Leads", "No leads yet"],
      ["polish-mail-empty", "/mail", "Mail", "No postcards yet"],
      ["polish-approvals-empty", "/approvals", "Approvals", "Nothing to approve"],
      [
        "polish-developers-webhooks-empty",
        "/developers?tab=webhooks",
        "Developers",
        "No webhook endpoints yet",
      ],
      ["polish-developers-samples-empty", "/developers?tab=samples", "Developers", "No events received yet"],
    ];
    for (const [name, appPath, heading, emptyHeading] of emptyScreens) {
      await checkStructureAtBothWidths(name, appPath, heading);
      await page.getByRole("heading", { level: 2, name: emptyHeading }).waitFor();
    }
  });

  it("the demo key a first start makes does not tick 'get an API key'; a key the owner creates does", async () => {
    await screens.open("/", "Overview");
    assert.ok(
      (await checklistSteps()).includes("To do: Connect your CRM: get an API key"),
      "the demo key alone leaves the step to do",
    );
    await screens.open("/developers?tab=keys", "Developers");
    await page.getByRole("cell").getByText("demo", { exact: true }).waitFor();

    await page.getByRole("button", { name: "Create API key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create API key" });
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("CRM");
    // The dialog's title bar is no second banner of the page.
    for (const viewport of ["phone", "desktop"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await screens.checkScreen("polish-developers-create-key", viewport);
    }
    await dialog.getByRole("button", { name: "Create key" }).click();
    const issued = page.getByRole("dialog", { name: "Your new API key" });
    apiKey = (await issued.getByLabel("New API key").innerText()).trim();
    assert.match(apiKey, /^ak_/);
    await screens.checkStructure("polish-developers-new-key", "desktop");
    await issued.getByRole("button", { name: "Done" }).click();
    await page.getByRole("cell").getByText("CRM", { exact: true }).waitFor();

    await screens.open("/", "Overview");
    assert.ok((await checklistSteps()).includes("Done: Connect your CRM: get an API key"));
  });

  it("with mail, a lead and a won deal: Overview, Revenue, Developers and Team keep landmarks and headings in order", async () => {
    automationId = (
      await app.operator("POST", `/orgs/${orgId}/automations`, {
        name: "Job done postcard",
        trigger: { type: "custom_api", event_type: EVENT_TYPE },
      })
    ).id;
    for (const [dedupId, street] of [
      ["job-742", "742 Evergreen Terrace"],
      ["job-744", "744 Evergreen Terrace"],
    ] as const) {
      const answer = await sendJob(dedupId, street);
      assert.equal(answer.outcomes?.[0]?.reason, "queued", JSON.stringify(answer));
    }
    const mailedPieces = async () =>
      (await app.campaigns(orgId))
        .flatMap((campaign) => campaign.pieces)
        .filter((p) => p.status === "mailed");
    await waitUntil(async () => (await mailedPieces()).length === 2, "both cards are mailed");
    const [mailed] = await mailedPieces();

    // A lead answers the card; a won deal at the same home.
    await page.goto(mailed?.landing_url ?? "");
    await page.getByLabel("First name").fill("Marge");
    await page.getByLabel("Last name").fill("Simpson");
    await page.getByLabel("Email").fill("marge@example.test");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();
    const won = await app.request("POST", "/api/v1/conversions", apiKey, {
      address: mailed?.address,
      deal_id: "D-742",
      deal_name: "Gutter replacement",
      deal_amount: "4250",
      deal_stage: "closedwon",
    });
    assert.equal(won.matched, true, JSON.stringify(won));

    await checkStructureAtBothWidths("polish-overview", "/", "Overview");
    await page.getByRole("region", { name: "Latest leads table" }).getByText("Marge Simpson").waitFor();
    await checkStructureAtBothWidths("polish-revenue", "/revenue", "Revenue");
    await checkStructureAtBothWidths("polish-developers-keys", "/developers?tab=keys", "Developers");
    await checkStructureAtBothWidths("polish-developers-samples", "/developers?tab=samples", "Developers");
    await checkStructureAtBothWidths("polish-settings-team", "/settings?tab=team", "Settings");
  });

  it("one card awaiting approval: Overview's Mail safety card says 'Review it', as Needs attention does", async () => {
    const safetyOf = `/automations/${automationId}/mail-safety`;
    await app.operator("PATCH", safetyOf, { approval_required: true });
    const answer = await sendJob("job-746", "746 Evergreen Terrace");
    assert.equal(answer.outcomes?.[0]?.reason, "queued", JSON.stringify(answer));
    // The worker moves a queued card to awaiting approval; Overview counts it only after that.
    await waitUntil(
      async () =>
        (await app.campaigns(orgId))
          .flatMap((campaign) => campaign.pieces)
          .some((p) => p.address.startsWith("746 Evergreen") && p.status === "awaiting_approval"),
      "the card at 746 Evergreen Terrace awaits approval",
    );

    await screens.open("/", "Overview");
    const safety = page.getByRole("region", { name: /^Mail safety in / });
    await safety.getByText("1 card waits for approval.").waitFor();
    await safety.getByRole("link", { name: "Review it in Approvals" }).waitFor();
    assert.equal(await safety.getByText("Review them in Approvals").count(), 0);
    await page
      .getByRole("region", { name: "Needs attention" })
      .getByRole("link", { name: "Review it in Approvals" })
      .waitFor();
    await screens.checkBothWidths("polish-overview-one-awaiting");
    await app.operator("PATCH", safetyOf, { approval_required: false });
  });

  it("cards mailing without a return address: Needs attention says so and leads to Settings; saved, it goes", async () => {
    await screens.open("/", "Overview");
    const attention = page.getByRole("region", { name: "Needs attention" });
    await attention.getByText("Your cards print without a return address").waitFor();
    await screens.checkBothWidths("polish-overview-no-return-address");
    await attention.getByRole("link", { name: "Add a return address" }).click();
    await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
    await page.getByRole("textbox", { name: "Street" }).fill("12 Shingle Rd");
    await page.getByRole("textbox", { name: "City" }).fill("Springfield");
    await page.getByRole("textbox", { name: "State" }).fill("IL");
    await page.getByRole("textbox", { name: "ZIP code" }).fill("62704");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your business profile is saved.").waitFor();

    const attentionRead = page.waitForResponse((response) =>
      response.url().endsWith("/app/api/v1/attention"),
    );
    await screens.open("/", "Overview");
    await attentionRead;
    await page.getByRole("heading", { name: "Needs attention" }).waitFor();
    await settled(page);
    assert.equal(await page.getByText("Your cards print without a return address").count(), 0);
  });

  it("on a phone, wide tables scroll sideways inside the page, with a scrollbar and a shade where columns hide", async () => {
    // (The API keys table stacks its columns to fit a phone whole: walk-fixes-2.e2e.ts.)
    const wideTables: [string, string, string, string][] = [
      ["polish-mail-scrolled", "/mail", "Mail", "Postcards"],
      ["polish-revenue-scrolled", "/revenue", "Revenue", "Revenue by month"],
    ];
    await page.setViewportSize(VIEWPORTS.phone);
    for (const [name, appPath, heading, label] of wideTables) {
      await screens.open(appPath, heading);
      const { region, frame } = scrollTable(label);
      await region.getByRole("row").nth(1).waitFor();
      await settled(page);
      const width = await region.evaluate((element) => ({
        scroll: element.scrollWidth,
        client: element.clientWidth,
      }));
      assert.ok(
        width.scroll > width.client,
        `${label}: the table is wider than a phone (${JSON.stringify(width)})`,
      );
      // The cue before any scrolling: Mantine's scrollbar under the table, and the right edge marked.
      const scrollbar = frame.locator(".mantine-ScrollArea-scrollbar[data-orientation='horizontal']");
      assert.ok(await scrollbar.isVisible(), `${label}: a scrollbar shows under the table`);
      assert.equal(
        await frame.getAttribute("data-hidden-right"),
        "true",
        `${label}: columns hide on the right`,
      );
      assert.equal(await frame.getAttribute("data-hidden-left"), null);

      // Scrolled to its end with the keyboard, the last column is in sight and the shade moves left.
      await region.focus();
      await waitUntil(async () => {
        await page.keyboard.press("ArrowRight");
        return (await frame.getAttribute("data-hidden-right")) === null;
      }, `${label} scrolls to its last column with the arrow key`);
      assert.equal(await frame.getAttribute("data-hidden-left"), "true");
      const lastHeader = region.getByRole("columnheader").last();
      const box = await lastHeader.boundingBox();
      assert.ok(
        box && box.x + box.width <= VIEWPORTS.phone.width + 1,
        `${label}: the last column is in sight`,
      );
      const pageWidth = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        inner: window.innerWidth,
      }));
      assert.ok(
        pageWidth.scroll <= pageWidth.inner,
        `${name}: the page scrolls sideways ${JSON.stringify(pageWidth)}`,
      );
      await screens.checkScreen(name, "phone");
    }
    await page.setViewportSize(VIEWPORTS.desktop);
    // On a desktop the keys table fits: no scrollbar, no shade.
    await screens.open("/developers?tab=keys", "Developers");
    const { region, frame } = scrollTable("API keys");
    await region.getByRole("row").nth(1).waitFor();
    await settled(page);
    assert.equal(
      await frame.locator(".mantine-ScrollArea-scrollbar[data-orientation='horizontal']").isVisible(),
      false,
    );
    assert.equal(await frame.getAttribute("data-hidden-right"), null);
  });

  it("customers say where they came from: the form's 'Added here', a CSV's 'A CSV upload'", async () => {
    await screens.open("/customers", "Customers");
    await page.getByRole("textbox", { name: /^Address/ }).fill("1 Cedar Way, Springfield, IL 62704");
    await page.getByRole("button", { name: "Add customer" }).click();
    await page.getByRole("status").getByText("Added.").waitFor();
    await page
      .locator('input[type="file"]')
      .first()
      .setInputFiles({
        name: "customers.csv",
        mimeType: "text/csv",
        buffer: Buffer.from(
          "Street,City,ST,Zip\r\n3 Cedar Way,Springfield,IL,62704\r\n5 Cedar Way,Springfield,IL,62704\r\n",
        ),
      });
    await page.getByText("2 rows read").waitFor();
    await page.getByRole("button", { name: "Add these customers" }).click();
    await page.getByText("2 new of 2 rows").waitFor();

    const list = page.getByRole("region", { name: "Registered customers" });
    const fromOf = async (street: string) => {
      const row = list.getByRole("row", { name: new RegExp(`^${street}`) });
      return (await row.getByRole("cell").nth(2).innerText()).trim();
    };
    await list.getByRole("row", { name: /^5 Cedar Way/ }).waitFor();
    assert.equal(await fromOf("1 Cedar Way"), "Added here");
    assert.equal(await fromOf("3 Cedar Way"), "A CSV upload");
    assert.equal(await fromOf("5 Cedar Way"), "A CSV upload");
    for (const viewport of ["phone", "desktop"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await screens.checkScreen("polish-customers", viewport);
    }
  });
});
