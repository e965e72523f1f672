import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { queryOne, sql } from "../../src/db/database.ts";
import { envelope, sendEvent } from "../events/helpers.ts";
import { admin, call } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { pdfTextLines } from "../helpers/pdf-text.ts";
import { adminBytes, EVENT_TYPE, queuePiece } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, ownerOfNewOrg } from "./helpers.ts";

const PROFILE = {
  business_name: "Bright Roofing Co.",
  phone: "(512) 555-0100",
  website: "brightroofing.example",
  return_address: { street: "400 Industrial Way", city: "Austin", state: "TX", postal_code: "78702" },
  offer: "Free gutter check this spring",
};

async function queuedPiece(ctx: TestContext, orgId: string) {
  const row = await queryOne<{ id: string; token: string }>(
    ctx.database.db,
    sql`SELECT id, token FROM mail_pieces WHERE org_id = ${orgId}::uuid ORDER BY created_at DESC LIMIT 1`,
  );
  assert.ok(row, "the event queued a piece");
  return row;
}

describe(`the card and the landing page carry the contractor's profile (${databaseLabel})`, () => {
  let ctx: TestContext;
  let owner: Awaited<ReturnType<typeof ownerOfNewOrg>>;
  let key: string;
  let sampleId: string;
  let automationId: string;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    owner = await ownerOfNewOrg(ctx);
    const patched = await owner.browser.request("PATCH", "/app/api/v1/organization", { body: PROFILE });
    assert.equal(patched.status, 200, patched.text);
    const logo = await sharp({ create: { width: 200, height: 80, channels: 3, background: "#1d4ed8" } })
      .png()
      .toBuffer();
    const uploaded = await owner.browser.request("PUT", "/app/api/v1/organization/logo", {
      payload: logo,
      headers: { "content-type": "image/png" },
    });
    assert.equal(uploaded.status, 200, uploaded.text);
    const created = await owner.browser.request("POST", "/app/api/v1/keys", {
      body: { name: "CRM", scopes: ["events:write"] },
    });
    key = created.body.key;
    assert.equal((await sendEvent(ctx, key, envelope())).status, 202);
    const samples = await owner.browser.request("GET", "/app/api/v1/event-samples?event_type=job.completed");
    sampleId = samples.body[0].id;
    const automation = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: {
        name: "Thank-you card",
        trigger: { type: "custom_api", event_type: EVENT_TYPE },
        template: {
          headline: "Thanks, {{client_name}}",
          message: "Questions? Call {{phone}} or visit {{website}}.",
          offer: "10% off gutters with {{org_name}}",
          card_size: "4x6",
        },
      },
    });
    assert.equal(automation.status, 201, automation.text);
    automationId = automation.body.id;
  });
  after(() => ctx.close());

  test("{{phone}} and {{website}} are accepted and filled from the profile (dry run's merge preview)", async () => {
    const dryRun = await owner.browser.request("POST", "/app/api/v1/automations/dry-run", {
      body: {
        automation: { template: { message: "Call {{phone}} or see {{website}}, {{org_name}}" } },
        sample_id: sampleId,
      },
    });
    assert.equal(dryRun.status, 200, dryRun.text);
    assert.equal(
      dryRun.body.merge_preview.message,
      "Call (512) 555-0100 or see brightroofing.example, Bright Roofing Co.",
    );
  });

  test("unknown merge fields are still refused by the app API and by the operator API", async () => {
    const proof = await owner.browser.request("POST", "/app/api/v1/proofs", {
      body: { template: { message: "Fax us at {{fax}}" }, sample_id: sampleId },
    });
    assert.equal(proof.status, 422, proof.text);
    assert.match(proof.body.error.message, /unknown merge field \{\{fax\}\}.*phone, website/);
    const operator = await admin(ctx, "PUT", `/automations/${automationId}/template`, {
      headline: "Hi {{first_name}}",
    });
    assert.equal(operator.status, 422);
    assert.match(operator.body.detail, /headline: unknown merge field \{\{first_name\}\}/);
  });

  test("the printed card's back carries the business name, return address, offer, phone and logo", async () => {
    const piece = await queuePiece(ctx, { orgId: owner.orgId, key });
    const pdf = await adminBytes(ctx, `/pieces/${piece.id}/proof.pdf`);
    assert.equal(pdf.status, 200);
    const lines = pdfTextLines(pdf.bytes);
    const text = lines.join(" ").replace(/\u00a0/g, " ");
    for (const expected of [
      "Bright Roofing",
      "400 Industrial Way",
      "Austin, TX 78702",
      "10% off gutters with Bright Roofing Co.",
      "or call (512) 555-0100",
    ]) {
      assert.ok(
        text.includes(expected),
        `"${expected}" is printed; the PDF's lines: ${JSON.stringify(lines)}`,
      );
    }
    assert.ok(
      text.includes("(512) 555-0100") && text.includes("brightroofing.example"),
      "merge fields filled",
    );
    assert.equal(text.includes("free estimate"), false, "no default promise");
    // The home's picture and the logo on the front, the logo on the back: three images.
    assert.equal(pdf.bytes.toString("latin1").match(/\/Subtype \/Image/g)?.length, 3);
  });

  test("the builder's live proof draws the same back: the logo's colour is on it", async () => {
    const proof = await owner.browser.request("POST", "/app/api/v1/proofs", {
      body: { template: { message: "Call {{phone}}" }, sample_id: sampleId },
    });
    assert.equal(proof.status, 200, proof.text);
    const back = Buffer.from(proof.body.back_png.split(",")[1], "base64");
    const { data, info } = await sharp(back).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let logoPixels = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      if (data[i]! < 60 && Math.abs(data[i + 1]! - 78) < 30 && data[i + 2]! > 180) logoPixels += 1;
    }
    assert.ok(logoPixels > 500, `the logo's blue is drawn (${logoPixels} pixels)`);
  });

  test("the landing page shows the business, its logo, a call link and consent text by the phone field", async () => {
    const piece = await queuedPiece(ctx, owner.orgId);
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET status = 'mailed', mailed_at = ${ctx.clock.now().toISOString()}::timestamptz WHERE id = ${piece.id}::uuid`,
    );
    const page = await call(ctx, "GET", `/l/${piece.token}`);
    assert.equal(page.status, 200, page.text);
    const html = page.text;
    assert.match(html, /<a class="call" href="tel:5125550100">Call \(512\) 555-0100<\/a>/);
    assert.match(html, /<img src="data:image&#47;png;base64,[^"]+" alt="Bright Roofing Co. logo">/);
    assert.match(html, /<title>Bright Roofing Co.<\/title>/);
    assert.match(html, /aria-describedby="phone-consent"/);
    assert.match(
      html,
      /id="phone-consent"[^>]*>By giving your phone number you agree that Bright Roofing Co. may call/,
    );
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /img-src 'self' data:/);
    assert.doesNotMatch(csp, /script-src|https?:/);
  });

  test("the operator's template PUT carries the offer: kept when sent, cleared when left out (PUT replaces the card)", async () => {
    const readOffer = async () => {
      const read = await owner.browser.request("GET", `/app/api/v1/automations/${automationId}`);
      assert.equal(read.status, 200, read.text);
      return read.body.template.offer;
    };
    const kept = await admin(ctx, "PUT", `/automations/${automationId}/template`, {
      headline: "Thanks again, {{client_name}}",
      offer: "15% off gutters with {{org_name}}",
    });
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.template.offer, "15% off gutters with {{org_name}}");
    assert.equal(await readOffer(), "15% off gutters with {{org_name}}");
    const badOffer = await admin(ctx, "PUT", `/automations/${automationId}/template`, {
      offer: "Ask for {{fax}}",
    });
    assert.equal(badOffer.status, 422);
    assert.match(badOffer.body.detail, /offer: unknown merge field \{\{fax\}\}/);
    const replaced = await admin(ctx, "PUT", `/automations/${automationId}/template`, { headline: "Hello" });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.template.offer, null);
    assert.equal(await readOffer(), null);
  });

  test("an owner removes the logo: the next card, the proof and the landing page go without it; a member cannot", async () => {
    const member = await inviteAndAccept(ctx, owner.orgId, "member-logo@example.com", "member");
    const refused = await member.browser.request("DELETE", "/app/api/v1/organization/logo");
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await owner.browser.request("GET", "/app/api/v1/organization/logo")).status, 200, "kept");

    const removed = await owner.browser.request("DELETE", "/app/api/v1/organization/logo");
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.body.has_logo, false);
    assert.equal(removed.body.business_name, PROFILE.business_name, "the rest of the profile stays");
    assert.equal((await owner.browser.request("GET", "/app/api/v1/organization/logo")).status, 404);
    const again = await owner.browser.request("DELETE", "/app/api/v1/organization/logo");
    assert.equal(again.status, 200, "removing no logo changes nothing");
    assert.equal(again.body.logo_updated_at, removed.body.logo_updated_at);

    const piece = await queuePiece(ctx, { orgId: owner.orgId, key });
    const pdf = await adminBytes(ctx, `/pieces/${piece.id}/proof.pdf`);
    assert.equal(pdf.status, 200);
    // The home's picture alone: the logo was on the front and the back.
    assert.equal(pdf.bytes.toString("latin1").match(/\/Subtype \/Image/g)?.length, 1);
    const proof = await owner.browser.request("POST", "/app/api/v1/proofs", {
      body: { template: { message: "Call {{phone}}" }, sample_id: sampleId },
    });
    const back = Buffer.from(proof.body.back_png.split(",")[1], "base64");
    const { data, info } = await sharp(back).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let logoPixels = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      if (data[i]! < 60 && Math.abs(data[i + 1]! - 78) < 30 && data[i + 2]! > 180) logoPixels += 1;
    }
    assert.equal(logoPixels, 0, "the proof (cached with the logo before) is drawn again without it");
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET status = 'mailed', mailed_at = ${ctx.clock.now().toISOString()}::timestamptz WHERE id = ${piece.id}::uuid`,
    );
    const page = await call(ctx, "GET", `/l/${piece.token}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /<img src="data:image/);
  });
});
