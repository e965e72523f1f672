import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { admin } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";

const DAY_MS = 86_400_000;
const FORM = "application/x-www-form-urlencoded";

describe(`mail safety: "Stop mail to this address" on the landing page (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };

  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  const page = (
    method: "GET" | "POST",
    url: string,
    headers: Record<string, string> = {},
    payload?: string,
  ) => ctx.app.inject({ method, url, headers, payload });

  async function mailedPiece() {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org);
    await runPipeline(ctx, local);
    return { org, piece };
  }

  test("the page links to a confirm step; confirming puts the home on the do-not-mail list and the next card is suppressed", async () => {
    const { org, piece } = await mailedPiece();
    const landing = await page("GET", `/l/${piece.token}`);
    assert.equal(landing.statusCode, 200);
    assert.match(
      landing.body,
      new RegExp(`<a href="&#47;l&#47;${piece.token}&#47;stop"[^>]*>Stop mail to this address</a>`),
    );

    const confirm = await page("GET", `/l/${piece.token}/stop`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /<form class="card" method="post"/);
    assert.match(confirm.body, /Stop mail to this address\?/);
    // Opening the link stops nothing.
    assert.deepEqual((await admin(ctx, "GET", `/orgs/${org.orgId}/do-not-mail`)).body.do_not_mail, []);

    clock.advance(60_000);
    const done = await page(
      "POST",
      `/l/${piece.token}/stop`,
      { "content-type": FORM, origin: "http://porchlight.test", "sec-fetch-site": "same-origin" },
      "confirm=yes",
    );
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /will send no more cards to <strong>412 Maple Ave<\/strong>/);

    const list = await admin(ctx, "GET", `/orgs/${org.orgId}/do-not-mail`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.do_not_mail, [
      {
        normalized_address: "412 MAPLE AVE, SPRINGFIELD IL 62704",
        reason: "opted_out",
        piece_id: piece.id,
        created_at: clock.now().toISOString(),
      },
    ]);

    // Past the frequency window, so only the opt-out can stop it.
    clock.advance(40 * DAY_MS);
    const next = await queuePiece(ctx, org, { street: "412 Maple Ave", city: "Springfield", state: "IL" });
    await runPipeline(ctx, local);
    const suppressed = await admin(ctx, "GET", `/pieces/${next.id}`);
    assert.equal(suppressed.body.status, "suppressed");
    assert.match(suppressed.body.status_reason, /opted out of mail from its landing page/);
    assert.equal((await page("GET", `/l/${next.token}`)).statusCode, 404, "a suppressed piece has no page");
  });

  test("a browser posts the confirm form with Origin: null (the page sends no referrer) and it counts", async () => {
    const { org, piece } = await mailedPiece();
    // Over https a browser adds Sec-Fetch-Site: same-origin; over plain http it sends none.
    const confirmed = await page(
      "POST",
      `/l/${piece.token}/stop`,
      { "content-type": FORM, origin: "null" },
      "confirm=yes",
    );
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    const listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/do-not-mail`)).body.do_not_mail;
    assert.deepEqual(
      listed.map((entry: { piece_id: string }) => entry.piece_id),
      [piece.id],
    );
  });

  test("a cross-site post, a non-form post or a missing confirmation opts nothing out", async () => {
    const { org, piece } = await mailedPiece();
    const url = `/l/${piece.token}/stop`;
    const crossOrigin = await page(
      "POST",
      url,
      { "content-type": FORM, origin: "https://evil.example" },
      "confirm=yes",
    );
    assert.equal(crossOrigin.statusCode, 403);
    assert.match(crossOrigin.headers["content-type"] as string, /^text\/html/);
    const crossSite = await page(
      "POST",
      url,
      { "content-type": FORM, "sec-fetch-site": "cross-site" },
      "confirm=yes",
    );
    assert.equal(crossSite.statusCode, 403);
    const opaqueCrossSite = await page(
      "POST",
      url,
      { "content-type": FORM, origin: "null", "sec-fetch-site": "cross-site" },
      "confirm=yes",
    );
    assert.equal(opaqueCrossSite.statusCode, 403, "a sandboxed cross-site frame posts Origin: null too");
    const json = await page("POST", url, { "content-type": "application/json" }, '{"confirm":"yes"}');
    assert.equal(json.statusCode, 403);
    const unconfirmed = await page("POST", url, { "content-type": FORM }, "confirm=no");
    assert.equal(unconfirmed.statusCode, 422);
    assert.deepEqual((await admin(ctx, "GET", `/orgs/${org.orgId}/do-not-mail`)).body.do_not_mail, []);

    const unknown = await page("POST", "/l/AAAAAAAAAAAAAAAA/stop", { "content-type": FORM }, "confirm=yes");
    assert.equal(unknown.statusCode, 404);
  });
});
