import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { leadAlertHandler } from "../../src/leads/lead-alerts.ts";
import { createMailer } from "../../src/mail/mailer.ts";
import { buildJobCatalog } from "../../src/worker/catalog.ts";
import { call, createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { startSmtpServer } from "../helpers/smtp-server.ts";
import {
  fakeResolver,
  type LeadsTestContext,
  mailOnePiece,
  silentLogger,
  submitLead,
  subscribe,
  testDeliveryClient,
} from "../leads/leads-helpers.ts";
import { inviteAndAccept, readableEml, type SignedInUser } from "./helpers.ts";

const HOMEOWNER = {
  first_name: "Ned",
  last_name: "Flanders",
  email: "ned@example.com",
  phone: "+1 217 555 0123",
};

describe(`app API: Leads and lead alerts (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let org: { orgId: string; key: string };
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;
  let token: string;
  const resolver = fakeResolver({ "hooks.example.com": ["93.184.215.14"] });

  /** A worker's run of every due job (lead deliveries and lead alerts), as `--role worker` does. */
  const runWorker = (context: TestContext = ctx) => {
    const deps = { db: context.database.db, clock: context.clock, logger: silentLogger };
    return runPendingJobs(
      deps,
      buildJobCatalog({
        ...deps,
        deliveryClient: testDeliveryClient(ctx),
        config: context.config,
        mailer: context.mailer,
      }),
    );
  };

  before(async () => {
    smtp = await startSmtpServer();
    const base = await createTestContext({
      config: { smtpUrl: smtp.url, landingLeadsPerTokenPerHour: 20 },
      resolveHost: resolver.resolve,
      memoryLimiter: true,
    });
    ctx = { ...base, resolver };
    org = await createOrg(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, `owner-${randomUUID()}@example.com`, "owner");
    member = await inviteAndAccept(
      ctx,
      org.orgId,
      `member-${randomUUID()}@example.com`,
      "member",
      "Mo Member",
    );
    const other = await createOrg(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, `other-${randomUUID()}@example.com`, "owner");
    ({ token } = await mailOnePiece(ctx, org.orgId));
    // Homes a CRM-synced lead can match (a synced lead at a home with a landing-page lead joins it).
    await recordMailing(
      ctx,
      org.orgId,
      Array.from({ length: 60 }, (_, i) => ({ address: `${i + 1} Oak St, Springfield, IL 62704` })),
      "Oak Street",
    );
  });
  after(async () => {
    await ctx.close();
    await smtp.close();
  });

  test("owners get lead alerts until they turn them off; members choose, each for themselves", async () => {
    assert.deepEqual((await owner.browser.request("GET", "/app/api/v1/lead-alerts")).body, { enabled: true });
    assert.deepEqual((await member.browser.request("GET", "/app/api/v1/lead-alerts")).body, {
      enabled: false,
    });
    // A new owner who never found the switch still hears of a lead.
    const before = smtp.mails.length;
    await submitLead(ctx, token, { ...HOMEOWNER, first_name: "Ray" });
    await runWorker();
    await runWorker();
    assert.deepEqual(
      smtp.mails.slice(before).map((mail) => mail.to[0]),
      [owner.email],
    );

    const on = await member.browser.request("PUT", "/app/api/v1/lead-alerts", { body: { enabled: true } });
    assert.equal(on.status, 200, on.text);
    assert.deepEqual(on.body, { enabled: true });
    assert.deepEqual((await member.browser.request("GET", "/app/api/v1/lead-alerts")).body, {
      enabled: true,
    });
    const off = await owner.browser.request("PUT", "/app/api/v1/lead-alerts", { body: { enabled: false } });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual((await owner.browser.request("GET", "/app/api/v1/lead-alerts")).body, {
      enabled: false,
    });
    const invalid = await member.browser.request("PUT", "/app/api/v1/lead-alerts", {
      body: { enabled: "yes" },
    });
    assert.equal(invalid.status, 422);
  });

  test("a landing-page lead emails each member who turned alerts on, once, over SMTP", async () => {
    const before = smtp.mails.length;
    const leadId = await submitLead(ctx, token, {
      first_name: "Ned",
      last_name: "Flanders",
      email: "ned@example.com",
      phone: "+1 217 555 0123",
    });
    await runWorker();
    await runWorker();
    const sent = smtp.mails.slice(before);
    assert.equal(sent.length, 1, "one member wants alerts");
    assert.deepEqual(sent[0]!.to, [member.email]);
    const mail = readableEml(sent[0]!.raw);
    // The subject names the home the card went to (the contractor's data), never what the visitor typed.
    assert.match(mail, /^Subject: New lead for [^\r\n]+: 742 Evergreen Terrace, Springfield, IL 62704\r?$/m);
    // "a card from <business>": an article before the business's name read "a Acme card".
    const body = sent[0]!.raw.replace(/=\r?\n/g, "");
    assert.match(body, /A card from [^(\r\n]+ was answered on its landing page\./);
    assert.match(
      mail,
      /What the visitor typed on the form \(their words, not Porchlight's\):\r?\nName: Ned Flanders\r?\nEmail: ned@example\.com\r?\n/,
    );
    // The card's campaign on a line of its own: its own brackets are never nested in the sentence's.
    assert.match(body, /\r?\nCard: [^\r\n]+\r?\n/);
    assert.match(sent[0]!.raw.replace(/=\r?\n/g, ""), new RegExp(`/app/leads/${leadId}`));
  });

  test("an alert goes once per lead and member even when two workers run its job at the same time", async () => {
    await owner.browser.request("PUT", "/app/api/v1/lead-alerts", { body: { enabled: true } });
    const before = smtp.mails.length;
    const leadId = await submitLead(ctx, token, { ...HOMEOWNER, first_name: "Maude" });
    const worker = () =>
      leadAlertHandler({
        db: ctx.database.db,
        clock: ctx.clock,
        logger: silentLogger,
        mailer: createMailer({
          smtpUrl: smtp.url,
          from: "alerts@porchlight.test",
          dataDir: "/nonexistent",
          logger: silentLogger,
          clock: ctx.clock,
        }),
        publicBaseUrl: ctx.config.publicBaseUrl,
      });
    const context = {
      jobId: randomUUID(),
      orgId: org.orgId,
      attempt: 1,
      signal: new AbortController().signal,
    };
    const payload = { org_id: org.orgId, lead_id: leadId };
    // Two processes holding the same job (a lock that expired mid-send), then the queue's own run.
    await Promise.all([worker().run(payload, context), worker().run(payload, context)]);
    await Promise.all([runWorker(), runWorker()]);
    const sent = smtp.mails.slice(before);
    assert.deepEqual(sent.map((mail) => mail.to[0]).sort(), [member.email, owner.email].sort());
  });

  test("a CRM sync sends no alert", async () => {
    const before = smtp.mails.length;
    const synced = await call(ctx, "POST", "/api/v1/tracking/lead", {
      key: org.key,
      body: {
        address: "742 Evergreen Terrace, Springfield, IL 62704",
        email: "carl@example.com",
        crm_record_id: "C-1",
      },
    });
    assert.ok(synced.status < 300, synced.text);
    await runWorker();
    assert.equal(smtp.mails.length, before);
  });

  test("the inbox lists both sources newest first, a keyset page at a time, with delivery state per subscription", async () => {
    const subscribed = await subscribe(ctx, org.key, "https://hooks.example.com/porchlight/secretpath");
    assert.ok(subscribed.status < 300, subscribed.text);
    // The receiver's name now resolves to a private address: the delivery is blocked (sent, failed).
    resolver.set("hooks.example.com", ["10.0.0.7"]);
    const blockedLead = await submitLead(ctx, token, { ...HOMEOWNER, first_name: "Rod" });
    await runWorker();
    const waitingLead = await submitLead(ctx, token, { ...HOMEOWNER, first_name: "Todd" });

    const inbox = await member.browser.request("GET", "/app/api/v1/leads");
    assert.equal(inbox.status, 200, inbox.text);
    const leads = inbox.body.leads as {
      id: string;
      source: string;
      received_at: string;
      deliveries: { state: string; target: string; attempts: number; next_retry_at: string | null }[];
    }[];
    assert.equal(leads.filter((lead) => lead.source === "landing_page").length, 5);
    assert.equal(leads[0]!.id, waitingLead);
    for (let i = 1; i < leads.length; i++) assert.ok(leads[i - 1]!.received_at >= leads[i]!.received_at);
    const blocked = leads.find((lead) => lead.id === blockedLead)!;
    assert.equal(blocked.deliveries.length, 1);
    assert.equal(blocked.deliveries[0]!.state, "failed");
    assert.equal(blocked.deliveries[0]!.target, "https://hooks.example.com", "never the secret path");
    assert.equal(blocked.deliveries[0]!.attempts, 1);
    const waiting = leads[0]!.deliveries[0]!;
    assert.equal(waiting.state, "pending");
    assert.equal(waiting.attempts, 0);
    assert.ok(waiting.next_retry_at);
  });

  test("pages of 50 cover every lead once; the source filter keeps CRM-synced ones", async () => {
    const before = (await owner.browser.request("GET", "/app/api/v1/leads")).body.leads.length as number;
    for (let i = 1; i < 51; i++) {
      await call(ctx, "POST", "/api/v1/tracking/lead", {
        key: org.key,
        body: {
          address: `${i + 1} Oak St, Springfield, IL 62704`,
          email: `p${i}@example.com`,
          crm_record_id: `R-${i}`,
        },
      });
    }
    const first = await owner.browser.request("GET", "/app/api/v1/leads");
    assert.equal(first.body.leads.length, 50);
    assert.ok(first.body.next_cursor);
    const second = await owner.browser.request(
      "GET",
      `/app/api/v1/leads?cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    assert.equal(second.status, 200, second.text);
    const ids = [...first.body.leads, ...second.body.leads].map((lead: { id: string }) => lead.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(ids.length, before + 50);
    assert.equal(second.body.next_cursor, null);
    const synced = await owner.browser.request("GET", "/app/api/v1/leads?source=crm_sync");
    assert.ok(synced.body.leads.length >= 50);
    assert.ok(synced.body.leads.every((lead: { source: string }) => lead.source === "crm_sync"));
  });

  test("the inbox marks a landing-page lead new until a member opens it; a CRM-synced lead never is", async () => {
    const leadId = await submitLead(ctx, token, { ...HOMEOWNER, first_name: "Ned", last_name: "Flanders" });
    const inboxRow = async (id: string) =>
      (
        (await owner.browser.request("GET", "/app/api/v1/leads?source=landing_page")).body.leads as {
          id: string;
          unopened: boolean;
        }[]
      ).find((lead) => lead.id === id);
    assert.equal((await inboxRow(leadId))?.unopened, true, "new until opened");
    const opened = await member.browser.request("GET", `/app/api/v1/leads/${leadId}`);
    assert.equal(opened.status, 200, opened.text);
    assert.equal("unopened" in opened.body, false, "a lead's own page does not carry the mark");
    assert.equal((await inboxRow(leadId))?.unopened, false, "opened by any member, it is not new for anyone");
    const synced = await owner.browser.request("GET", "/app/api/v1/leads?source=crm_sync");
    assert.ok(synced.body.leads.length > 0);
    for (const lead of synced.body.leads)
      assert.equal(lead.unopened, false, "a CRM-synced lead is never new");
  });

  test("a lead's page shows its answers and deliveries; another org's lead is 404", async () => {
    const leadId = await submitLead(ctx, token, {
      ...HOMEOWNER,
      first_name: "Edna",
      last_name: "K",
      message: "Leaky gutter",
    });
    const unopened = async () =>
      (await owner.browser.request("GET", "/app/api/v1/leads?unopened=true")).body.leads.map(
        (lead: { id: string }) => lead.id,
      ) as string[];
    assert.ok((await unopened()).includes(leadId), "a new lead is unopened until a member opens it");
    const page = await member.browser.request("GET", `/app/api/v1/leads/${leadId}`);
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.name, "Edna K");
    assert.equal(page.body.message, "Leaky gutter");
    assert.equal(page.body.source, "landing_page");
    assert.equal(page.body.attribution_type, "direct");
    assert.equal(page.body.campaign_name, "Spring roofing");
    assert.ok(Array.isArray(page.body.answers));
    assert.equal(page.body.deliveries[0].state, "pending");
    assert.ok(!(await unopened()).includes(leadId), "opened by the member, it leaves Overview's list");
    const wrong = await owner.browser.request("GET", "/app/api/v1/leads?unopened=yes");
    assert.equal(wrong.status, 422, wrong.text);

    const foreign = await otherOwner.browser.request("GET", `/app/api/v1/leads/${leadId}`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, "not_found");
    const theirInbox = await otherOwner.browser.request("GET", "/app/api/v1/leads");
    assert.deepEqual(theirInbox.body.leads, []);
    const anonymous = await ctx.app.inject({ method: "GET", url: "/app/api/v1/leads" });
    assert.equal(anonymous.statusCode, 401);
  });

  test("text a visitor types never reads as the service's own words: not in the subject, and labelled as theirs", async () => {
    const before = smtp.mails.length;
    await submitLead(ctx, token, {
      ...HOMEOWNER,
      first_name: "Eve",
      last_name: "Porchlight Security: verify your account at https://evil.example",
      message: "Your account is locked. Verify at https://evil.example/login",
    });
    await runWorker();
    const alert = smtp.mails.slice(before).find((sent) => readableEml(sent.raw).includes("evil.example"));
    assert.ok(alert, "this lead's alert was sent");
    const mail = readableEml(alert.raw);
    const subject = /^Subject: ([^\r\n]*)$/m.exec(mail)?.[1] ?? "";
    assert.match(subject, /^New lead for .+: 742 Evergreen Terrace, Springfield, IL 62704\r?$/);
    assert.doesNotMatch(subject, /evil|Security|\bEve\b/);
    const body = mail.slice(mail.indexOf("\r\n\r\n"));
    const visitorsWords = body.indexOf("What the visitor typed on the form (their words, not Porchlight's):");
    assert.ok(visitorsWords > 0, body);
    for (const typed of ["Porchlight Security", "Your account is locked"]) {
      assert.ok(body.indexOf(typed) > visitorsWords, `"${typed}" comes only under the visitor's line`);
    }
  });
});
