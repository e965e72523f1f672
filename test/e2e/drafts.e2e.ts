/**
 * Nothing typed in the automation builder is lost when the session ends, in a real browser against the
 * real service: a Save that finds the session ended (signed out everywhere from another device, or the
 * cookie gone) keeps the form's values as a draft in the tab and leads to sign-in, which says why; signed
 * in again, the builder offers the draft (Restore / Discard), and a restored draft saves. Discard, a save
 * and 24 hours remove it; another person signing in on the same tab is never offered it. At phone width
 * the "Preview card" bar never covers the field being typed into near the bottom of the screen, and
 * the New mailing screen has the same Preview card. Each screen: a screenshot in test/e2e/artifacts/ and axe.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { ARTIFACTS, seriousViolations, settled, VIEWPORTS } from "./browser.ts";
import { holdNextRequest, waitForFocus } from "./page-probes.ts";
import { type App, jobEvent, startApp, waitForSamplePicked, waitUntil } from "./session.ts";

const OWNER = { email: "owner@drafts.test", name: "Dana Draft", password: "correct horse battery" };
const MEMBER = { email: "member@drafts.test", name: "Milo Member", password: "battery staple horse" };
const SESSION_ENDED = "Your session ended; sign in again to save your changes.";
const DRAFT_PREFIX = "porchlight.automation-draft:";

let app: App;
let page: Page;
let screens: ReturnType<App["screens"]>;
let orgId: string;
let apiKey: string;
let automationId: string;

const builderPath = () => `/app/automations/${automationId}`;
const restoreOffer = () => page.getByRole("dialog", { name: /^Restore your unsaved changes from / });
const field = (name: string) => page.getByRole("textbox", { name, exact: true });

/** The drafts kept in the tab's storage, by key. */
const keptDrafts = (): Promise<
  Record<
    string,
    { user_id: string; saved_at: number; values: Record<string, unknown>; safety?: Record<string, unknown> }
  >
> =>
  page.evaluate(
    (prefix) =>
      Object.fromEntries(
        Object.keys(sessionStorage)
          .filter((key) => key.startsWith(prefix))
          .map((key) => [key, JSON.parse(sessionStorage.getItem(key) ?? "null")]),
      ),
    DRAFT_PREFIX,
  );

/** The automation as the server has it, read through the app API with the page's session. */
async function savedAutomation() {
  const response = await page.request.get(`${app.base}/app/api/v1/automations/${automationId}`);
  assert.equal(response.status(), 200, await response.text());
  return (await response.json()) as { template: { headline: string; message: string; offer: string | null } };
}

/** The builder of the automation, open, its newest sample picked and its proof drawn. */
async function openBuilder() {
  await screens.open(`/automations/${automationId}`, "Job done postcard");
  await page.getByRole("button", { name: "Save", exact: true }).waitFor();
  await waitForSamplePicked(page);
}

/** Waits until the builder's proof (beside the form) shows `words` on the card's front. */
async function proofShows(words: string) {
  const front = page
    .getByRole("region", { name: "Proof" })
    .first()
    .getByRole("img", { name: /^Postcard proof front:/ });
  await waitUntil(
    async () => ((await front.getAttribute("alt").catch(() => "")) ?? "").includes(words),
    `the proof shows "${words}"`,
  );
  await page.waitForLoadState("networkidle");
}

/**
 * Fills a card field and waits until the card-fit check of the new words (sent 300 ms after typing) is
 * answered: a check still to be sent when the cookie goes would answer 401 and lead to sign-in on its
 * own, racing the Save this test is about (waitForLoadState("networkidle") does not wait: the page
 * reached that state when it loaded).
 */
async function fillCardField(label: string, value: string) {
  const checked = page.waitForResponse(
    (response) =>
      response.url().endsWith("/app/api/v1/card-fit") &&
      (response.request().postData() ?? "").includes(value),
  );
  await field(label).fill(value);
  await checked;
}

/** On the sign-in page: signs in as `person`. */
async function signInHere(person: { email: string; password: string }) {
  await page.getByRole("textbox", { name: /^Email/ }).fill(person.email);
  await page.getByRole("textbox", { name: /^Password/ }).fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Save with the session ended: the sign-in page, saying why, leads back to the builder. */
async function saveAfterSessionEnded() {
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
  await page.getByText(SESSION_ENDED).waitFor();
  const url = new URL(page.url());
  assert.equal(url.searchParams.get("redirect"), builderPath(), "sign-in leads back to the builder");
  assert.equal(
    await page.locator(".mantine-Notification-root", { hasText: "That did not work" }).count(),
    0,
    "no toast repeats what the sign-in page says",
  );
}

/** The two boxes overlap (or come within `gap` px of each other). */
const overlap = (
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
  gap = 0,
) =>
  a.x < b.x + b.width + gap &&
  b.x < a.x + a.width + gap &&
  a.y < b.y + b.height + gap &&
  b.y < a.y + a.height + gap;

/** Scrolls the page so that `target`'s bottom edge sits `above` px over the bottom of the screen. */
async function bringToBottom(target: Locator, above = 12) {
  const box = (await target.boundingBox())!;
  const height = await page.evaluate(() => window.innerHeight);
  await page.evaluate((by) => window.scrollBy(0, by), box.y + box.height - (height - above));
  await settled(page);
}

describe("the builder keeps unsaved edits through a session that ends; Preview card on phones", () => {
  before(async () => {
    app = await startApp({ name: "drafts" });
    page = await app.newPage();
    screens = app.screens(page);
    ({ orgId, apiKey, automationId } = await app.ownerWithAutomation(page, "Draft Decks", OWNER));
    await app.sendEvent(
      apiKey,
      jobEvent("job-drafts-1", { street: "9 Draft Road", client_name: "Dot Draft" }),
    );
  });

  after(async () => {
    await app?.close();
  });

  it("a Save after signing out everywhere leads to sign-in, and the edits restored there save", async () => {
    await page.setViewportSize(VIEWPORTS.desktop);
    await openBuilder();
    await field("Headline").fill("Spring gutters for {{street}}");
    await field("Offer").fill("10% off gutter cleaning");
    await proofShows("Spring gutters for 9 Draft Road");

    // Kept as typed, for this person in this organization, and nothing else than the form's values.
    const kept = Object.entries(await keptDrafts());
    assert.equal(kept.length, 1, "one draft is kept");
    const [key, record] = kept[0]!;
    assert.ok(
      key.includes(orgId) && key.endsWith(`:${automationId}`),
      `keyed by organization and automation: ${key}`,
    );
    assert.deepEqual(Object.keys(record).sort(), ["saved_at", "user_id", "values", "version"]);
    assert.equal(record.values.headline, "Spring gutters for {{street}}");
    assert.ok(!JSON.stringify(record).includes(OWNER.password), "no password in the draft");

    // Signed out everywhere from another device while the edits wait.
    const other = await app.newPage();
    await other.goto(`${app.base}/app/sign-in`);
    await other.getByRole("textbox", { name: /^Email/ }).fill(OWNER.email);
    await other.getByRole("textbox", { name: /^Password/ }).fill(OWNER.password);
    await other.getByRole("button", { name: "Sign in" }).click();
    await other.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await other.goto(`${app.base}/app/settings?tab=account`);
    await other.getByRole("button", { name: "Sign out everywhere" }).click();
    await other.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    await other.context().close();

    await saveAfterSessionEnded();
    await screens.checkBothWidths("drafts-sign-in-session-ended");

    await signInHere(OWNER);
    await page.getByRole("heading", { level: 1, name: "Job done postcard" }).waitFor();
    await restoreOffer().waitFor();
    assert.match((await restoreOffer().getByRole("heading").textContent()) ?? "", /from .*\d:\d\d.*\?$/);
    assert.ok(
      await restoreOffer()
        .getByRole("button", { name: "Restore" })
        .evaluate((element) => element === document.activeElement),
      "Restore has the focus",
    );
    // Escape does not dismiss the question.
    await page.keyboard.press("Escape");
    await page.waitForTimeout(300);
    assert.ok(await restoreOffer().isVisible(), "the offer waits for an answer");
    await screens.checkBothWidths("drafts-restore-offer");

    await restoreOffer().getByRole("button", { name: "Restore" }).click();
    await restoreOffer().waitFor({ state: "detached" });
    assert.equal(await field("Headline").inputValue(), "Spring gutters for {{street}}");
    assert.equal(await field("Offer").inputValue(), "10% off gutter cleaning");
    await proofShows("Spring gutters for 9 Draft Road");

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Job done postcard is saved.").waitFor();
    const saved = await savedAutomation();
    assert.equal(saved.template.headline, "Spring gutters for {{street}}");
    assert.equal(saved.template.offer, "10% off gutter cleaning");
    await waitUntil(async () => Object.keys(await keptDrafts()).length === 0, "the saved draft is removed");
  });

  it("Discard removes the draft; a draft over 24 hours old is never offered", async () => {
    await page.setViewportSize(VIEWPORTS.desktop);
    await openBuilder();
    const savedMessage = await field("Message").inputValue();
    await fillCardField("Message", `${savedMessage} Ask about decks.`);
    // The session cookie goes (expired): the next Save finds no session.
    await page.context().clearCookies();
    await saveAfterSessionEnded();
    await signInHere(OWNER);
    await restoreOffer().getByRole("button", { name: "Discard" }).click();
    await restoreOffer().waitFor({ state: "detached" });
    // The question went with its buttons: the focus is on the form's first field, not <body>.
    await waitForFocus(page, page.getByRole("textbox", { name: /^Name/ }), "the Name field");
    assert.equal(await field("Message").inputValue(), savedMessage, "the form shows the saved automation");
    assert.deepEqual(await keptDrafts(), {}, "the draft is gone");
    await page.reload();
    await page.getByRole("button", { name: "Save", exact: true }).waitFor();
    await page.waitForTimeout(500);
    assert.equal(await restoreOffer().count(), 0, "nothing is offered after Discard");

    // A draft kept 25 hours ago, as the builder keeps it: not offered, and removed.
    const session = await (await page.request.get(`${app.base}/app/api/v1/session`)).json();
    const staleKey = `${DRAFT_PREFIX}${orgId}:${session.user.id}:${automationId}`;
    await page.evaluate(
      ({ key, userId }) => {
        const values = { headline: "Stale words", message: "Old", filters: [], follow_ups: [] };
        const record = { version: 1, user_id: userId, saved_at: Date.now() - 25 * 3600_000, values };
        sessionStorage.setItem(key, JSON.stringify(record));
      },
      { key: staleKey, userId: session.user.id as string },
    );
    await page.reload();
    await page.getByRole("button", { name: "Save", exact: true }).waitFor();
    await page.waitForTimeout(500);
    assert.equal(await restoreOffer().count(), 0, "an expired draft is not offered");
    assert.notEqual(await field("Headline").inputValue(), "Stale words");
    assert.deepEqual(await keptDrafts(), {}, "the expired draft is removed");
  });

  it("a Safety change alone is kept through a session that ends, restored, and saved", async () => {
    await page.setViewportSize(VIEWPORTS.desktop);
    await openBuilder();
    const hold = page.getByRole("group", { name: "Safety" }).getByLabel("Hold window (minutes)");
    const savedHold = await hold.inputValue();
    const newHold = String(Number(savedHold) + 45);
    await hold.fill(newHold);
    await waitUntil(
      async () =>
        Object.values(await keptDrafts()).some((draft) => draft.safety?.hold_minutes === Number(newHold)),
      "the draft keeps the changed hold window",
    );
    await page.context().clearCookies();
    await saveAfterSessionEnded();
    await signInHere(OWNER);
    await restoreOffer().getByRole("button", { name: "Restore" }).click();
    await restoreOffer().waitFor({ state: "detached" });
    assert.equal(await hold.inputValue(), newHold, "the hold window is back as typed");

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Job done postcard is saved.").waitFor();
    const safety = await page.request.get(`${app.base}/app/api/v1/automations/${automationId}/safety`);
    assert.equal(safety.status(), 200, await safety.text());
    assert.equal((await safety.json()).hold_minutes, Number(newHold), "the restored hold window is saved");
    await waitUntil(async () => Object.keys(await keptDrafts()).length === 0, "the saved draft is removed");
  });

  it("a builder's read answered 401 once sign-in shows leaves sign-in its reason and its way back", async () => {
    await page.setViewportSize(VIEWPORTS.desktop);
    await openBuilder();
    const check = holdNextRequest(page, "POST", /\/card-fit$/);
    await check.start();
    await field("Message").fill(`${await field("Message").inputValue()} Ask about fences.`);
    await check.held;
    await page.context().clearCookies();
    await saveAfterSessionEnded();
    const answered = page.waitForResponse((response) => response.url().endsWith("/app/api/v1/card-fit"));
    check.release({ status: 401, code: "unauthorized", message: "Sign in to continue." });
    await answered;
    // What the app would do about the answer happens within a tick; give it time to go wrong.
    await page.waitForTimeout(500);
    assert.equal(
      new URL(page.url()).searchParams.get("redirect"),
      builderPath(),
      "still leads back to the builder",
    );
    assert.ok(await page.getByText(SESSION_ENDED).isVisible(), "the sign-in page still says why");

    await signInHere(OWNER);
    await restoreOffer().getByRole("button", { name: "Discard" }).click();
    await restoreOffer().waitFor({ state: "detached" });
  });

  it("at phone width the Preview card bar never covers a field being typed into at the bottom of the screen", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await openBuilder();
    const preview = page.getByRole("button", { name: "Preview card" });
    await preview.waitFor();
    const bar = page.locator(".phone-proof-bar");

    // Not typing: the bar lies over the Offer field brought to the bottom of the screen.
    const offer = field("Offer");
    const offerBox = page.locator(".mantine-Input-wrapper", { has: offer });
    await bringToBottom(offerBox);
    assert.ok(await preview.isVisible(), "the bar shows while nothing is typed into");
    assert.ok(
      overlap((await bar.boundingBox())!, (await offerBox.boundingBox())!),
      "the bar lies over the field at the bottom (what this test is about)",
    );

    // Reached with Tab (a keyboard's, or a phone's "next"), and typed into: the field is the field's,
    // whether the browser scrolled it above the bar or the bar stepped aside.
    const savedOffer = await offer.inputValue();
    await page
      .getByRole("button", { name: "Insert merge field" })
      .evaluate((element) => (element as HTMLElement).focus({ preventScroll: true }));
    await page.keyboard.press("Tab");
    await waitUntil(
      () => offer.evaluate((element) => element === document.activeElement),
      "Offer has the focus",
    );
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("Free gutter check");
    await settled(page);
    const typedIn = async () => {
      const box = (await offer.boundingBox())!;
      return page.evaluate(
        ({ points, id }) => points.every(([x, y]) => document.elementFromPoint(x!, y!)?.id === id),
        {
          id: (await offer.getAttribute("id"))!,
          points: [
            [box.x + 6, box.y + box.height / 2],
            [box.x + box.width - 6, box.y + box.height / 2],
          ],
        },
      );
    };
    await waitUntil(typedIn, "the field typed into is uncovered from end to end", 5_000);
    assert.equal(await offer.inputValue(), "Free gutter check");
    await page.screenshot({
      path: path.join(ARTIFACTS, "drafts-phone-bottom-field-typing-screen-phone.png"),
    });
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `axe while typing at the bottom:\n${violations.join("\n")}`);

    // Still typing, the field scrolled down under the bar: the bar steps aside.
    await bringToBottom(offerBox);
    await waitUntil(async () => !(await preview.isVisible()), "the bar steps aside", 5_000);
    await waitUntil(typedIn, "the field under the bar's place is uncovered", 5_000);

    // Scrolled up the screen: the bar is back, clear of the field.
    await page.evaluate(() => window.scrollBy(0, 300));
    await waitUntil(async () => preview.isVisible(), "the bar is back once the field is clear of it", 5_000);
    assert.ok(!overlap((await bar.boundingBox())!, (await offerBox.boundingBox())!, 8));
    await page.screenshot({ path: path.join(ARTIFACTS, "drafts-phone-field-clear-screen-phone.png") });

    // Back at the bottom, then the field is left: the bar is back.
    await bringToBottom(offerBox);
    await waitUntil(async () => !(await preview.isVisible()), "the bar steps aside again", 5_000);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await waitUntil(async () => preview.isVisible(), "the bar is back once the field is left", 5_000);
    await screens.checkScreen("drafts-phone-builder", "phone");
    // Typed back as saved: no draft is left for the next test's builder to offer.
    await offer.fill(savedOffer);
    await waitUntil(async () => Object.keys(await keptDrafts()).length === 0, "no draft is kept");
  });

  it("New mailing at phone width: Preview card shows the first card's proof; on a desktop it stands beside the form", async () => {
    const imported = await app.request("POST", "/api/v1/import/jobs", apiKey, {
      source: "jobs",
      rows: [
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
      ],
    });
    await page.setViewportSize(VIEWPORTS.phone);
    await screens.open(`/customers/mailings/new?batches=${imported.import_id}`, "New mailing");
    await page.getByText("2 cards from 2 matching rows").waitFor();
    const inFlow = page.getByRole("region", { name: "Proof of the first card" }).first();
    await inFlow.getByRole("img", { name: "First card, front" }).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.ok(
      (await inFlow.boundingBox())!.y > VIEWPORTS.phone.height,
      "the proof falls under the whole form",
    );
    const preview = page.getByRole("button", { name: "Preview card" });
    await screens.checkScreen("drafts-new-mailing", "phone");

    // Typed into, then left (the field may sit where the button floats, which steps aside while it is typed into).
    const inFlowFront = inFlow.getByRole("img", { name: "First card, front" });
    const before = await inFlowFront.getAttribute("src");
    await field("Headline").fill("Gutters again at {{street}}?");
    await waitUntil(async () => (await inFlowFront.getAttribute("src")) !== before, "the proof is redrawn");
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await preview.click();
    const sheet = page.getByRole("dialog", { name: "Card preview" });
    const front = sheet.getByRole("img", { name: "First card, front" });
    await front.waitFor();
    await settled(page);
    const frontBox = (await front.boundingBox())!;
    assert.ok(
      frontBox.y >= 0 && frontBox.y + frontBox.height <= VIEWPORTS.phone.height && frontBox.width >= 300,
      `the card's front is on the screen, nearly screen-wide: ${JSON.stringify(frontBox)}`,
    );
    await page.screenshot({ path: path.join(ARTIFACTS, "drafts-new-mailing-preview-screen-phone.png") });
    await screens.checkScreen("drafts-new-mailing-preview", "phone");
    await page.keyboard.press("Escape");
    await sheet.waitFor({ state: "detached" });
    assert.ok(
      await preview.evaluate((element) => element === document.activeElement),
      "focus is back on the button",
    );
    assert.equal(await field("Headline").inputValue(), "Gutters again at {{street}}?");

    await page.setViewportSize(VIEWPORTS.desktop);
    await settled(page);
    assert.equal(await preview.isVisible(), false, "no Preview card on a desktop");
    const name = (await field("Mailing name").boundingBox())!;
    assert.ok((await inFlow.boundingBox())!.x >= name.x + name.width, "the proof stands right of the form");
    await screens.checkScreen("drafts-new-mailing", "desktop");
  });

  it("another person signing in on the same tab is not offered the draft", async () => {
    const memberPage = await app.signInMember(orgId, MEMBER);
    await memberPage.context().close();
    await page.setViewportSize(VIEWPORTS.desktop);
    await openBuilder();
    const savedHeadline = await field("Headline").inputValue();
    await fillCardField("Headline", "Owner's unsaved words");
    await page.context().clearCookies();
    await saveAfterSessionEnded();
    const ownersDraft = Object.keys(await keptDrafts());
    assert.equal(ownersDraft.length, 1, "the owner's draft is kept");

    await signInHere(MEMBER);
    await page.getByRole("heading", { level: 1, name: "Job done postcard" }).waitFor();
    await page.getByRole("button", { name: "Save", exact: true }).waitFor();
    await page.waitForTimeout(500);
    assert.equal(await restoreOffer().count(), 0, "the member is not offered the owner's draft");
    assert.equal(await field("Headline").inputValue(), savedHeadline);
    assert.deepEqual(
      Object.keys(await keptDrafts()),
      ownersDraft,
      "the member's builder kept nothing over it",
    );
    await screens.checkScreen("drafts-other-person", "desktop");
  });
});
