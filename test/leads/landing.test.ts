import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { escapeHtml } from "../../src/http/landing-html.ts";
import { MAX_FORM_PAIRS, parseFormBody } from "../../src/http/landing-pages.ts";
import { LEAD_FORM_BODY_LIMIT } from "../../src/landing-pages/routes.ts";
import { admin, call, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  addLeadField,
  createLeadsContext,
  type LeadsTestContext,
  mailOnePiece,
  subscribe,
} from "./leads-helpers.ts";

const ATTACK = `"><script>alert(1)</script><img src=x onerror=alert(2)>'\`&`;

function formBody(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const item of ([] as string[]).concat(value)) params.append(key, item);
  }
  return params.toString();
}

function postForm(ctx: TestContext, token: string, fields: Record<string, string | string[]>) {
  return call(ctx, "POST", `/l/${token}`, {
    payload: formBody(fields),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

/** No markup from a submitted value may survive unescaped anywhere in the page. */
function assertNoInjectedMarkup(html: string) {
  assert.equal(html.includes("<script"), false, "a script tag leaked");
  assert.equal(html.includes("<img"), false, "an img tag leaked");
  assert.equal(html.includes(ATTACK), false, "a submitted value appeared unescaped");
  assert.equal(html.includes(`"><script`), false, "an attribute was broken out of");
}

function assertSecureHtml(response: { headers: Record<string, unknown> }) {
  const csp = String(response.headers["content-security-policy"]);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /style-src 'nonce-[A-Za-z0-9+/=]+'/);
  assert.match(csp, /form-action 'self'/);
  assert.doesNotMatch(csp, /script-src|https?:/);
  assert.equal(response.headers["x-content-type-options"], "nosniff");
  assert.equal(response.headers["referrer-policy"], "no-referrer");
  assert.match(String(response.headers["content-type"]), /^text\/html/);
}

describe(`landing pages and lead capture (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  const clock = fixedClock("2026-11-22T12:00:00Z");
  before(async () => {
    ctx = await createLeadsContext({
      clock,
      hosts: { "crm.example": ["93.184.216.34"] },
    });
  });
  after(async () => ctx.close());

  async function landingLeads(orgId: string): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      ctx.database.db,
      sql`SELECT id FROM leads WHERE org_id = ${orgId} AND source = 'landing_page' ORDER BY created_at, id`,
    );
    return rows.map((row) => row.id);
  }

  async function deliveryJobs(orgId: string): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      ctx.database.db,
      sql`SELECT count(*)::int AS n FROM jobs WHERE org_id = ${orgId} AND kind = 'deliver_lead'`,
    );
    return row!.n;
  }

  it("refuses a multiselect option holding a semicolon (choices are joined with semicolons)", async () => {
    const org = await createOrg(ctx);
    const refused = await admin(ctx, "POST", `/orgs/${org.orgId}/lead-fields`, {
      field_id: "services",
      label: "Services",
      type: "multiselect",
      options: ["Gutters", "Roof; repair"],
    });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.body.detail, /^options\[1\]: a multiselect option may not contain ";"/);
    const select = await admin(ctx, "POST", `/orgs/${org.orgId}/lead-fields`, {
      field_id: "budget",
      label: "Budget",
      type: "select",
      options: ["<5k; flexible"],
    });
    assert.equal(select.status, 201, "one choice of a select is never split");
  });

  it("serves a personalized, self-contained page with the org's custom fields", async () => {
    const org = await createOrg(ctx, { name: "Acme Roofing" });
    await addLeadField(ctx, org.orgId, {
      field_id: "issues",
      label: "What needs fixing?",
      type: "multiselect",
      options: ["Roof", "Gutters"],
    });
    await addLeadField(ctx, org.orgId, {
      field_id: "best_time",
      label: "Best time",
      type: "select",
      options: ["Morning", "Evening"],
    });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const page = await call(ctx, "GET", `/l/${token}`);
    assert.equal(page.status, 200);
    assertSecureHtml(page);
    // The first name and the street line only: the URL is all a stranger needs to open the page.
    assert.match(page.text, /Hi Homer,/);
    assert.match(page.text, /742 Evergreen Terrace/);
    assert.doesNotMatch(page.text, /Simpson|Springfield|62704/);
    assert.match(page.text, /Acme Roofing/);
    assert.match(page.text, /name="viewport"/);
    for (const name of [
      "first_name",
      "last_name",
      "email",
      "phone",
      "message",
      "custom_issues",
      "custom_best_time",
    ]) {
      assert.match(page.text, new RegExp(`name="${name}"`), name);
    }
    assert.doesNotMatch(page.text, /<script|<link|https?:\/\//);
    assert.ok(
      page.text.includes(`action="${escapeHtml(`/l/${token}`)}"`),
      "the form posts back to its own page",
    );
    const nonce = /'nonce-([^']+)'/.exec(String(page.headers["content-security-policy"]))![1]!;
    // The nonce is random base64 ('+', '/', '='): compare the attribute as the page escapes it.
    assert.ok(
      page.text.includes(`<style nonce="${escapeHtml(nonce)}">`),
      "the inline style carries the nonce",
    );
  });

  it("answers the browser's /favicon.ico with an empty icon, not a 404", async () => {
    const icon = await call(ctx, "GET", "/favicon.ico");
    assert.equal(icon.status, 204);
    assert.equal(icon.text, "");
  });

  it("answers an unknown token with a 404 page", async () => {
    const missing = await call(ctx, "GET", "/l/unknownTokenValue123");
    assert.equal(missing.status, 404);
    assertSecureHtml(missing);
    assert.match(missing.text, /does not exist/);
    const posted = await call(ctx, "POST", "/l/unknownTokenValue123", {
      body: { first_name: "A", last_name: "B", email: "a@example.com" },
    });
    assert.equal(posted.status, 404);
    assert.ok(posted.headers["content-security-policy"]);
  });

  it("serves the page with a trailing slash, and answers any other path under /l/ with the not-found page", async () => {
    const org = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId);
    // QR scanner apps add a trailing slash: the page itself, its form posting to the canonical path.
    const slashed = await call(ctx, "GET", `/l/${token}/`);
    assert.equal(slashed.status, 200, slashed.text);
    assertSecureHtml(slashed);
    assert.match(slashed.text, /Hi Homer,/);
    assert.ok(slashed.text.includes(`action="${escapeHtml(`/l/${token}`)}"`));
    const posted = await call(ctx, "POST", `/l/${token}/`, {
      payload: formBody({ first_name: "Patty", last_name: "Bouvier", email: "patty@example.com" }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(posted.status, 200, posted.text);
    assert.match(posted.text, /Thank you/);

    for (const path of [`/l/${token}/x`, `/l//${token}`, `/l/${token}//`, "/l/", "/l/?x=1"]) {
      const page = await call(ctx, "GET", path);
      assert.equal(page.status, 404, path);
      assertSecureHtml(page);
      assert.equal(page.headers["cache-control"], "no-store", path);
      assert.match(page.text, /does not exist/, path);
      const form = await call(ctx, "POST", path, {
        payload: "first_name=A%E", // unreadable, but the missing page is what it is told
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      assert.equal(form.status, 404, path);
      assertSecureHtml(form);
      assert.match(form.text, /does not exist/, path);
      const json = await call(ctx, "POST", path, { body: { first_name: "A" } });
      assert.equal(json.status, 404, path);
      assert.equal(json.body.error, "not_found", path);
    }
    const head = await ctx.app.inject({ method: "HEAD", url: `/l/${token}/x` });
    assert.equal(head.statusCode, 404);
    assert.match(String(head.headers["content-type"]), /^text\/html/);
    // A token too long for any page stays 414, wherever the path goes on.
    for (const path of [`/l/${"x".repeat(200)}/`, `/l/${"x".repeat(200)}/more`]) {
      const tooLong = await call(ctx, "GET", path);
      assert.equal(tooLong.status, 414, path);
      assertSecureHtml(tooLong);
      assert.match(tooLong.text, /does not exist/);
    }
  });

  it("captures a JSON lead with the piece's campaign, address, and flattened custom fields", async () => {
    const org = await createOrg(ctx);
    await addLeadField(ctx, org.orgId, {
      field_id: "issues",
      label: "Issues",
      type: "multiselect",
      options: ["Roof", "Gutters", "Siding"],
    });
    await addLeadField(ctx, org.orgId, { field_id: "owner", label: "I own the home", type: "checkbox" });
    const { token, campaignId } = await mailOnePiece(ctx, org.orgId);
    const created = await call(ctx, "POST", `/l/${token}`, {
      body: {
        first_name: " Homer ",
        last_name: "Simpson",
        email: "homer@example.com",
        message: "Leaky roof\nand gutters",
        custom_fields: { issues: ["Roof", "Gutters"], owner: "yes" },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.lead_id, /^[0-9a-f-]{36}$/);
    const [lead] = (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads;
    assert.equal(lead.id, created.body.lead_id);
    assert.equal(lead.first_name, "Homer");
    assert.equal(lead.message, "Leaky roof\nand gutters");
    assert.equal(lead.campaign_id, campaignId);
    assert.equal(lead.street, "742 Evergreen Terrace");
    assert.equal(lead.latitude, null);
    assert.deepEqual(lead.custom_fields, [
      { field_id: "issues", field_label: "Issues", type: "multiselect", value: ["Roof", "Gutters"] },
      { field_id: "owner", field_label: "I own the home", type: "checkbox", value: ["yes"] },
    ]);
    assert.equal(lead.custom_issues, "Roof;Gutters");
    assert.equal(lead.custom_owner, "yes");
  });

  it("refuses invalid JSON submissions with a 422 naming the field", async () => {
    const org = await createOrg(ctx);
    await addLeadField(ctx, org.orgId, {
      field_id: "color",
      label: "Color",
      type: "select",
      options: ["Red"],
    });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ last_name: "B", email: "a@example.com" }, /^first_name: is required/],
      // Only invisible characters (zero-width space, bidi override, BOM, Hangul filler): no name.
      [{ first_name: "\u200b", last_name: "B", email: "a@example.com" }, /^first_name: is required/],
      [{ first_name: "A", last_name: "\u202e", email: "a@example.com" }, /^last_name: is required/],
      [
        { first_name: "\u200b\u00a0\ufeff\u2060\u3164", last_name: "B", email: "a@example.com" },
        /^first_name: is required/,
      ],
      [{ first_name: "A", last_name: "B" }, /email or a phone/],
      [{ first_name: "A", last_name: "B", email: "not-an-email" }, /^email: /],
      [{ first_name: "A", last_name: "B", phone: "call me" }, /^phone: /],
      [
        { first_name: "A".repeat(101), last_name: "B", email: "a@example.com" },
        /^first_name: must be at most 100/,
      ],
      [{ first_name: "A", last_name: "B", email: "a@example.com", message: "m".repeat(2001) }, /^message: /],
      [
        { first_name: "A", last_name: "B", email: "a@example.com", custom_fields: { color: "Blue" } },
        /custom_fields\.color/,
      ],
      [
        { first_name: "A", last_name: "B", email: "a@example.com", custom_fields: { nope: "x" } },
        /custom_fields\.nope/,
      ],
      [{ first_name: "A\u0000", last_name: "B", email: "a@example.com" }, /^first_name: must be well-formed/],
      [{ first_name: "A\u0007", last_name: "B", email: "a@example.com" }, /control characters/],
      [
        { first_name: "A", last_name: "B", email: "a@example.com", custom_fields: { color: "x\ud800" } },
        /^custom_fields\.color: must be well-formed/,
      ],
      [{ first_name: 1, last_name: "B", email: "a@example.com" }, /first_name/],
      [{ first_name: "A", last_name: "B", email: "a@example.com", extra: "x" }, /extra/],
      // Flattened like the form's names: validated the same (they used to be dropped silently).
      [
        { first_name: "A", last_name: "B", email: "a@example.com", custom_color: "Blue" },
        /custom_fields\.color/,
      ],
      [{ first_name: "A", last_name: "B", email: "a@example.com", custom_nope: "x" }, /custom_fields\.nope/],
    ];
    for (const [body, detail] of cases) {
      const response = await call(ctx, "POST", `/l/${token}`, { body });
      assert.equal(response.status, 422, JSON.stringify(body));
      assert.equal(response.body.error, "invalid_payload");
      assert.match(response.body.detail, detail, JSON.stringify(body));
    }
    const leads = (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads;
    assert.equal(leads[0].test, true);
    const flat = await call(ctx, "POST", `/l/${token}`, {
      body: { first_name: "A", last_name: "B", email: "a@example.com", custom_color: "Red" },
    });
    assert.equal(flat.status, 201, flat.text);
    const [lead] = (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads;
    assert.equal(lead.custom_color, "Red");
    // A joiner inside a visible name is part of it (Persian "Ali\u200cReza"), not an empty name.
    const joined = await call(ctx, "POST", `/l/${token}`, {
      body: { first_name: "Ali\u200cReza", last_name: "B", email: "a@example.com" },
    });
    assert.equal(joined.status, 201, joined.text);
    const invisible = await postForm(ctx, token, {
      first_name: "\u202e",
      last_name: "B",
      email: "a@example.com",
    });
    assert.equal(invisible.status, 422);
    assert.match(invisible.text, /id="first_name-problem" class="problem">Please enter your first name\./);
  });

  it("validates a custom field sent both nested and flattened, and refuses it when the two differ", async () => {
    const org = await createOrg(ctx);
    await addLeadField(ctx, org.orgId, {
      field_id: "budget",
      label: "Budget",
      type: "select",
      options: ["<5k", "5-10k"],
    });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const lead = { first_name: "Ned", last_name: "Flanders", email: "ned@example.com" };
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { custom_budget: "NOT AN OPTION", custom_fields: { budget: "<5k" } },
        /^custom_fields\.budget: "NOT AN OPTION" is not one of the options/,
      ],
      [
        { custom_budget: "<5k", custom_fields: { budget: "NOT AN OPTION" } },
        /^custom_fields\.budget: "NOT AN OPTION" is not one of the options/,
      ],
      [
        { custom_budget: "5-10k", custom_fields: { budget: "<5k" } },
        /^custom_fields\.budget: sent as custom_budget and in custom_fields with different values/,
      ],
      [
        { custom_budget: "", custom_fields: { budget: "<5k" } },
        /^custom_fields\.budget: sent as custom_budget and in custom_fields with different values/,
      ],
      [{ custom_nope: "x", custom_fields: { budget: "<5k" } }, /^custom_fields\.nope: is not a field/],
    ];
    for (const [custom, detail] of cases) {
      const response = await call(ctx, "POST", `/l/${token}`, { body: { ...lead, ...custom } });
      assert.equal(response.status, 422, JSON.stringify(custom));
      assert.equal(response.body.error, "invalid_payload");
      assert.match(response.body.detail, detail, JSON.stringify(custom));
    }
    const polled = await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key });
    assert.equal(polled.body.leads[0].test, true, "a refused submission stored no lead");
    // The same value both ways is one value, not a conflict.
    const same = await call(ctx, "POST", `/l/${token}`, {
      body: { ...lead, custom_budget: " <5k ", custom_fields: { budget: "<5k" } },
    });
    assert.equal(same.status, 201, same.text);
    const [stored] = (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads;
    assert.equal(stored.custom_budget, "<5k");
  });

  it("answers an identical resubmission with the lead already captured, and queues no second delivery", async () => {
    const org = await createOrg(ctx);
    await addLeadField(ctx, org.orgId, {
      field_id: "issues",
      label: "Issues",
      type: "multiselect",
      options: ["Roof", "Gutters"],
    });
    const { token } = await mailOnePiece(ctx, org.orgId);
    assert.equal((await subscribe(ctx, org.key, "https://crm.example/hooks/leads")).status, 200);
    const lead = {
      first_name: "Maude",
      last_name: "Flanders",
      email: "maude@example.com",
      message: "The gutters",
      custom_fields: { issues: ["Roof", "Gutters"] },
    };
    const first = await call(ctx, "POST", `/l/${token}`, { body: lead });
    assert.equal(first.status, 201, first.text);
    // Hours later, trimmed alike and the multiselect in another order: the same lead, same answer.
    clock.advance(6 * 3_600_000);
    const again = await call(ctx, "POST", `/l/${token}`, {
      body: { ...lead, first_name: " Maude ", custom_fields: { issues: ["Gutters", "Roof"] } },
    });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body, { lead_id: first.body.lead_id });
    // The form posting the same content gets its thank-you page, and still no second lead.
    const form = await postForm(ctx, token, {
      first_name: "Maude",
      last_name: "Flanders",
      email: "maude@example.com",
      message: "The gutters",
      custom_issues: ["Roof", "Gutters"],
    });
    assert.equal(form.status, 200, form.text);
    assert.match(form.text, /Thank you/);
    assert.deepEqual(await landingLeads(org.orgId), [first.body.lead_id]);
    assert.equal(await deliveryJobs(org.orgId), 1);

    // Anything changed is a new lead, delivered again.
    const changed = await call(ctx, "POST", `/l/${token}`, { body: { ...lead, message: "The gutters!" } });
    assert.equal(changed.status, 201, changed.text);
    assert.notEqual(changed.body.lead_id, first.body.lead_id);
    assert.equal((await landingLeads(org.orgId)).length, 2);
    assert.equal(await deliveryJobs(org.orgId), 2);
    // The same content on another piece (another card) is another lead.
    const other = await mailOnePiece(ctx, org.orgId);
    const elsewhere = await call(ctx, "POST", `/l/${other.token}`, { body: lead });
    assert.notEqual(elsewhere.body.lead_id, first.body.lead_id);
  });

  it("captures one lead from two identical posts sent at the same moment (a double click)", async () => {
    const org = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId);
    await subscribe(ctx, org.key, "https://crm.example/hooks/one");
    await subscribe(ctx, org.key, "https://crm.example/hooks/two");
    const lead = { first_name: "Rod", last_name: "Flanders", email: "rod@example.com" };
    const form = { first_name: "Rod", last_name: "Flanders", email: "rod@example.com" };
    const [a, b, c, d] = await Promise.all([
      call(ctx, "POST", `/l/${token}`, { body: lead }),
      call(ctx, "POST", `/l/${token}`, { body: lead }),
      postForm(ctx, token, form),
      postForm(ctx, token, form),
    ]);
    assert.deepEqual([a.status, b.status, c.status, d.status], [201, 201, 200, 200], a.text + b.text);
    assert.equal(a.body.lead_id, b.body.lead_id);
    assert.deepEqual(await landingLeads(org.orgId), [a.body.lead_id]);
    assert.equal(await deliveryJobs(org.orgId), 2, "one delivery per subscription");
  });

  it("takes a form whose custom field is named like an Object.prototype member (constructor)", async () => {
    const org = await createOrg(ctx);
    await addLeadField(ctx, org.orgId, { field_id: "constructor", label: "Builder", type: "text" });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const without = await call(ctx, "POST", `/l/${token}`, {
      body: { first_name: "A", last_name: "B", email: "a@example.com" },
    });
    assert.equal(without.status, 201, without.text);
    const withIt = await call(ctx, "POST", `/l/${token}`, {
      body: {
        first_name: "C",
        last_name: "D",
        email: "c@example.com",
        custom_fields: { constructor: "Bob" },
      },
    });
    assert.equal(withIt.status, 201, withIt.text);
  });

  it("takes the HTML form to a thank-you page, and shows the form again with the message when refused", async () => {
    const org = await createOrg(ctx, { name: "Form Co" });
    await addLeadField(ctx, org.orgId, {
      field_id: "issues",
      label: "Issues",
      type: "checkbox",
      options: ["Roof", "Gutters"],
    });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const refused = await postForm(ctx, token, { first_name: "Bart", last_name: "Simpson", email: "bad" });
    assert.equal(refused.status, 422);
    assertSecureHtml(refused);
    assert.match(refused.text, /role="alert"><strong>Your details were not sent yet\.<\/strong>/);
    assert.match(refused.text, /id="email-problem" class="problem">Please enter your whole email address/);
    assert.match(
      refused.text,
      /id="email"[^>]* aria-invalid="true" aria-describedby="email-problem reach-hint" autofocus>/,
    );
    assert.match(refused.text, /value="Bart"/);

    const accepted = await postForm(ctx, token, {
      first_name: "Bart",
      last_name: "Simpson",
      phone: "(217) 555-0101",
      custom_issues: ["Roof", "Gutters"],
    });
    assert.equal(accepted.status, 200, accepted.text);
    assertSecureHtml(accepted);
    assert.match(accepted.text, /Thank you/);
    const [lead] = (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads;
    assert.equal(lead.phone, "(217) 555-0101");
    assert.equal(lead.custom_issues, "Roof;Gutters");
  });

  it("remembers in this browser that its form reached the business, so a page shown again does not say 'not sent'", async () => {
    const org = await createOrg(ctx, { name: "Form Co" });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const fresh = await call(ctx, "GET", `/l/${token}`);
    assert.doesNotMatch(fresh.text, /class="sent"/);

    const accepted = await postForm(ctx, token, {
      first_name: "Lisa",
      last_name: "Simpson",
      phone: "(217) 555-0102",
    });
    assert.equal(accepted.status, 200, accepted.text);
    const cookie = String(accepted.headers["set-cookie"]);
    assert.equal(cookie, `details_sent=1; Path=/l/${token}; Max-Age=2592000; HttpOnly; SameSite=Lax`);
    const sent = { cookie: "details_sent=1" };

    const again = await call(ctx, "GET", `/l/${token}`, { headers: sent });
    assert.equal(again.status, 200);
    assert.match(
      again.text,
      /role="status"><strong>Your details reached Form Co\.<\/strong> They will be in touch\./,
    );
    assert.doesNotMatch(again.text, /not sent yet/);

    // Back after the thanks posts the form refused before it once more.
    const replayed = await call(ctx, "POST", `/l/${token}`, {
      payload: formBody({ first_name: "Lisa", last_name: "Simpson", email: "lisa@example" }),
      headers: { "content-type": "application/x-www-form-urlencoded", ...sent },
    });
    assert.equal(replayed.status, 422);
    assert.match(
      replayed.text,
      /role="alert"><strong>Your earlier details reached Form Co; these changes were not sent\.<\/strong>/,
    );
    assert.doesNotMatch(replayed.text, /class="sent"/, "one message at the top");
    assert.equal(replayed.headers["set-cookie"], undefined, "only a form that reached the business sets it");
  });

  it("names every refused field of a form in a homeowner's words, and lets the browser keep the answer for Back", async () => {
    const org = await createOrg(ctx, { name: "Acme Roofing" });
    await addLeadField(ctx, org.orgId, {
      field_id: "budget",
      label: "Budget",
      type: "select",
      options: ["<5k"],
    });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const refused = await postForm(ctx, token, {
      first_name: "Bart",
      last_name: " ",
      email: "bart@example",
      phone: "12",
      message: "x".repeat(2001),
      custom_budget: "a lot",
    });
    assert.equal(refused.status, 422);
    // The form answer may be shown again from the browser's own history; no shared cache keeps it.
    assert.equal(refused.headers["cache-control"], "private, no-cache");
    const problems = [...refused.text.matchAll(/id="([a-z_]+)-problem" class="problem">([^<]*)</g)].map(
      ([, field, words]) => `${field}: ${words}`,
    );
    assert.deepEqual(problems, [
      "last_name: Please enter your last name.",
      "email: Please enter your whole email address, like name@example.com.",
      "phone: Please enter a phone number of at least 7 digits, like (217) 555-0123.",
      "message: Please shorten this to 2,000 characters or fewer.",
      "custom_budget: Please choose from the options shown.",
    ]);
    assert.match(refused.text, /Please check the 5 fields marked below\./);
    assert.match(
      refused.text,
      /id="last_name"[^>]* aria-invalid="true" aria-describedby="last_name-problem" autofocus>/,
    );
    assert.doesNotMatch(refused.text, /id="first_name"[^>]* aria-invalid/);

    const unreachable = await postForm(ctx, token, { first_name: "Bart", last_name: "Simpson" });
    assert.match(
      unreachable.text,
      /class="problem">Please give an email or a phone number, so Acme Roofing can reach you\./,
    );

    const thanked = await postForm(ctx, token, {
      first_name: "Bart",
      last_name: "Simpson",
      phone: "217 555 0101",
    });
    assert.equal(thanked.status, 200);
    assert.equal(thanked.headers["cache-control"], "private, no-cache");
    assert.match(thanked.text, /will be in touch soon at <strong class="nowrap">217 555 0101<\/strong>\./);
    const page = await call(ctx, "GET", `/l/${token}`);
    assert.equal(page.headers["cache-control"], "no-store", "a page load is never kept");
  });

  it("decodes a form in its declared charset, and refuses one whose escapes it cannot read rather than storing them", async () => {
    const org = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId);
    const post = (payload: string | Buffer, contentType = "application/x-www-form-urlencoded") =>
      call(ctx, "POST", `/l/${token}`, { payload, headers: { "content-type": contentType } });
    const firstNames = async () =>
      (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads
        .filter((lead: { test?: boolean }) => !lead.test)
        .map((lead: { first_name: string }) => lead.first_name)
        .sort();

    const refused: [string, string?][] = [
      ["Mix%C3%A9%FF"],
      ["A%ED%A0%80x"], // UTF-8 of a lone surrogate
      ["A%FFx"],
      ["A%E"],
      ["A%zzx"],
      ["Zo\xeb"], // a raw Latin-1 byte in a UTF-8 body
      ["Zo%EB", "application/x-www-form-urlencoded; charset=klingon"],
      ["Zo%EB", "application/x-www-form-urlencoded; charset=utf-16le"],
    ];
    for (const [name, contentType] of refused) {
      const body = Buffer.from(`first_name=${name}&last_name=C&email=mix%40b.co`, "latin1");
      const response = await post(body, contentType);
      assert.equal(response.status, 400, `${name} ${contentType ?? ""}`);
      assertSecureHtml(response);
      assert.match(response.text, /were not sent/);
    }
    const encodedKey = await post("first_%ZZname=A&last_name=C&email=mix%40b.co");
    assert.equal(encodedKey.status, 400, "a broken escape in a field's name is refused too");
    assert.deepEqual(await firstNames(), [], "nothing refused was stored");

    const accepted: [string, string, string][] = [
      ["Mix%C3%A9+Jo", "application/x-www-form-urlencoded", "Mixé Jo"],
      ["Zo%EB", "application/x-www-form-urlencoded; charset=iso-8859-1", "Zoë"],
      ["Zo%EB%80", 'application/x-www-form-urlencoded; charset="windows-1252"', "Zoë€"],
      ["Ren%E9e", "application/x-www-form-urlencoded;charset=ISO-8859-1", "Renée"],
    ];
    for (const [name, contentType] of accepted) {
      const response = await post(`first_name=${name}&last_name=C&email=mix%40b.co`, contentType);
      assert.equal(response.status, 200, `${name} ${contentType}: ${response.text}`);
      assert.match(response.text, /Thank you/);
    }
    assert.deepEqual(await firstNames(), ["Mixé Jo", "Renée", "Zoë", "Zoë€"]);
  });

  it("shows a refused form's values again without their control characters", async () => {
    const org = await createOrg(ctx);
    await addLeadField(ctx, org.orgId, { field_id: "note", label: "Note", type: "text" });
    const { token } = await mailOnePiece(ctx, org.orgId);
    const refused = await postForm(ctx, token, {
      first_name: "A\u0000x",
      last_name: "B\u001bC\u007f",
      email: "bad\u0007@",
      message: "line one\r\nline\ttwo\u0000",
      custom_note: "n\u0001b",
    });
    assert.equal(refused.status, 422);
    assertSecureHtml(refused);
    const controls = [...refused.text].filter((c) => (c < " " && !"\t\n\r".includes(c)) || c === "\u007f");
    assert.deepEqual(controls, [], "no control character reaches the page");
    assert.match(refused.text, /id="first_name"[^>]* value="Ax"/);
    assert.match(refused.text, /id="last_name"[^>]* value="BC"/);
    assert.match(refused.text, /id="custom_note"[^>]* value="nb"/);
    assert.ok(refused.text.includes(">line one\r\nline\ttwo</textarea>"), "tab and line breaks stay");
  });

  it("escapes HTML injection attempts in every form field, the org name, the recipient and the address", async () => {
    const org = await createOrg(ctx, { name: `Evil ${ATTACK} Org` });
    await addLeadField(ctx, org.orgId, { field_id: "note", label: `Note ${ATTACK}`, type: "text" });
    await addLeadField(ctx, org.orgId, {
      field_id: "pick",
      label: "Pick",
      type: "select",
      options: [ATTACK, "Plain"],
    });
    const { token } = await mailOnePiece(ctx, org.orgId, {
      address: `1 ${ATTACK} St, Springfield, IL 62704`,
      recipient_name: `Mallory ${ATTACK}`,
    });
    const page = await call(ctx, "GET", `/l/${token}`);
    assert.equal(page.status, 200);
    assertNoInjectedMarkup(page.text);
    assert.match(page.text, /&#60;script&#62;/);

    // Every field carries the attack; the email is invalid, so the form comes back with all values.
    const refused = await postForm(ctx, token, {
      first_name: ATTACK,
      last_name: ATTACK,
      email: ATTACK,
      phone: ATTACK,
      message: `</textarea>${ATTACK}`,
      custom_note: ATTACK,
      custom_pick: ATTACK,
    });
    assert.equal(refused.status, 422);
    assertNoInjectedMarkup(refused.text);
    assert.equal(refused.text.includes("</textarea><script"), false);

    const accepted = await postForm(ctx, token, {
      first_name: ATTACK,
      last_name: ATTACK,
      email: "mallory@example.com",
      message: `</textarea>${ATTACK}`,
      custom_note: ATTACK,
      custom_pick: ATTACK,
    });
    assert.equal(accepted.status, 200, accepted.text);
    assertNoInjectedMarkup(accepted.text);
    const [lead] = (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads;
    assert.equal(lead.first_name, ATTACK);
    assert.equal(lead.custom_pick, ATTACK);
  });

  it("lets the operator define and redefine lead-form fields", async () => {
    const org = await createOrg(ctx);
    const created = await admin(ctx, "POST", `/orgs/${org.orgId}/lead-fields`, {
      field_id: "size",
      label: "Size",
      type: "text",
    });
    assert.equal(created.status, 201);
    const updated = await admin(ctx, "POST", `/orgs/${org.orgId}/lead-fields`, {
      field_id: "size",
      label: "Home size",
      type: "select",
      options: ["Small", "Large"],
    });
    assert.equal(updated.status, 200);
    const noOptions = await admin(ctx, "POST", `/orgs/${org.orgId}/lead-fields`, {
      field_id: "x",
      label: "X",
      type: "select",
    });
    assert.equal(noOptions.status, 422);
    const badType = await admin(ctx, "POST", `/orgs/${org.orgId}/lead-fields`, {
      field_id: "x",
      label: "X",
      type: "date",
    });
    assert.equal(badType.status, 422);
    // custom_fields is the lead's array: no field may flatten onto it.
    const reserved = await admin(ctx, "POST", `/orgs/${org.orgId}/lead-fields`, {
      field_id: "fields",
      label: "Fields",
      type: "text",
    });
    assert.equal(reserved.status, 422);
    assert.equal(reserved.body.detail, 'field_id: "fields" is reserved');
    const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/lead-fields`);
    assert.deepEqual(listed.body.fields, [
      { field_id: "size", label: "Home size", type: "select", options: ["Small", "Large"], position: 0 },
    ]);
  });
});

describe(`landing pages the service cannot serve right now (${databaseLabel})`, () => {
  const browserGet = { headers: { accept: "text/html" } };

  it("answers a browser over the per-IP limit with a try-again page and Retry-After, a JSON caller with JSON", async () => {
    // A fixed minute: on the real clock, a minute turning between the requests let the third through.
    const clock = fixedClock("2026-11-22T12:00:15Z");
    const ctx = await createTestContext({ clock, config: { ipRateLimitPerMinute: 2 }, memoryLimiter: true });
    try {
      const org = await createOrg(ctx);
      const { token } = await mailOnePiece(ctx, org.orgId);
      assert.equal((await call(ctx, "GET", `/l/${token}`, browserGet)).status, 200);
      assert.equal((await call(ctx, "GET", `/l/${token}`, browserGet)).status, 200);
      const limited = await call(ctx, "GET", `/l/${token}`, browserGet);
      assert.equal(limited.status, 429);
      assertSecureHtml(limited);
      assert.match(limited.text, /try again in a minute/);
      assert.ok(Number(limited.headers["retry-after"]) > 0);
      const json = await call(ctx, "POST", `/l/${token}`, { body: { first_name: "A" } });
      assert.equal(json.status, 429);
      assert.deepEqual(json.body, { error: "rate_limited" });
      assert.ok(Number(json.headers["retry-after"]) > 0);
    } finally {
      await ctx.close();
    }
  });

  it("answers a browser with a 503 try-again page while the database is gone", async () => {
    const ctx = await createTestContext();
    const org = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId);
    await ctx.database.close();
    try {
      const page = await call(ctx, "GET", `/l/${token}`, browserGet);
      assert.equal(page.status, 503);
      assertSecureHtml(page);
      assert.match(page.text, /try again in a minute/);
      assert.ok(Number(page.headers["retry-after"]) > 0);
      const form = await postForm(ctx, token, {
        first_name: "Marge",
        last_name: "S",
        email: "m@example.com",
      });
      assert.equal(form.status, 503);
      assertSecureHtml(form);
      const json = await call(ctx, "POST", `/l/${token}`, {
        body: { first_name: "Marge", last_name: "S", email: "m@example.com" },
      });
      assert.equal(json.status, 503);
      assert.match(String(json.headers["content-type"]), /^application\/json/);
      assert.equal(typeof json.body.error, "string");
    } finally {
      await ctx.close();
    }
  });

  it("answers a browser with a page, a JSON caller with JSON, for a token too long or badly encoded and a multipart form", async () => {
    const ctx = await createTestContext();
    try {
      const org = await createOrg(ctx);
      const { token } = await mailOnePiece(ctx, org.orgId);
      const lead = { first_name: "Lisa", last_name: "Simpson", email: "lisa@example.com" };
      for (const path of [`/l/${"x".repeat(200)}`, "/l/%E0%A4"]) {
        const status = path.endsWith("%A4") ? 400 : 414;
        const page = await call(ctx, "GET", path, browserGet);
        assert.equal(page.status, status, path);
        assertSecureHtml(page);
        assert.match(page.text, /does not exist/);
        const form = await postForm(ctx, path.slice("/l/".length), lead);
        assert.equal(form.status, status, path);
        assertSecureHtml(form);
        assert.match(form.text, /does not exist/);
        const json = await call(ctx, "POST", path, { body: lead });
        assert.equal(json.status, status, path);
        assert.match(String(json.headers["content-type"]), /^application\/json/);
        assert.equal(json.body.error, status === 414 ? "uri_too_long" : "bad_request");
      }
      // An HTML form may post multipart/form-data; the page says its details were not sent.
      const multipart = await call(ctx, "POST", `/l/${token}`, {
        payload: '--b\r\nContent-Disposition: form-data; name="first_name"\r\n\r\nLisa\r\n--b--\r\n',
        headers: { "content-type": "multipart/form-data; boundary=b" },
      });
      assert.equal(multipart.status, 400);
      assertSecureHtml(multipart);
      assert.match(multipart.text, /were not sent/);
      // Other over-long paths stay JSON, browser or not.
      const api = await call(ctx, "GET", `/admin/v1/orgs/${"x".repeat(200)}/lead-fields`, browserGet);
      assert.equal(api.status, 414);
      assert.match(String(api.headers["content-type"]), /^application\/json/);
    } finally {
      await ctx.close();
    }
  });

  it("reads a checkbox group of thousands of values in linear time and refuses a form of over 10 000 fields", async () => {
    const ctx = await createTestContext();
    try {
      const org = await createOrg(ctx);
      const { token } = await mailOnePiece(ctx, org.orgId);
      // Each repeat of a name copied every earlier value: 40 000 of them held the process for 26 s.
      // 16 000 (64 kB) still fit the form's body limit and pass the 10 000 fields.
      const flood = await call(ctx, "POST", `/l/${token}`, {
        payload: Array.from({ length: 16_000 }, () => "a=1").join("&"),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      assert.equal(flood.status, 400);
      assertSecureHtml(flood);
      assert.match(flood.text, /were not sent/);
      const parsed = parseFormBody(
        Buffer.from(Array.from({ length: MAX_FORM_PAIRS }, (_, index) => `a=${index}`).join("&")),
        new TextDecoder(),
      );
      assert.ok(!(parsed instanceof Error));
      assert.equal((parsed.a as string[]).length, MAX_FORM_PAIRS);
      assert.equal((parsed.a as string[])[MAX_FORM_PAIRS - 1], String(MAX_FORM_PAIRS - 1));
      // Escapes in either case, `+` as a space, raw bytes as themselves; a broken escape is refused.
      const decoded = parseFormBody(
        Buffer.from("name=Jos%c3%A9+O%27Neil&note=a%2Bb+%F0%9F%8F%A0&raw=\xc3\xa9"),
        new TextDecoder(),
      );
      assert.deepEqual(decoded, { name: "José O'Neil", note: "a+b 🏠", raw: "\xc3\xa9" });
      const latin1 = parseFormBody(
        Buffer.from("name=Jos%E9"),
        new TextDecoder("windows-1252", { fatal: true }),
      );
      assert.deepEqual(latin1, { name: "José" });
      assert.ok(parseFormBody(Buffer.from("name=100%"), new TextDecoder()) instanceof Error);
      assert.ok(
        parseFormBody(Buffer.from("name=%C3"), new TextDecoder("utf-8", { fatal: true })) instanceof Error,
      );
    } finally {
      await ctx.close();
    }
  });

  it("answers an oversized form with a page saying it was not sent", async () => {
    const ctx = await createTestContext();
    try {
      const org = await createOrg(ctx);
      const { token } = await mailOnePiece(ctx, org.orgId);
      const oversized = await postForm(ctx, token, { first_name: "A", message: "x".repeat(1_100_000) });
      assert.equal(oversized.status, 413);
      assertSecureHtml(oversized);
      assert.match(oversized.text, /were not sent/);
      // Anyone may post to any token and is read before the token is looked up: 64 KiB at most.
      const overLimit = await postForm(ctx, token, {
        first_name: "A",
        message: "x".repeat(LEAD_FORM_BODY_LIMIT),
      });
      assert.equal(overLimit.status, 413);
      const json = await call(ctx, "POST", `/l/${token}`, {
        payload: `{${Array.from({ length: 8000 }, (_, index) => `"k${index}":1`).join(",")}}`,
        headers: { "content-type": "application/json" },
      });
      assert.equal(json.status, 413);
      assert.equal(json.body.error, "payload_too_large");
      assert.equal(json.body.detail, `request body exceeds the limit of ${LEAD_FORM_BODY_LIMIT} bytes`);
    } finally {
      await ctx.close();
    }
  });
});
