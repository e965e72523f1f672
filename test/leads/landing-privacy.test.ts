import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildApp } from "../../src/app.ts";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createMemoryRateLimiter } from "../../src/limits/rate-limiter.ts";
import { call, createOrg, recordMailing } from "../helpers/api.ts";
import { databaseLabel } from "../helpers/harness.ts";
import {
  createLeadsContext,
  type LeadsTestContext,
  mailOnePiece,
  silentLogger,
  subscribe,
} from "./leads-helpers.ts";

const DAY_MS = 86_400_000;

function postForm(app: LeadsTestContext["app"], token: string, fields: Record<string, string>) {
  return app.inject({
    method: "POST",
    url: `/l/${token}`,
    payload: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

describe(`landing pages show little, for a while, to a bounded number of leads (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  const clock = fixedClock("2026-11-22T12:00:00Z");
  before(async () => {
    ctx = await createLeadsContext({ clock, hosts: { "crm.example": ["93.184.216.34"] } });
  });
  after(async () => ctx.close());

  async function storedLeads(orgId: string): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      ctx.database.db,
      sql`SELECT count(*)::int AS n FROM leads WHERE org_id = ${orgId} AND source = 'landing_page'`,
    );
    return row!.n;
  }

  async function deliveryJobs(orgId: string): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      ctx.database.db,
      sql`SELECT count(*)::int AS n FROM jobs WHERE org_id = ${orgId} AND kind = 'deliver_lead'`,
    );
    return row!.n;
  }

  const lead = (index: number) => ({
    first_name: `Visitor${index}`,
    last_name: "Flood",
    email: `visitor${index}@example.com`,
  });

  it("shows the first name and the street line only, and stores the lead with the piece's full address", async () => {
    const org = await createOrg(ctx);
    const { token } = await mailOnePiece(ctx, org.orgId, {
      address: "19 Plympton St Apt 4, Cambridge, MA 02138",
      recipient_name: "Dr. Julius Hibbert",
    });
    const page = await call(ctx, "GET", `/l/${token}`);
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /Hi Julius,/);
    assert.match(page.text, /19 Plympton St Apt 4/);
    for (const hidden of ["Hibbert", "Cambridge", "MA 02138", "02138"]) {
      assert.equal(page.text.includes(hidden), false, `the page shows ${hidden}`);
    }
    const anonymous = await mailOnePiece(ctx, org.orgId, {
      address: "20 Plympton St, Cambridge, MA 02138",
      recipient_name: "Current Resident",
    });
    const greeting = await call(ctx, "GET", `/l/${anonymous.token}`);
    assert.match(greeting.text, /Hello,/);
    assert.doesNotMatch(greeting.text, /Resident/);

    const posted = await call(ctx, "POST", `/l/${token}`, { body: lead(1) });
    assert.equal(posted.status, 201, posted.text);
    const [stored] = (await call(ctx, "GET", "/api/v1/integrations/leads", { key: org.key })).body.leads;
    assert.equal(stored.street, "19 Plympton St Apt 4");
    assert.equal(stored.city, "Cambridge");
    assert.equal(stored.state, "MA");
    assert.equal(stored.postal_code, "02138");
  });

  it("answers a piece that was never mailed (queued, suppressed, failed) exactly like an unknown token", async () => {
    const org = await createOrg(ctx);
    const unknown = await call(ctx, "GET", "/l/unknownTokenValue123");
    for (const status of ["queued", "suppressed", "failed"]) {
      const { token, pieceId } = await mailOnePiece(ctx, org.orgId);
      // What the pipeline leaves behind when it suppresses or fails a piece (or before it mails it).
      await ctx.database.db.execute(
        sql`UPDATE mail_pieces SET status = ${status}, mailed_at = NULL WHERE id = ${pieceId}`,
      );
      const page = await call(ctx, "GET", `/l/${token}`);
      assert.equal(page.status, 404, status);
      assert.equal(page.text.replace(/nonce="[^"]+"/, ""), unknown.text.replace(/nonce="[^"]+"/, ""), status);
      assert.doesNotMatch(page.text, /Homer|Evergreen/);
      const json = await call(ctx, "POST", `/l/${token}`, { body: lead(1) });
      assert.equal(json.status, 404, status);
      assert.equal(json.body.error, "not_found");
      const form = await postForm(ctx.app, token, lead(2));
      assert.equal(form.statusCode, 404, status);
      assert.match(form.body, /does not exist/);
    }
    assert.equal(await storedLeads(org.orgId), 0);
  });

  it("closes a page LANDING_PAGE_TTL_DAYS (365 by default) after its piece was mailed", async () => {
    const org = await createOrg(ctx);
    const now = clock.now().getTime();
    const mailing = await recordMailing(ctx, org.orgId, [
      { address: "1 Young St, Springfield, IL 62704", mailed_at: new Date(now - 364 * DAY_MS).toISOString() },
      { address: "2 Old St, Springfield, IL 62704", mailed_at: new Date(now - 365 * DAY_MS).toISOString() },
    ]);
    const [young, old] = mailing.pieces;
    assert.equal((await call(ctx, "GET", `/l/${young!.token}`)).status, 200);
    const expired = await call(ctx, "GET", `/l/${old!.token}`);
    assert.equal(expired.status, 404);
    assert.match(expired.text, /does not exist/);
    const json = await call(ctx, "POST", `/l/${old!.token}`, { body: lead(1) });
    assert.equal(json.status, 404);
    assert.equal(await storedLeads(org.orgId), 0);
  });

  it("captures at most 5 new leads per page and hour: past that the form thanks, nothing is stored or delivered", async () => {
    const org = await createOrg(ctx);
    assert.equal((await subscribe(ctx, org.key, "https://crm.example/leads")).status, 200);
    const { token } = await mailOnePiece(ctx, org.orgId);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const created = await call(ctx, "POST", `/l/${token}`, { body: lead(index) });
      assert.equal(created.status, 201, created.text);
      ids.push(created.body.lead_id);
    }
    const thanked = await postForm(ctx.app, token, lead(5));
    assert.equal(thanked.statusCode, 200, thanked.body);
    assert.match(thanked.body, /Thank you/);
    const json = await call(ctx, "POST", `/l/${token}`, { body: lead(6) });
    assert.equal(json.status, 429, json.text);
    assert.equal(json.body.error, "rate_limited");
    assert.equal(json.headers["retry-after"], "3600");
    // A resend of a lead already captured still answers that lead.
    const resent = await call(ctx, "POST", `/l/${token}`, { body: lead(0) });
    assert.equal(resent.status, 201);
    assert.equal(resent.body.lead_id, ids[0]);
    assert.equal(await storedLeads(org.orgId), 5);
    assert.equal(await deliveryJobs(org.orgId), 5);

    // Another page of the same org is not held back, and the window slides.
    const other = await mailOnePiece(ctx, org.orgId);
    assert.equal((await call(ctx, "POST", `/l/${other.token}`, { body: lead(7) })).status, 201);
    clock.advance(3_600_000);
    assert.equal((await call(ctx, "POST", `/l/${token}`, { body: lead(8) })).status, 201);
    assert.equal(await storedLeads(org.orgId), 7);
  });

  it("holds the cap across API processes sharing the database, also for posts sent at the same moment", async () => {
    // A second API process: its own app and its own limiter, the same database. (Only what the
    // landing routes use is passed; the cast keeps this test out of the app's other wiring.)
    const second = await buildApp({
      config: ctx.config,
      database: ctx.database,
      clock: ctx.clock,
      logger: silentLogger,
      limiter: createMemoryRateLimiter(ctx.clock),
      geocoder: createLocalGeocoder(),
      resolveHost: ctx.resolver.resolve,
    } as Parameters<typeof buildApp>[0]);
    await second.ready();
    try {
      const org = await createOrg(ctx);
      const { token } = await mailOnePiece(ctx, org.orgId);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          postForm(index % 2 === 0 ? ctx.app : second, token, lead(index)),
        ),
      );
      for (const answer of answers) {
        assert.equal(answer.statusCode, 200, answer.body);
        assert.match(answer.body, /Thank you/);
      }
      assert.equal(await storedLeads(org.orgId), 5);
    } finally {
      await second.close();
    }
  });
});
