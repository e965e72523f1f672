/**
 * Keys, team, logo and password reset in a real browser (Debian's Chromium driven by playwright-core)
 * against the real service started as a process on a fresh data directory, its email written to
 * DATA_DIR/mail-outbox/: a revoked key is refused by the developer API; a key allowed everything
 * reads "Everything" however it was made; a refused invitation is said once, on its field; an owner
 * invites a member (the link comes from the invitation email, the owner's screen shows none), changes
 * the role and removes them, and another organization's invitation has their account sign in and
 * join; a member meets readable refusals on owners' screens; a PNG and an SVG logo reach the card back
 * and a too-large file is refused in words; a password reset from the emailed link. Every screen: axe-core, screenshots at
 * desktop and phone width, and at phone width no page-level sideways scroll (tables scroll in their box).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import { VIEWPORTS, type ViewportName } from "./browser.ts";
import { type App, acceptInvitation, jobEvent, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "olga@hvac.test", name: "Olga Owner", password: "correct horse battery" };
const MEMBER = { email: "mia@hvac.test", name: "Mia Member", password: "staple battery horse" };
const NEW_OWNER_PASSWORD = "a brand new passphrase";

let app: App;
let base: string;
let ownerContext: BrowserContext;
let owner: Page;

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const page = await app.newPage();
  return { context: page.context(), page };
}

const open = (page: Page, appPath: string, heading: string | RegExp) =>
  app.screens(page).open(appPath, heading);

/**
 * Screenshot, axe, no sideways scroll, and the phone rule for tables: every table sits in a named
 * scrolling region (ScrollTable) no wider than the screen.
 */
async function checkScreen(page: Page, name: string, viewport: ViewportName) {
  await app.screens(page).checkScreen(name, viewport);
  const widths = await page.evaluate(() => ({
    inner: window.innerWidth,
    tables: [...document.querySelectorAll("table")].map((table) => {
      const region = table.closest<HTMLElement>("[role=region]");
      return {
        label: region?.getAttribute("aria-label") ?? null,
        regionWidth: region?.getBoundingClientRect().width ?? Number.POSITIVE_INFINITY,
      };
    }),
  }));
  for (const table of widths.tables) {
    assert.ok(table.label, `${name}: a table outside a named scrolling region`);
    assert.ok(
      table.regionWidth <= widths.inner,
      `${name}: the ${table.label} region is wider than the screen`,
    );
  }
}

async function checkAtBothWidths(page: Page, name: string, appPath: string, heading: string | RegExp) {
  for (const viewport of ["desktop", "phone"] as const) {
    await page.setViewportSize(VIEWPORTS[viewport]);
    await open(page, appPath, heading);
    await checkScreen(page, name, viewport);
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** The newest email to `to` in the outbox, and the first link in it under `pathPrefix`. */
async function emailedLink(to: string, pathPrefix: string): Promise<{ subject: string; link: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const newest = app
      .outbox()
      .reverse()
      .find((eml) => eml.includes(`\r\nTo: ${to}\r\n`));
    const link = newest
      ?.match(/https?:\/\/\S+/g)
      ?.find((url) => new URL(url).pathname.startsWith(`/app${pathPrefix}`));
    if (newest && link) return { subject: /\r\nSubject: (.*)\r\n/.exec(newest)?.[1] ?? "", link };
    assert.ok(Date.now() < deadline, `no email to ${to} with a /app${pathPrefix} link in the outbox`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** An event through the developer API with `key`, its answer as it came (a revoked key is refused). */
function sendEvent(key: string, dedupId: string) {
  return fetch(`${base}/api/v1/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(jobEvent(dedupId, { street: "1 Main St" }, "service.completed")),
  });
}

/** Pixels of the card back's live proof close to one colour (the logo's): counted in the browser. */
async function backProofPixels(page: Page, rgb: [number, number, number]): Promise<number> {
  await open(page, "/automations/new", "New automation");
  const back = page.getByAltText("Postcard proof back");
  await back.waitFor();
  await page.waitForFunction(() => {
    const image = document.querySelector<HTMLImageElement>("img[alt^='Postcard proof back']");
    return image?.complete && image.naturalWidth > 0;
  });
  return back.evaluate((image: HTMLImageElement, [r, g, b]) => {
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d");
    if (!context) return -1;
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      const near =
        Math.abs(data[i]! - r) < 24 && Math.abs(data[i + 1]! - g) < 24 && Math.abs(data[i + 2]! - b) < 24;
      if (near) count++;
    }
    return count;
  }, rgb);
}

async function uploadLogo(
  file: { name: string; mimeType: string; buffer: Buffer },
  { expectRefusal = false } = {},
) {
  await open(owner, "/settings?tab=profile", "Settings");
  const chooser = owner.waitForEvent("filechooser");
  await owner.getByRole("button", { name: /^Logo file/ }).click();
  await (await chooser).setFiles(file);
  if (!expectRefusal) await owner.getByRole("button", { name: "Upload logo" }).click();
}

/** The SVG logo's colour, looked for on the card back. */
const GREEN: [number, number, number] = [0, 170, 60];

describe("keys, team, logo and password reset in the browser", () => {
  before(async () => {
    app = await startApp({ name: "team" });
    base = app.base;
    ({ context: ownerContext, page: owner } = await newPage());
    await app.signUpOwner(owner, "Olga's Heating & Air", OWNER);
  });

  after(async () => {
    await app?.close();
  });

  it("a revoked key is gone from the list and the developer API refuses it", async () => {
    await open(owner, "/developers?tab=keys", "Developers");
    const created: string[] = [];
    for (const name of ["Old CRM", "Zapier"]) {
      await owner.getByRole("button", { name: "Create API key" }).first().click();
      const dialog = owner.getByRole("dialog");
      await dialog.getByRole("textbox", { name: /^Name/ }).fill(name);
      await dialog.getByRole("button", { name: "Create key" }).click();
      created.push((await dialog.getByLabel("New API key").innerText()).trim());
      await dialog.getByRole("button", { name: "Done" }).click();
      await owner.getByRole("cell").getByText(name, { exact: true }).waitFor();
    }
    const [oldKey, keptKey] = created as [string, string];
    assert.equal((await sendEvent(oldKey, "svc-1")).status, 202);

    await owner.getByRole("button", { name: "Revoke Old CRM" }).click();
    const dialog = owner.getByRole("dialog", { name: "Revoke this key?" });
    await dialog.getByText("stops working within seconds").waitFor();
    await checkScreen(owner, "developers-revoke-key", "desktop");
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await dialog.waitFor({ state: "hidden" });
    await owner.getByRole("cell").getByText("Old CRM", { exact: true }).waitFor({ state: "detached" });
    await owner.getByRole("cell").getByText("Zapier", { exact: true }).waitFor();
    // What a key may do is said in words, not in scope code names.
    const keyTable = await owner.locator("[role=region][aria-label='API keys']").innerText();
    assert.doesNotMatch(keyTable, /events:write|import:write|webhooks:inbound/);
    assert.match(keyTable, /Name and access/);

    // The spec: 401 `unauthorized` on events, `Unauthorized` elsewhere, for a revoked key.
    const refusedEvent = await sendEvent(oldKey, "svc-2");
    assert.equal(refusedEvent.status, 401);
    assert.deepEqual(await refusedEvent.json(), { error: "unauthorized" });
    const refusedMe = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${oldKey}` } });
    assert.equal(refusedMe.status, 401);
    assert.deepEqual(await refusedMe.json(), { error: "Unauthorized" });
    assert.equal((await sendEvent(keptKey, "svc-3")).status, 202, "the other key still works");
    await checkAtBothWidths(owner, "developers-keys-after-revoke", "/developers?tab=keys", "Developers");
  });

  it("a key allowed everything reads Everything however it was made; the dialog says each choice in words", async () => {
    await open(owner, "/developers?tab=keys", "Developers");
    await owner.getByRole("button", { name: "Create API key" }).first().click();
    // Named by its title, which turns to "Your new API key" once the key is made.
    const dialog = owner.getByRole("dialog");
    await dialog.getByText("What the key lets your CRM do").waitFor();
    // What each choice lets the CRM do, in words; the scope names only behind the API reference link (a page, where the quickstart was raw Markdown).
    await dialog.getByText("Your CRM reports a finished job or another event").waitFor();
    await dialog.getByText("Nothing is mailed when they arrive.", { exact: false }).waitFor();
    await dialog.getByText("Your CRM receives the leads your cards bring", { exact: false }).waitFor();
    assert.doesNotMatch(await dialog.innerText(), /events:write|import:write|webhooks:inbound|\(.*:.*\)/);
    assert.equal(await dialog.getByRole("link", { name: "API reference" }).getAttribute("href"), "/docs");
    await checkScreen(owner, "developers-create-key-choices", "desktop");
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("Every box ticked");
    await dialog.getByRole("button", { name: "Create key" }).click();
    await dialog.getByRole("button", { name: "Done" }).click();

    await owner.getByRole("button", { name: "Create API key" }).first().click();
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("Events only");
    await dialog.getByRole("checkbox", { name: /^Import past jobs/ }).uncheck();
    await dialog.getByRole("checkbox", { name: /^Leads, won deals and customers/ }).uncheck();
    await dialog.getByRole("button", { name: "Create key" }).click();
    await dialog.getByRole("button", { name: "Done" }).click();

    // A key naming no scopes (as the demo key, or one made through the API) may do everything too.
    const unrestricted = await owner.request.post(`${base}/app/api/v1/keys`, {
      headers: { origin: base },
      data: { name: "No scopes named" },
    });
    assert.equal(unrestricted.status(), 201, await unrestricted.text());
    assert.equal((await unrestricted.json()).scopes, null);

    await open(owner, "/developers?tab=keys", "Developers");
    const accessOf = async (name: string) =>
      (await owner.getByRole("row").filter({ hasText: name }).getByRole("cell").first().innerText())
        .replace(name, "")
        .trim();
    await owner.getByRole("cell").getByText("No scopes named", { exact: true }).waitFor();
    assert.equal(await accessOf("Every box ticked"), "Everything");
    assert.equal(await accessOf("No scopes named"), "Everything");
    assert.equal(await accessOf("Events only"), "Send events");
    await checkAtBothWidths(owner, "developers-keys-access-in-words", "/developers?tab=keys", "Developers");
  });

  it("a refused invitation says why once, on the Email field, and the earlier invitation's box goes", async () => {
    await open(owner, "/settings?tab=team", "Settings");
    const email = owner.getByRole("textbox", { name: /^Email/ });
    await email.fill("bart@hvac.test");
    await owner.getByRole("button", { name: "Send invitation" }).click();
    const bartBox = owner.getByText("Invitation for bart@hvac.test", { exact: true });
    await bartBox.waitFor();
    assert.equal(
      await owner.locator(".mantine-Notification-root").count(),
      0,
      "the box says it: no toast too",
    );

    await email.fill(OWNER.email);
    await owner.getByRole("button", { name: "Send invitation" }).click();
    const refusal = owner.getByText("This person is already on your team.", { exact: false });
    await refusal.waitFor();
    assert.equal(await bartBox.count(), 0, "the box about bart's invitation is gone");
    // The global toast would come with the refusal; a moment later there is still none.
    await owner.waitForTimeout(500);
    assert.equal(await owner.getByText("That did not work").count(), 0, "no toast repeats the refusal");
    assert.equal(await refusal.count(), 1, "the refusal is said once");
    assert.equal(
      await owner.getByText("is already a member of this organization").count(),
      0,
      "in plain words",
    );
    assert.equal(
      await email.evaluate((input) => input === document.activeElement),
      true,
      "the field has the focus",
    );
    await checkScreen(owner, "settings-team-invite-refused", "desktop");

    await owner.getByRole("button", { name: "Cancel the invitation for bart@hvac.test" }).click();
    await owner.getByText("bart@hvac.test as member").waitFor({ state: "detached" });
  });

  let member: Page;
  let memberContext: BrowserContext;

  it("an owner invites a member; the emailed link sets a name and password and signs them in", async () => {
    // The business goes by the name Settings gives it (the one its cards print); the invitation says so.
    const renamed = await owner.request.patch(`${base}/app/api/v1/organization`, {
      headers: { origin: base },
      data: { business_name: "Olga's Comfort Co." },
    });
    assert.equal(renamed.status(), 200, await renamed.text());
    await open(owner, "/settings?tab=team", "Settings");
    await owner.getByRole("textbox", { name: /^Email/ }).fill(MEMBER.email);
    await owner.getByRole("button", { name: "Send invitation" }).click();
    await owner.getByText(`Invitation for ${MEMBER.email}`, { exact: true }).waitFor();
    assert.equal(
      await owner.getByText("/app/invite/").count(),
      0,
      "the owner's screen shows no accepting link",
    );
    await owner.getByText(`${MEMBER.email} as member`).waitFor();
    // Who sent each pending invitation is said, so an invitation nobody on the team meant stands out.
    assert.match(
      await owner.getByText(`${MEMBER.email} as member`).innerText(),
      new RegExp(`invited by ${OWNER.name}$`),
    );
    // An invitation sent to a wrong address can be taken back; its link then no longer works.
    await owner.getByRole("textbox", { name: /^Email/ }).fill("typo@hvac.tset");
    await owner.getByRole("button", { name: "Send invitation" }).click();
    await owner.getByText("typo@hvac.tset as member").waitFor();
    const { link: typoLink } = await emailedLink("typo@hvac.tset", "/invite/");
    await owner.getByRole("button", { name: "Cancel the invitation for typo@hvac.tset" }).click();
    await owner.getByText("typo@hvac.tset as member").waitFor({ state: "detached" });
    const typoToken = decodeURIComponent(new URL(typoLink).pathname.split("/").at(-1)!);
    const canceled = await fetch(`${base}/app/api/v1/invitations/${encodeURIComponent(typoToken)}`);
    assert.equal(canceled.status, 404, "a canceled invitation's link is dead");
    await checkAtBothWidths(owner, "settings-team-invited", "/settings?tab=team", "Settings");

    const { subject, link } = await emailedLink(MEMBER.email, "/invite/");
    assert.match(subject, /Olga's Comfort Co\./);
    ({ context: memberContext, page: member } = await newPage());
    await member.goto(link);
    await member.getByRole("heading", { level: 1, name: "Join Olga's Comfort Co." }).waitFor();
    await acceptInvitation(member, MEMBER);
  });

  it("a member sees owners' screens refused in words, not a crash", async () => {
    await open(member, "/developers?tab=keys", "Developers");
    await member.getByText("Only owners manage API keys").waitFor();
    assert.equal(await member.getByRole("button", { name: "Create API key" }).count(), 0);
    await checkAtBothWidths(member, "member-developers-keys", "/developers?tab=keys", "Developers");
    await open(member, "/settings?tab=team", "Settings");
    await member.getByText("Only owners manage the team").waitFor();
    await checkAtBothWidths(member, "member-settings-team", "/settings?tab=team", "Settings");
    await open(member, "/settings?tab=profile", "Settings");
    await member.getByText("Only owners change the profile").waitFor();
    assert.equal(await member.getByRole("button", { name: "Save profile" }).count(), 0);
    // The values a member came to read are at full strength, not Mantine's faded disabled grey.
    const businessName = member.getByRole("textbox", { name: /^Business name/ });
    assert.equal(await businessName.isDisabled(), true);
    assert.equal(await businessName.evaluate((input) => getComputedStyle(input).opacity), "1");
    // Overview's caps box offers a member to see the caps, not to change them.
    await open(member, "/", "Overview");
    await member.getByRole("link", { name: "See the caps" }).waitFor();
    assert.equal(await member.getByRole("link", { name: "Change caps" }).count(), 0);
    // The app API itself says no with its error shape, whatever the screen shows.
    const keys = await member.request.get(`${base}/app/api/v1/keys`);
    assert.equal(keys.status(), 403);
    assert.equal((await keys.json()).error.code, "forbidden");
  });

  it("the owner makes the member an owner and back; the member's screens follow", async () => {
    await open(owner, "/settings?tab=team", "Settings");
    const role = owner.getByRole("combobox", { name: `Role of ${MEMBER.name}` });
    await role.click();
    const savedOwner = owner.waitForResponse(
      (response) => response.url().includes("/team/members/") && response.ok(),
    );
    await owner.getByRole("option", { name: "Owner", exact: true }).click();
    await savedOwner;
    await open(member, "/developers?tab=keys", "Developers");
    await member.getByRole("cell").getByText("Zapier", { exact: true }).waitFor();

    await open(owner, "/settings?tab=team", "Settings");
    await role.click();
    const savedMember = owner.waitForResponse(
      (response) => response.url().includes("/team/members/") && response.ok(),
    );
    await owner.getByRole("option", { name: "Member", exact: true }).click();
    await savedMember;
    await open(member, "/developers?tab=keys", "Developers");
    await member.getByText("Only owners manage API keys").waitFor();
  });

  it("the owner removes the member, who loses access at once", async () => {
    await open(owner, "/settings?tab=team", "Settings");
    await owner.getByRole("button", { name: `Remove ${MEMBER.name}` }).click();
    const dialog = owner.getByRole("dialog", { name: "Remove from the team?" });
    await dialog.getByText("API keys and webhooks stay as they are", { exact: false }).waitFor();
    await dialog.getByText("any invitations they sent are cancelled", { exact: false }).waitFor();
    await dialog.getByRole("button", { name: "Remove" }).click();
    await dialog.waitFor({ state: "hidden" });
    await owner.getByRole("cell", { name: MEMBER.email }).waitFor({ state: "detached" });

    const session = await member.request.get(`${base}/app/api/v1/session`);
    assert.equal(session.status(), 401, "the removed member's session no longer works");
    await member.goto(`${base}/app/automations`);
    await member.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await memberContext.close();
  });

  it("invited again elsewhere, the removed member's account signs in and joins; no password is taken on the invite page", async () => {
    const orgId: string = (await app.operator("POST", "/orgs", { name: "Second Shift Heating" })).org_id;
    await app.operator("POST", `/orgs/${orgId}/invitations`, { email: MEMBER.email, role: "member" });
    const { link } = await emailedLink(MEMBER.email, "/invite/");
    const invitePath = new URL(link).pathname.replace(/^\/app/, "");
    const { context, page } = await newPage();
    await open(page, invitePath, "Join Second Shift Heating");
    // The page cannot tell that the email has an account: the new-account form refuses without
    // looking at the password, and only "Sign in to join" is left.
    await page.getByLabel("Your name").fill(MEMBER.name);
    await page.getByRole("textbox", { name: /^Password/ }).fill("any guess at all");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.getByText("You already have an account").waitFor();
    assert.equal(await page.getByRole("textbox", { name: /^Password/ }).count(), 0, "no password form left");
    for (const viewport of ["phone", "desktop"] as const) {
      await page.setViewportSize(VIEWPORTS[viewport]);
      await checkScreen(page, "invite-existing-account", viewport);
    }
    await page.getByRole("link", { name: "Sign in to join" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await page.getByRole("textbox", { name: /^Email/ }).fill(MEMBER.email);
    await page.getByRole("textbox", { name: /^Password/ }).fill(MEMBER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Back on the invitation, signed in as the invited email: one button.
    await page.getByRole("button", { name: "Join" }).waitFor();
    await checkAtBothWidths(page, "invite-join", invitePath, "Join Second Shift Heating");
    await page.getByRole("button", { name: "Join" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    const session = await (await page.request.get(`${base}/app/api/v1/session`)).json();
    assert.deepEqual([session.organization.id, session.role], [orgId, "member"]);
    await context.close();
  });

  it("a PNG and an SVG logo reach the card back's live proof; a too-large file is refused in words", async () => {
    const magenta: [number, number, number] = [230, 0, 200];
    const green = GREEN;
    assert.equal(await backProofPixels(owner, magenta), 0, "no magenta on the card back before the logo");

    const png = await sharp({
      create: {
        width: 240,
        height: 120,
        channels: 3,
        background: { r: magenta[0], g: magenta[1], b: magenta[2] },
      },
    })
      .png()
      .toBuffer();
    await uploadLogo({ name: "logo.png", mimeType: "image/png", buffer: png });
    await owner.getByText("Your cards use it from now on.").waitFor();
    await owner.getByRole("img", { name: "Your current logo" }).waitFor();
    await checkAtBothWidths(owner, "settings-profile-logo", "/settings?tab=profile", "Settings");
    assert.ok((await backProofPixels(owner, magenta)) > 200, "the PNG logo is on the card back");

    const svg = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="120"><rect width="240" height="120" fill="rgb(${green.join(",")})"/></svg>`,
    );
    await uploadLogo({ name: "logo.svg", mimeType: "image/svg+xml", buffer: svg });
    await owner.getByText("Your cards use it from now on.").first().waitFor();
    assert.ok((await backProofPixels(owner, green)) > 200, "the SVG logo is on the card back");
    assert.equal(await backProofPixels(owner, magenta), 0, "the SVG replaced the PNG");
    await checkScreen(owner, "automation-proof-with-logo", "desktop");

    const tooLarge = Buffer.concat([png, Buffer.alloc(3 * 1024 * 1024)]);
    await uploadLogo({ name: "huge.png", mimeType: "image/png", buffer: tooLarge }, { expectRefusal: true });
    await owner.getByText("This file is 3.0 MB; a logo can be at most 2 MB. Export a smaller one.").waitFor();
    assert.ok(await owner.getByRole("button", { name: "Upload logo" }).isDisabled());
    // The server refuses it too, in the app API's error shape, should a client send it anyway.
    const refused = await owner.request.put(`${base}/app/api/v1/organization/logo`, {
      headers: { "content-type": "image/png", origin: base },
      data: tooLarge,
    });
    assert.equal(refused.status(), 413);
    assert.ok((await refused.json()).error.message, "a readable message");
    await checkScreen(owner, "settings-logo-too-large", "desktop");
    assert.ok((await backProofPixels(owner, green)) > 200, "the refused file left the logo as it was");
  });

  it("Remove logo asks first; kept, the logo stays; removed, the card back goes without it", async () => {
    await open(owner, "/settings?tab=profile", "Settings");
    const remove = owner.getByRole("button", { name: "Remove logo" });
    await remove.click();
    const dialog = owner.getByRole("dialog", { name: "Remove the logo?" });
    await dialog.getByText(/cards already printed keep it/).waitFor();
    await checkScreen(owner, "settings-remove-logo", "desktop");
    await dialog.getByRole("button", { name: "Keep the logo" }).click();
    await dialog.waitFor({ state: "hidden" });
    await owner.getByRole("img", { name: "Your current logo" }).waitFor();

    await remove.click();
    await dialog.getByRole("button", { name: "Remove logo" }).click();
    await owner.getByText("Your cards go without it from now on.").waitFor();
    await owner
      .getByText("No logo yet. It is printed on the card back and shown on your landing page.")
      .waitFor();
    assert.equal(await owner.getByRole("img", { name: "Your current logo" }).count(), 0);
    await waitUntil(
      () =>
        owner
          .getByRole("button", { name: /^Logo file/ })
          .evaluate((field) => field === document.activeElement),
      "the focus goes to the file field, for another logo",
    );
    assert.equal(await backProofPixels(owner, GREEN), 0, "the card back's proof has no logo");
    await checkAtBothWidths(owner, "settings-profile-no-logo", "/settings?tab=profile", "Settings");
  });

  it("every table screen scrolls only inside its box at phone width", async () => {
    const screens: [string, string, string][] = [
      ["automations", "/automations", "Automations"],
      ["developers-keys", "/developers?tab=keys", "Developers"],
      ["developers-webhooks", "/developers?tab=webhooks", "Developers"],
      ["developers-samples", "/developers?tab=samples", "Developers"],
      ["settings-team", "/settings?tab=team", "Settings"],
      ["mail", "/mail", "Mail"],
      ["leads", "/leads", "Leads"],
      ["revenue", "/revenue", "Revenue"],
    ];
    await owner.setViewportSize(VIEWPORTS.phone);
    for (const [name, appPath, heading] of screens) {
      await open(owner, appPath, heading);
      await checkScreen(owner, `team-file-${name}`, "phone");
    }
    // Tabs stay on one line at phone width (they scroll sideways), and the selected one is in view.
    for (const [name, appPath, heading] of [
      ["settings-tabs-account", "/settings?tab=account", "Settings"],
      ["developers-tabs-mcp", "/developers?tab=mcp", "Developers"],
    ] as const) {
      await open(owner, appPath, heading);
      const tabs = await owner.evaluate(() => {
        const list = document.querySelector<HTMLElement>("[role=tablist]")!;
        // The row is as wide as its tabs; what shows is the box it scrolls in (and the screen).
        const scroller = list.closest<HTMLElement>(".mantine-ScrollArea-viewport") ?? list;
        const shown = scroller.getBoundingClientRect();
        const box = { left: Math.max(shown.left, 0), right: Math.min(shown.right, window.innerWidth) };
        const tops = [...list.querySelectorAll("[role=tab]")].map((tab) =>
          Math.round(tab.getBoundingClientRect().top),
        );
        const selected = list.querySelector("[role=tab][aria-selected=true]")!.getBoundingClientRect();
        return {
          lines: new Set(tops).size,
          selectedInView: selected.left >= box.left - 1 && selected.right <= box.right + 1,
        };
      });
      assert.equal(tabs.lines, 1, `${name}: the tabs wrap onto more than one line`);
      assert.ok(tabs.selectedInView, `${name}: the selected tab is scrolled out of view`);
      await checkScreen(owner, name, "phone");
    }
    await owner.setViewportSize(VIEWPORTS.desktop);
  });

  it("a password reset from the emailed link: the new password signs in, the old one is refused; sign out everywhere", async () => {
    const { context, page } = await newPage();
    await open(page, "/forgot-password", "Reset your password");
    await page.getByRole("textbox", { name: /^Email/ }).fill(OWNER.email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByText("Check your email").waitFor();
    await checkScreen(page, "forgot-password-sent", "desktop");

    const { link } = await emailedLink(OWNER.email, "/reset-password");
    await page.goto(link);
    await page.getByRole("heading", { level: 1, name: "Choose a new password" }).waitFor();
    await page.getByLabel("New password", { exact: false }).first().fill(NEW_OWNER_PASSWORD);
    await page.getByLabel("Repeat the new password").fill(NEW_OWNER_PASSWORD);
    await page.getByRole("button", { name: "Save new password" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await page.getByText("Sign in with your new password.", { exact: false }).waitFor();

    // The used link, opened again: it says at once that it has expired and offers a new one.
    const used = await newPage();
    const usedPath = `${new URL(link).pathname.replace(/^\/app/, "")}${new URL(link).search}`;
    await checkAtBothWidths(used.page, "reset-password-expired", usedPath, "This link has expired");
    assert.equal(await used.page.getByLabel("New password", { exact: false }).count(), 0, "no password form");
    await used.page.getByRole("textbox", { name: /^Email/ }).fill(OWNER.email);
    await used.page.getByRole("button", { name: "Send a new link" }).click();
    await used.page.getByText("Check your email").waitFor();
    await used.context.close();

    // The reset ended every session, the owner's open tab's too.
    assert.equal((await owner.request.get(`${base}/app/api/v1/session`)).status(), 401);

    await page.getByRole("textbox", { name: /^Email/ }).fill(OWNER.email);
    await page.getByRole("textbox", { name: /^Password/ }).fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Not signed in" }).waitFor();
    await checkScreen(page, "sign-in-old-password-refused", "desktop");
    await page.getByRole("textbox", { name: /^Password/ }).fill(NEW_OWNER_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();

    // Signed in on a second device too; "Sign out everywhere" on the first ends both.
    const second = await newPage();
    await open(second.page, "/sign-in", "Sign in");
    await second.page.getByRole("textbox", { name: /^Email/ }).fill(OWNER.email);
    await second.page.getByRole("textbox", { name: /^Password/ }).fill(NEW_OWNER_PASSWORD);
    await second.page.getByRole("button", { name: "Sign in" }).click();
    await second.page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await checkAtBothWidths(page, "settings-account", "/settings?tab=account", "Settings");
    await open(page, "/settings?tab=account", "Settings");
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    assert.equal((await second.page.request.get(`${base}/app/api/v1/session`)).status(), 401);
    await second.context.close();
    await context.close();
    await ownerContext.close();
  });
});
