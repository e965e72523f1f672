import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "../../src/db/database.ts";
import { contrastRatio } from "../../src/domain/colour-contrast.ts";
import { ADDRESS, envelope, sendEvent } from "../events/helpers.ts";
import { admin, call } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { pdfFonts, pdfTextLines } from "../helpers/pdf-text.ts";
import { queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { AppBrowser, createAppTestContext, eventually, outboxMails, ownerOfNewOrg } from "./helpers.ts";

const BUSINESS = "Ridgeline Roofing Co.";
const PROFILE = {
  business_name: BUSINESS,
  phone: "(512) 555-0100",
  brand_color: "#fde047",
  return_address: { street: "400 Industrial Way", city: "Austin", state: "TX", postal_code: "78702" },
};
const LONG_MESSAGE = Array.from({ length: 40 }, (_, i) => `word${i} of a long message`).join(" ");
/** 127 characters, no merge field: the message the proof once cut and the print did not. */
const MESSAGE_127 =
  "We replaced three roofs on your street this spring and would be glad to look at yours. Scan the code for a free estimate today.";

const noBreak = (lines: string[]) => lines.map((line) => line.replace(/\u00a0/g, " "));

describe(`a card prints exactly what the contractor approved (${databaseLabel})`, () => {
  let ctx: Awaited<ReturnType<typeof createAppTestContext>>;
  let owner: Awaited<ReturnType<typeof ownerOfNewOrg>>;
  let key: string;
  let sampleId: string;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    owner = await ownerOfNewOrg(ctx);
    const patched = await owner.browser.request("PATCH", "/app/api/v1/organization", { body: PROFILE });
    assert.equal(patched.status, 200, patched.text);
    const created = await owner.browser.request("POST", "/app/api/v1/keys", {
      body: { name: "CRM", scopes: ["events:write"] },
    });
    key = created.body.key;
    assert.equal((await sendEvent(ctx, key, envelope())).status, 202);
    const samples = await owner.browser.request("GET", "/app/api/v1/event-samples?event_type=job.completed");
    sampleId = samples.body[0].id;
  });
  after(() => ctx.close());

  let printedAutomationId: string;
  // Only the automation whose card is printed listens to job.completed; the others to an event never sent.
  const createAutomation = (template: Record<string, unknown>, eventType = "card.unused") =>
    owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Card", trigger: { type: "custom_api", event_type: eventType }, template },
    });

  test("the app API refuses (422) a message its card would cut, naming the field and how much fits", async () => {
    const refused = await createAutomation({ message: LONG_MESSAGE, card_size: "4x6" });
    assert.equal(refused.status, 422, refused.text);
    const match = /template\.message: does not fit the 4x6 card: (\d+) of its (\d+) characters fit/.exec(
      refused.body.error.message,
    );
    assert.ok(match, refused.body.error.message);
    const fitting = Number(match[1]);
    assert.equal(Number(match[2]), LONG_MESSAGE.length);
    assert.ok(fitting > 100 && fitting < LONG_MESSAGE.length, `${fitting} characters fit`);
    // What it says fits does fit.
    const saved = await createAutomation({
      message: LONG_MESSAGE.slice(0, fitting).trim(),
      card_size: "4x6",
    });
    assert.equal(saved.status, 201, saved.text);
    const patched = await owner.browser.request("PATCH", `/app/api/v1/automations/${saved.body.id}`, {
      body: { template: { message: LONG_MESSAGE } },
    });
    assert.equal(patched.status, 422, patched.text);
    assert.match(patched.body.error.message, /template\.message: does not fit/);
    // A bigger card takes the same text.
    const bigger = await createAutomation({ message: LONG_MESSAGE.slice(0, 400), card_size: "6x11" });
    assert.equal(bigger.status, 201, bigger.text);
  });

  test("the operator API refuses it too (422, the field and how much fits)", async () => {
    const saved = await createAutomation({ message: MESSAGE_127 });
    assert.equal(saved.status, 201, saved.text);
    const refused = await admin(ctx, "PUT", `/automations/${saved.body.id}/template`, {
      headline:
        "A very long headline that goes on and on about the roof of {{street}}, its gutters, its siding and its windows too",
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.body.detail, /^headline: does not fit the 4x6 card: \d+ of its \d+ characters fit/);
    const fine = await admin(ctx, "PUT", `/automations/${saved.body.id}/template`, { message: MESSAGE_127 });
    assert.equal(fine.status, 200, fine.text);
  });

  test("text the card's typeface cannot print (emoji, CJK) is refused in words, in the app and the operator API", async () => {
    const inApp = await createAutomation({ message: "Thanks {{client_name}} 🏡" });
    assert.equal(inApp.status, 422, inApp.text);
    assert.match(JSON.stringify(inApp.body), /the card's typeface cannot print 🏡/);
    const saved = await createAutomation({ message: MESSAGE_127 });
    const operator = await admin(ctx, "PUT", `/automations/${saved.body.id}/template`, {
      headline: "東京 roofs",
    });
    assert.equal(operator.status, 422, operator.text);
    assert.match(operator.body.detail, /^headline: the card's typeface cannot print 東 京/);
    const fit = await owner.browser.request("POST", "/app/api/v1/card-fit", {
      body: { template: { message: "Thanks {{client_name}} 🏡" } },
    });
    assert.equal(fit.status, 422, "the live check does not call refused text a fit");
    assert.match(JSON.stringify(fit.body), /the card's typeface cannot print 🏡/);
  });

  test("the builder's live check answers the same rule, and the default templates fit", async () => {
    const fit = await owner.browser.request("POST", "/app/api/v1/card-fit", {
      body: { template: { message: LONG_MESSAGE, offer: "x ".repeat(90) } },
    });
    assert.equal(fit.status, 200, fit.text);
    assert.equal(fit.body.fits, false);
    assert.deepEqual(
      fit.body.overflow.map((o: { field: string }) => o.field),
      ["message", "offer"],
    );
    for (const audience of [undefined, { type: "neighbours", count: 10, radius_m: 400 }]) {
      const defaults = await owner.browser.request("POST", "/app/api/v1/card-fit", {
        body: {
          template: { offer: "Free inspection and 10% off a repair this month" },
          ...(audience ? { audience } : {}),
        },
      });
      assert.equal(defaults.status, 200, defaults.text);
      assert.deepEqual(defaults.body, { fits: true, overflow: [] }, JSON.stringify(audience));
    }
  });

  test("the builder's proof and the print file are the same card: their lines of text match", async () => {
    const template = {
      headline: "Fresh roofs on {{street}}",
      message: MESSAGE_127,
      offer: "Free gutter check",
    };
    const automation = await createAutomation(template, "job.completed");
    assert.equal(automation.status, 201, automation.text);
    printedAutomationId = automation.body.id;
    const proof = await owner.browser.request("POST", "/app/api/v1/proofs", {
      body: { template, sample_id: sampleId },
    });
    assert.equal(proof.status, 200, proof.text);
    // The same record as the sample the proof was drawn from (the first event's).
    const piece = await queuePiece(ctx, { orgId: owner.orgId, key }, { ...ADDRESS, client_name: "Jane Doe" });
    const dataDir = tempDataDir();
    await runPipeline(ctx, { dataDir, printProvider: "local" });
    const outbox = path.join(dataDir, "outbox", piece.id);
    const front = readFileSync(path.join(outbox, "front.pdf"));
    const back = readFileSync(path.join(outbox, "back.pdf"));
    assert.ok(
      proof.body.back_text.join(" ").includes("free estimate today."),
      "the whole message is on the proof",
    );
    assert.deepEqual(noBreak(pdfTextLines(back)), noBreak(proof.body.back_text));
    assert.deepEqual(noBreak(pdfTextLines(front)), noBreak(proof.body.front_text));

    // Every font in every print file is embedded, as a subset; none is only named (Helvetica).
    for (const pdf of [front, back]) {
      const fonts = pdfFonts(pdf);
      assert.ok(fonts.length >= 2, JSON.stringify(fonts));
      for (const font of fonts) {
        assert.ok(font.embedded && font.subset, `${font.name} is embedded as a subset`);
        assert.doesNotMatch(font.name, /Helvetica/);
      }
    }
    // The phone is whole on one line, on both sides.
    for (const lines of [pdfTextLines(front), pdfTextLines(back)]) {
      assert.ok(
        noBreak(lines).some((line) => line.includes("(512) 555-0100")),
        JSON.stringify(lines),
      );
    }
    // The card's front carries the business, not only its back.
    assert.ok(pdfTextLines(front).includes(BUSINESS));
  });

  test("a name longer than the card was measured with prints shortened by whole words, the message whole", async () => {
    const longMessage = `{{client_name}}, ${MESSAGE_127} ${LONG_MESSAGE}`.slice(0, 1000);
    const refused = await owner.browser.request("PATCH", `/app/api/v1/automations/${printedAutomationId}`, {
      body: { template: { message: longMessage } },
    });
    assert.equal(refused.status, 422, refused.text);
    const fitting = Number(/(\d+) of its \d+ characters fit/.exec(refused.body.error.message)?.[1]);
    // The message at the limit: every whole word that fits with the longest name the rule measures.
    const atTheLimit = longMessage.slice(0, longMessage.lastIndexOf(" ", fitting)).trim();
    const saved = await owner.browser.request("PATCH", `/app/api/v1/automations/${printedAutomationId}`, {
      body: { template: { message: atTheLimit } },
    });
    assert.equal(saved.status, 200, saved.text);

    const name = "Maximilian Alexander Vandermeer-Lowe Fitzgerald-Montgomery III";
    // A home of its own: the earlier cards' home was mailed a moment ago.
    const home = { ...ADDRESS, street: "48 Birch Hollow Rd" };
    const piece = await queuePiece(ctx, { orgId: owner.orgId, key }, { ...home, client_name: name });
    const dataDir = tempDataDir();
    await runPipeline(ctx, { dataDir, printProvider: "local" });
    const back = noBreak(pdfTextLines(readFileSync(path.join(dataDir, "outbox", piece.id, "back.pdf"))));
    const printed = back.join(" ");
    const lastWord = atTheLimit.split(" ").at(-1) as string;
    assert.ok(printed.includes(`${lastWord} `) || printed.includes(`${lastWord}`), printed);
    assert.equal(printed.includes("…"), false, printed);
    const greeted = /(Maximilian[^,]*), We replaced/.exec(printed)?.[1];
    assert.ok(greeted && name.startsWith(greeted) && greeted.length < name.length, printed);
    // The address block keeps the whole name: it is the post office's, not the message's.
    assert.ok(
      back.some((line) => line.includes("Fitzgerald-Montgomery III")),
      printed,
    );
  });

  test("every page and email names the business, never the organization's own name", async () => {
    const piece = await queuePiece(ctx, { orgId: owner.orgId, key });
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET status = 'mailed', mailed_at = ${ctx.clock.now().toISOString()}::timestamptz WHERE id = ${piece.id}::uuid`,
    );
    const pages = [
      await call(ctx, "GET", `/l/${piece.token}`),
      await call(ctx, "GET", `/l/${piece.token}/stop`),
    ];
    const browser = new AppBrowser(ctx);
    const thanks = await ctx.app.inject({
      method: "POST",
      url: `/l/${piece.token}`,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
      payload: "first_name=Jo&last_name=Lee&email=jo%40example.com",
    });
    const stopped = await ctx.app.inject({
      method: "POST",
      url: `/l/${piece.token}/stop`,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
      payload: "confirm=yes",
    });
    for (const page of [...pages.map((p) => p.text), thanks.body, stopped.body]) {
      assert.ok(page.includes(BUSINESS), page.slice(0, 400));
      assert.equal(page.includes("Acme Roofing"), false, "the organization's own name is not shown");
    }
    assert.match(stopped.body, new RegExp(`${BUSINESS} will send no more cards`));

    // The invitation and the password reset email.
    const invited = await admin(ctx, "POST", `/orgs/${owner.orgId}/invitations`, {
      email: "crew@example.com",
      role: "member",
    });
    assert.equal(invited.status, 201, invited.text);
    const reset = await browser.request("POST", "/app/api/v1/auth/request-password-reset", {
      body: { email: owner.email },
    });
    assert.equal(reset.status, 200, reset.text);
    const mails = await eventually(() => {
      const all = outboxMails(ctx.dataDir);
      return all.some((mail) => mail.includes(`To: ${owner.email}`) && mail.includes("reset-password"))
        ? all
        : undefined;
    });
    const invitation = mails.find((mail) => mail.includes("To: crew@example.com"));
    const resetMail = mails.find(
      (mail) => mail.includes(`To: ${owner.email}`) && mail.includes("reset-password"),
    );
    for (const mail of [invitation, resetMail]) {
      assert.ok(mail?.includes(BUSINESS), mail);
      assert.equal(mail!.includes("Acme Roofing"), false);
    }
  });

  test("the brand colour is the landing page's, with its contrast computed, and the page shows the card's words", async () => {
    const patched = await owner.browser.request("PATCH", `/app/api/v1/automations/${printedAutomationId}`, {
      body: { template: { headline: "New roofs for {{street}}", offer: "Free gutter check" } },
    });
    assert.equal(patched.status, 200, patched.text);
    const piece = await queuePiece(ctx, { orgId: owner.orgId, key });
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET status = 'mailed', mailed_at = ${ctx.clock.now().toISOString()}::timestamptz WHERE id = ${piece.id}::uuid`,
    );
    const page = await call(ctx, "GET", `/l/${piece.token}`);
    assert.equal(page.status, 200, page.text);
    // #fde047 (a light yellow) takes black text on buttons; headings darken it until they read.
    const button = /button,\.call\{background:(#[0-9a-f]{6});color:(#[0-9a-f]{6})\}/.exec(page.text);
    assert.ok(button, "the page's buttons are in the brand colour");
    assert.equal(button[1], "#fde047");
    assert.ok(contrastRatio(button[1]!, button[2]!) >= 4.5);
    const heading = /h1,\.mailed \.offer\{color:(#[0-9a-f]{6})\}/.exec(page.text);
    assert.ok(heading);
    assert.ok(contrastRatio(heading[1]!, "#f5f7fa") >= 4.5, `${heading[1]} reads on the page`);
    assert.match(
      page.text,
      /<p class="headline">[^<]*New roofs for [^<]+<\/p><p class="offer">Free gutter check<\/p>/,
    );
  });
});
