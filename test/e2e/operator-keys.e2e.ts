/**
 * The operator console's API keys of one organization, in a real browser against the real service:
 * the operator opens an organization's keys, issues one with only some of what a key may do (shown
 * once, and it works), sees an expired key said as such and a long name wrapped, revokes a leaked
 * one (it stops working), closes the panel back to its button; a token the server refuses later
 * signs the console out. axe-core on the screens touched and screenshots at desktop and phone width
 * in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { waitForFocus } from "./page-probes.ts";
import { type App, jobEvent, startApp, waitUntil } from "./session.ts";

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;
let leakedKey: string;
const LONG_NAME = "A".repeat(200);

/** What GET /api/v1/me answers a key with. */
async function statusOf(apiKey: string): Promise<number> {
  const response = await fetch(`${app.direct}/api/v1/me`, { headers: { authorization: `Bearer ${apiKey}` } });
  await response.arrayBuffer();
  return response.status;
}

describe("the operator console: an organization's API keys", () => {
  before(async () => {
    app = await startApp({ name: "operator-keys" });
    page = await app.newPage();
    screens = app.screens(page);
    const org = await app.operator("POST", "/orgs", { name: "Keyed Plumbing" });
    leakedKey = (await app.operator("POST", `/orgs/${org.org_id}/keys`, { name: "Old CRM" })).key;
    await app.operator("POST", `/orgs/${org.org_id}/keys`, { name: LONG_NAME });
    await app.operator("POST", `/orgs/${org.org_id}/keys`, {
      name: "Short-lived",
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 1600));
  });

  after(async () => {
    await app?.close();
  });

  it("lists an organization's keys and issues one that does only what was ticked, shown once", async () => {
    await screens.openOperatorConsole();
    await page.getByRole("button", { name: "API keys of Keyed Plumbing" }).click();
    const panel = page.getByRole("region", { name: "API keys of Keyed Plumbing" });
    await waitForFocus(
      page,
      panel.getByRole("heading", { name: "API keys of Keyed Plumbing" }),
      "the panel's heading",
    );
    const oldRow = panel.getByRole("row").filter({ hasText: "Old CRM" });
    await oldRow.getByText("Everything").waitFor();
    await oldRow.getByText(/^Last used\s+Never$/).waitFor();
    await panel
      .getByRole("row")
      .filter({ hasText: "Short-lived" })
      .getByText(/^Expired\s/)
      .waitFor();
    // A 200-letter name wraps in its cell: the table stays as wide as the panel.
    const widths = await panel.evaluate((section) => ({
      panel: section.getBoundingClientRect().width,
      table: section.querySelector("table")!.getBoundingClientRect().width,
    }));
    assert.ok(
      widths.table <= widths.panel,
      `the table (${widths.table} px) fits the panel (${widths.panel} px)`,
    );

    await panel.getByRole("button", { name: "Issue key" }).click();
    const dialog = page.getByRole("dialog", { name: "Issue an API key for Keyed Plumbing" });
    await dialog.getByRole("button", { name: "Create key" }).click();
    await dialog.getByText("Name the key after where it is used, e.g. CRM").waitFor();
    await dialog.getByLabel("Name").fill("Zapier");
    await dialog.getByRole("checkbox", { name: "Import past jobs" }).uncheck();
    await dialog.getByRole("checkbox", { name: "Leads, won deals and customers" }).uncheck();
    await dialog.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByRole("dialog", { name: "Your new API key" }).getByLabel("New API key");
    await shown.waitFor();
    const issued = (await shown.innerText()).trim();
    assert.match(issued, /^ak_/);
    await page.getByText("Pass it to the contractor over a channel you trust.").waitFor();
    await screens.checkBothWidths("operator-org-key-issued");
    const dryRun = await fetch(`${app.direct}/api/v1/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${issued}`, "content-type": "application/json" },
      body: JSON.stringify({ ...jobEvent("operator-key-1", { street: "1 Key St" }), dry_run: true }),
    });
    assert.ok(dryRun.ok, `the issued key sends events: ${dryRun.status} ${await dryRun.text()}`);
    const listed = await fetch(`${app.direct}/api/v1/automation/list`, {
      headers: { authorization: `Bearer ${issued}` },
    });
    await listed.arrayBuffer();
    assert.equal(listed.status, 403, "a key without Leads, won deals and customers may not list automations");

    await page.getByRole("button", { name: "Done" }).click();
    await waitForFocus(
      page,
      panel.getByRole("button", { name: "Issue key" }),
      "Issue key, once the key is put away",
    );
    assert.equal(await page.getByLabel("New API key").count(), 0, "the key is not shown again");
    await panel
      .getByRole("row")
      .filter({ hasText: "Zapier" })
      .getByText("Send events", { exact: true })
      .waitFor();
  });

  it("revokes a leaked key after asking: it stops working, its row is gone; Close gives the focus back", async () => {
    const panel = page.getByRole("region", { name: "API keys of Keyed Plumbing" });
    assert.equal(await statusOf(leakedKey), 200);
    await panel.getByRole("button", { name: "Revoke Old CRM" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this key?" });
    await dialog.getByText("stops working within seconds").waitFor();
    await screens.checkBothWidths("operator-org-key-revoke");
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await dialog.waitFor({ state: "hidden" });
    await panel.getByRole("row").filter({ hasText: "Old CRM" }).waitFor({ state: "detached" });
    await waitUntil(async () => (await statusOf(leakedKey)) === 401, "the revoked key is refused", 10_000);
    await screens.checkBothWidths("operator-org-keys");

    await panel.getByRole("button", { name: "Close" }).click();
    assert.equal(await panel.count(), 0, "the panel closes");
    await waitForFocus(
      page,
      page.getByRole("button", { name: "API keys of Keyed Plumbing" }),
      "the row's API keys",
    );
  });

  it("a token the server refuses later signs the console out, saying why", async () => {
    await page.evaluate(() => sessionStorage.setItem("porchlight.operator-token", "adm_not-the-token"));
    await page.getByRole("textbox", { name: "New organization name" }).fill("Never Made Roofing");
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.getByRole("alert", { name: "Signed out" }).waitFor();
    assert.equal(await page.locator(".mantine-Notification-root").count(), 0, "no toast repeats it");
    await page.getByLabel("Operator token").waitFor();
    const kept = await page.evaluate(() => sessionStorage.getItem("porchlight.operator-token"));
    assert.equal(kept, null, "the refused token is not kept");
    await screens.checkBothWidths("operator-token-refused");
  });
});
