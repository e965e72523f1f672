/**
 * The homeowner's landing page (/l/{token}) walked as a homeowner walks it, in Debian's Chromium
 * against the real service: opened from a real mailed card on a phone and a desktop, sent empty,
 * with a bad email and phone, with a long message, twice at once, without JavaScript; Back and
 * reload after sending; an unknown or malformed token; the page after the business changed its
 * logo, colour and phone; the keyboard path. The lead the form makes shows in the app's Leads.
 * Screens: axe-core and screenshots in test/e2e/artifacts/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { VIEWPORTS } from "./browser.ts";
import { type App, jobEvent, type ListedPiece, startApp, waitUntil } from "./session.ts";

const OWNER = { email: "owner@landing.test", name: "Rita Roof", password: "correct horse battery" };
const BUSINESS = "Reliable Roofing";
const HOMEOWNER = { first: "Marge", last: "Simpson", email: "marge@example.test" };
/** A phone's smallest comfortable tap target (Apple's and Google's guidance). */
const MIN_TAP = 44;

let app: App;
let owner: Page;
let browser: Browser;
let orgId: string;
let mailed: ListedPiece;

const leadsOf = async () =>
  (await app.operator("GET", `/orgs/${orgId}/leads`)).leads as {
    first_name: string;
    last_name: string;
    email: string;
    phone: string;
  }[];

/** A homeowner's own browser, at a phone's or a desktop's size (a context of its own). */
async function homeownerPage(viewport: keyof typeof VIEWPORTS, options: { javaScript?: boolean } = {}) {
  const context = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    javaScriptEnabled: options.javaScript ?? true,
  });
  context.setDefaultTimeout(30_000);
  return context.newPage();
}

async function fillContact(
  page: Page,
  contact: { first: string; last: string; email?: string; phone?: string },
) {
  await page.getByLabel("First name").fill(contact.first);
  await page.getByLabel("Last name").fill(contact.last);
  await page.getByLabel("Email").fill(contact.email ?? "");
  await page.getByLabel("Phone").fill(contact.phone ?? "");
}

/** A problem said beside its field, as the field's description (what a screen reader reads with it). */
async function problemOf(page: Page, label: string) {
  const field = page.getByLabel(label, { exact: true });
  assert.equal(await field.getAttribute("aria-invalid"), "true", `${label} is marked refused`);
  const [problemId] = ((await field.getAttribute("aria-describedby")) ?? "").split(" ");
  return page.locator(`[id="${problemId}"]`).innerText();
}

describe("the homeowner's landing page in a browser", () => {
  before(async () => {
    app = await startApp({ name: "landing-page" });
    owner = await app.newPage();
    browser = owner.context().browser()!;
    let apiKey: string;
    ({ orgId, apiKey } = await app.ownerWithAutomation(owner, BUSINESS, OWNER));
    await app.sendEvent(
      apiKey,
      jobEvent("landing-742", { street: "742 Evergreen Terrace", client_name: "Marge Simpson" }),
    );
    await waitUntil(async () => {
      const piece = (await app.campaigns(orgId)).flatMap((campaign) => campaign.pieces)[0];
      if (piece) mailed = piece;
      return piece?.status === "mailed";
    }, "the card to 742 Evergreen Terrace is mailed");
  });

  after(async () => {
    await app?.close();
  });

  it("opens from the mailed card on a phone and a desktop: quick, titled, labelled, large enough to tap", async () => {
    const page = await homeownerPage("phone");
    const started = Date.now();
    await page.goto(mailed.landing_url);
    const loadMs = Date.now() - started;
    assert.ok(loadMs < 3000, `the page loads in ${loadMs} ms`);
    await page.getByRole("heading", { level: 1, name: "Hi Marge, let's talk about your home." }).waitFor();
    await page.getByText("742 Evergreen Terrace", { exact: true }).waitFor();
    assert.equal(await page.locator("html").getAttribute("lang"), "en");
    assert.equal(await page.title(), BUSINESS);
    assert.match(
      (await page.locator('meta[name="viewport"]').getAttribute("content")) ?? "",
      /width=device-width/,
    );
    // The names the form needs say so beside them; the rest stand alone.
    for (const label of ["First name (required)", "Last name (required)", "Email", "Phone", "Message"]) {
      await page.getByLabel(label, { exact: true }).waitFor();
    }
    const targets = [
      page.getByLabel("First name"),
      page.getByLabel("Email"),
      page.getByRole("button", { name: "Send" }),
      page.getByRole("link", { name: "Stop mail to this address" }),
    ];
    for (const target of targets) {
      const box = await target.boundingBox();
      assert.ok(
        box && box.height >= MIN_TAP,
        `${await target.evaluate((e) => e.outerHTML.slice(0, 60))}: ${box?.height} px tall`,
      );
    }
    await app.screens(page).checkBothWidths("landing-page");
    await page.context().close();
  });

  it("an empty Send is stopped at First name; a bad email and phone are named beside each field, in words, input kept", async () => {
    const page = await homeownerPage("phone");
    await page.goto(mailed.landing_url);
    await page.getByRole("button", { name: "Send" }).click();
    assert.notEqual(
      await page.getByLabel("First name").evaluate((input: HTMLInputElement) => input.validationMessage),
      "",
      "the browser asks for the first name",
    );
    assert.equal(new URL(page.url()).pathname, new URL(mailed.landing_url).pathname, "nothing was sent");

    await fillContact(page, { first: "Marge", last: "Simpson", email: "marge@example", phone: "call me" });
    await page.getByLabel("Message").fill("Please call after 5.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").filter({ hasText: "Your details were not sent yet." }).waitFor();
    await page.getByText("Please check the 2 fields marked below.").waitFor();
    assert.equal(
      await problemOf(page, "Email"),
      "Please enter your whole email address, like name@example.com.",
    );
    assert.equal(
      await problemOf(page, "Phone"),
      "Please enter a phone number of at least 7 digits, like (217) 555-0123.",
    );
    assert.equal(await page.getByText(/email: |is not a valid/).count(), 0, "no API words on the page");
    assert.equal(await page.getByLabel("First name").inputValue(), "Marge", "typed input is kept");
    assert.equal(await page.getByLabel("Message").inputValue(), "Please call after 5.");
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      "email",
      "the first refused field has the focus",
    );
    await app.screens(page).checkBothWidths("landing-page-refused");

    // Neither an email nor a phone: said once, naming the business that needs it.
    await page.getByLabel("Email").fill("");
    await page.getByLabel("Phone").fill("");
    await page.getByRole("button", { name: "Send" }).click();
    const noContact = `Please give an email or a phone number, so ${BUSINESS} can reach you.`;
    await page.getByText(noContact).waitFor();
    assert.equal(await problemOf(page, "Email"), noContact);
    assert.equal(await leadsOf().then((leads) => leads.length), 0, "no refused form made a lead");
    await page.context().close();
  });

  it("a long message goes whole, a double tap is one lead, the thanks says where; Back and reload stay on real pages; the lead is in Leads", async () => {
    const page = await homeownerPage("phone");
    await page.goto(mailed.landing_url);
    await fillContact(page, { ...HOMEOWNER });
    await page.getByLabel("Message").fill(`The gutter leaks. ${"More detail. ".repeat(200)}`);
    const message = await page.getByLabel("Message").inputValue();
    assert.equal(message.length, 2000, "the box takes what the server keeps, and no more");
    // Said before a pasted letter is cut short, not after.
    const hintId = await page.getByLabel("Message").getAttribute("aria-describedby");
    assert.equal(await page.locator(`[id="${hintId}"]`).innerText(), "Up to 2,000 characters.");
    await page.getByRole("button", { name: "Send" }).dblclick();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();
    await page
      .getByText(`${BUSINESS} has your details and will be in touch soon at ${HOMEOWNER.email}.`)
      .waitFor();
    await app.screens(page).checkBothWidths("landing-page-thanks");

    await page.goBack();
    assert.doesNotMatch(page.url(), /^chrome-error:/, "Back shows the page, not an error");
    await page.getByRole("heading", { level: 1, name: /let's talk about your home/ }).waitFor();
    await page.goForward();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();

    const leads = await leadsOf();
    assert.equal(leads.length, 1, "a double tap and a reload are still one lead");
    assert.equal(leads[0]?.email, HOMEOWNER.email);

    const { open } = app.screens(owner);
    await open("/leads", "Leads");
    const row = owner.getByRole("row", { name: /Marge Simpson/ });
    await row.waitFor();
    assert.match((await row.getByRole("cell").allInnerTexts()).join(" "), /742 Evergreen Terrace/);
    await row.getByRole("link", { name: "Marge Simpson" }).click();
    await owner.getByRole("heading", { level: 1, name: "Marge Simpson" }).waitFor();
    await owner.getByText(message.trim().slice(0, 60)).waitFor();
    await page.context().close();
  });

  it("works without JavaScript: a refused form names its field, a sent one thanks", async () => {
    const page = await homeownerPage("phone", { javaScript: false });
    await page.goto(mailed.landing_url);
    await fillContact(page, { first: "Bart", last: "Simpson", phone: "12" });
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Please enter a phone number of at least 7 digits, like (217) 555-0123.").waitFor();
    assert.equal(await page.getByLabel("First name").inputValue(), "Bart");
    await page.getByLabel("Phone").fill("217 555 0199");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText(`${BUSINESS} has your details and will be in touch soon at 217 555 0199.`).waitFor();
    // On a phone the number stays on one line: broken at a space or hyphen it read as two.
    const phone = page.locator("strong", { hasText: "217 555 0199" });
    const fontSize = Number.parseFloat(await phone.evaluate((element) => getComputedStyle(element).fontSize));
    assert.ok((await phone.boundingBox())!.height < fontSize * 2, "the phone number is on one line");
    assert.ok((await leadsOf()).some((lead) => lead.first_name === "Bart" && lead.phone === "217 555 0199"));
    await page.context().close();
  });

  it("once the form reached the business, a later visit says so, and a refused second form does not say nothing was sent", async () => {
    const page = await homeownerPage("phone");
    await page.goto(mailed.landing_url);
    await fillContact(page, {
      first: "Homer",
      last: "Simpson",
      email: "homer@example.com",
      phone: "217 555 0123",
    });
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();

    await page.goto(mailed.landing_url);
    await page
      .getByRole("status")
      .filter({ hasText: `Your details reached ${BUSINESS}.` })
      .waitFor();
    await app.screens(page).checkBothWidths("landing-page-sent-before");

    await fillContact(page, { first: "Homer", last: "Simpson", email: "homer@example" });
    await page.getByRole("button", { name: "Send" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: `Your earlier details reached ${BUSINESS}; these changes were not sent.` })
      .waitFor();
    assert.equal(await page.getByText("Your details were not sent yet.").count(), 0);
    assert.equal(await page.getByRole("status").count(), 0, "one message at the top");
    await app.screens(page).checkBothWidths("landing-page-refused-after-sent");
    const homers = (await leadsOf()).filter((lead) => lead.first_name === "Homer");
    assert.deepEqual(
      homers.map((lead) => lead.email),
      ["homer@example.com"],
    );
    await page.context().close();
  });

  it("the keyboard walks every field, Send and the stop-mail link in reading order, each with a visible focus", async () => {
    const page = await homeownerPage("desktop");
    await page.goto(mailed.landing_url);
    const walked: string[] = [];
    for (let step = 0; step < 7; step++) {
      await page.keyboard.press("Tab");
      walked.push(
        await page.evaluate(() => {
          const element = document.activeElement as HTMLElement;
          const style = getComputedStyle(element);
          const ring = style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0;
          const name = element.getAttribute("name") ?? element.textContent?.trim();
          return `${element.tagName.toLowerCase()} ${name}${ring ? "" : " (no focus ring)"}`;
        }),
      );
    }
    assert.deepEqual(walked, [
      "input first_name",
      "input last_name",
      "input email",
      "input phone",
      "textarea message",
      "button Send",
      "a Stop mail to this address",
    ]);
    await page.context().close();
  });

  it("an unknown, malformed or over-long token is the not-found page, in words", async () => {
    const page = await homeownerPage("phone");
    for (const token of ["NoSuchCard123", "%3Cscript%3E", "a%ZZ", "x".repeat(150)]) {
      const response = await page.goto(`${app.base}/l/${token}`);
      assert.ok(
        response && response.status() >= 400 && response.status() < 500,
        `${token}: ${response?.status()}`,
      );
      await page.getByRole("heading", { level: 1, name: "This page does not exist" }).waitFor();
      await page.getByText("Check the address printed on your card.").waitFor();
      assert.ok(!(await page.content()).includes("<script"), `${token} is not reflected`);
    }
    await app.screens(page).checkBothWidths("landing-page-not-found");
    await page.context().close();
  });

  it("shows the business's new logo, colour and phone once it changes its profile, still readable", async () => {
    const profile = await owner.request.patch(`${app.base}/app/api/v1/organization`, {
      headers: { origin: app.base },
      data: {
        business_name: "Reliable Roofing & Gutters of Greater Springfield",
        phone: "(217) 555-0100",
        brand_color: "#f5d90a",
      },
    });
    assert.equal(profile.status(), 200, await profile.text());
    const wideLogo = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="120"><rect width="600" height="120" fill="#0b3d91"/></svg>`;
    const logo = await owner.request.put(`${app.base}/app/api/v1/organization/logo`, {
      headers: { "content-type": "image/svg+xml", origin: app.base },
      data: Buffer.from(wideLogo),
    });
    assert.equal(logo.status(), 200, await logo.text());

    const page = await homeownerPage("phone");
    await page.goto(mailed.landing_url);
    const shownLogo = page.getByRole("img", {
      name: "Reliable Roofing & Gutters of Greater Springfield logo",
    });
    const box = await shownLogo.boundingBox();
    assert.ok(
      box && box.width <= 160 && Math.abs(box.width / box.height - 5) < 0.2,
      `logo unstretched: ${JSON.stringify(box)}`,
    );
    const call = page.getByRole("link", { name: "Call (217) 555-0100" });
    assert.equal(await call.getAttribute("href"), "tel:2175550100");
    const send = page.getByRole("button", { name: "Send" });
    assert.equal(
      await send.evaluate((button) => getComputedStyle(button).backgroundColor),
      "rgb(245, 217, 10)",
    );
    assert.equal(await page.title(), "Reliable Roofing & Gutters of Greater Springfield");
    await app.screens(page).checkBothWidths("landing-page-rebranded");

    await fillContact(page, { first: "Lisa", last: "Simpson", email: "lisa@example.test" });
    await send.click();
    await page.getByRole("heading", { level: 1, name: "Thank you!" }).waitFor();
    await shownLogo.waitFor();
    await call.waitFor();
    await app.screens(page).checkBothWidths("landing-page-rebranded-thanks");
    await page.context().close();
  });
});
