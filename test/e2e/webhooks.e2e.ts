/**
 * Developers → Webhooks in a real browser (issue 43, part 1), against the real service as a process
 * and a real HTTPS receiver on loopback with its own CA (trusted by the service through
 * NODE_EXTRA_CA_CERTS, let through the SSRF guard by WEBHOOK_ALLOW_PRIVATE_TARGETS): an owner adds
 * an endpoint (a private address is refused first), copies its secret, sends a test delivery that the
 * receiver verifies with that secret, rotates the secret, and deletes the endpoint; a member is told
 * only owners manage webhooks. Every screen: axe-core and screenshots at 1280 and 390 px.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type HttpsReceiver, startHttpsReceiver } from "../helpers/https-receiver.ts";
import { verifySignature } from "../leads/leads-helpers.ts";
import { type App, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@webhooks.test", name: "Wren Hooks", password: "correct horse battery" };
const MEMBER = { email: "member@webhooks.test", name: "Milo Member", password: "correct horse battery" };

let app: App;
let page: Page;
let receiver: HttpsReceiver;
let caDir: string;
let orgId: string;
let screens: ReturnType<App["screens"]>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The secret shown in the open dialog, then the dialog closed with Done. */
async function copySecretAndClose(): Promise<string> {
  const dialog = page.getByRole("dialog");
  const secret = (await dialog.getByLabel("Signing secret", { exact: true }).innerText()).trim();
  assert.match(secret, /^whsec_/);
  await dialog.getByRole("button", { name: "Done" }).click();
  await dialog.waitFor({ state: "hidden" });
  return secret;
}

describe("webhooks in the browser", () => {
  before(async () => {
    receiver = await startHttpsReceiver();
    caDir = mkdtempSync(path.join(tmpdir(), "porchlight-e2e-ca-"));
    writeFileSync(path.join(caDir, "ca.pem"), receiver.ca);
    app = await startApp({
      name: "webhooks",
      env: {
        NODE_EXTRA_CA_CERTS: path.join(caDir, "ca.pem"),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1,localhost",
      },
    });
    page = await app.newPage();
    screens = app.screens(page);
    orgId = await app.signUpOwner(page, "Hook Roofing", OWNER);
  });

  after(async () => {
    await app?.close();
    await receiver?.close();
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  });

  it("an owner adds an endpoint, tests it with a signed sample lead, rotates its secret and deletes it", async () => {
    await screens.open("/developers?tab=webhooks", "Developers");
    await page.getByRole("heading", { name: "No webhook endpoints yet" }).waitFor();
    await screens.checkBothWidths("webhooks-empty");

    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a webhook endpoint" });
    const url = dialog.getByRole("textbox", { name: /Endpoint URL/ });
    // A private address is refused by the server, in a contractor's words, on the field.
    await url.fill("https://10.0.0.7/hooks");
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await dialog.getByText("We could not reach 10.0.0.7 on the public internet.", { exact: false }).waitFor();
    await screens.checkScreen("webhooks-refused", "desktop");

    const target = receiver.url("/porchlight", "localhost");
    await url.fill(target);
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("dialog", { name: "Endpoint added" }).waitFor();
    await screens.checkBothWidths("webhooks-secret");
    const secret = await copySecretAndClose();

    const card = page.getByRole("region", { name: target });
    await card.getByText("Signed", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Send test" }).click();
    await waitUntil(
      async () => (await card.getByRole("cell", { name: "Test" }).count()) === 1,
      "the test shows",
    );
    const row = card.getByRole("row", { name: /Test/ });
    assert.match(await row.innerText(), /Delivered\s+Answered 200/i);
    const [received] = receiver.requests.filter((request) => request.path === "/porchlight");
    assert.ok(received, "the receiver got the test delivery");
    assert.ok(
      verifySignature(secret, received.headers, received.raw, nowSeconds()),
      "signed with the secret shown",
    );
    assert.equal(JSON.parse(received.raw.toString("utf8")).test, true);
    await screens.checkBothWidths("webhooks-tested");

    await card.getByRole("button", { name: "Rotate secret" }).click();
    await page
      .getByRole("dialog", { name: "Rotate the signing secret?" })
      .getByRole("button", { name: "Rotate secret" })
      .click();
    await page.getByRole("dialog", { name: "New signing secret" }).waitFor();
    const rotated = await copySecretAndClose();
    assert.notEqual(rotated, secret);
    await card.getByRole("button", { name: "Send test" }).click();
    await waitUntil(
      async () => (await card.getByRole("cell", { name: "Test" }).count()) === 2,
      "the second test shows",
    );
    const second = receiver.requests.filter((request) => request.path === "/porchlight")[1];
    assert.ok(second && verifySignature(rotated, second.headers, second.raw, nowSeconds()));

    // A receiver that refuses: the delivery is marked not delivered, in words, not as an answer like any other.
    receiver.respondWith(401);
    await card.getByRole("button", { name: "Send test" }).click();
    await waitUntil(
      async () => (await card.getByRole("cell", { name: "Test" }).count()) === 3,
      "the third test shows",
    );
    const refused = card.getByRole("row", { name: /Test/ }).first();
    assert.match(await refused.innerText(), /Not delivered\s+Refused by the receiver \(401\)/i);
    receiver.respondWith(200);
    await screens.checkBothWidths("webhooks-refused");

    await card.getByRole("button", { name: "Delete" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete this endpoint?" });
    await screens.checkBothWidths("webhooks-delete");
    await confirm.getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("heading", { name: "No webhook endpoints yet" }).waitFor();
  });

  it("a member is told that only owners manage webhooks", async () => {
    const memberPage = await app.signInMember(orgId, MEMBER);
    const memberScreens = app.screens(memberPage);
    await memberScreens.open("/developers?tab=webhooks", "Developers");
    await memberPage.getByText("Only owners manage webhooks").waitFor();
    await memberScreens.checkBothWidths("webhooks-member");
  });
});
