import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { fixedClock } from "../../src/clock.ts";
import { type Database, openDatabase, queryRows, sql } from "../../src/db/database.ts";
import { claimJobs } from "../../src/jobs/queue.ts";
import type { DeliveryClient } from "../../src/webhooks/delivery-client.ts";
import { buildJobCatalog } from "../../src/worker/catalog.ts";
import { admin, call, createOrg } from "../helpers/api.ts";
import { databaseLabel, TEST_DATABASE_URL } from "../helpers/harness.ts";
import { type HttpsReceiver, startHttpsReceiver } from "../helpers/https-receiver.ts";
import {
  addLeadField,
  createLeadsContext,
  drainJobs,
  type LeadsTestContext,
  mailOnePiece,
  NED_LEAD,
  silentLogger,
  submitLead,
  subscribe,
  testDeliveryClient,
  verifySignature,
} from "./leads-helpers.ts";

const LEAD = NED_LEAD;

describe(`signed lead.created deliveries (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  let receiver: HttpsReceiver;
  let client: DeliveryClient;
  const clock = fixedClock("2026-11-22T12:00:00Z");
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  before(async () => {
    receiver = await startHttpsReceiver();
    ctx = await createLeadsContext({
      clock,
      allowPrivateTargets: ["receiver.test", "127.0.0.1"],
      hosts: { "receiver.test": ["127.0.0.1"], "rebind.test": ["93.184.216.34"] },
    });
    client = testDeliveryClient(ctx, { ca: receiver.ca });
  });
  after(async () => {
    await client.close();
    await receiver.close();
    await ctx.close();
  });

  /** A fresh org with one landing page, and the receiver's requests from here on. */
  async function setup(path: string) {
    const org = await createOrg(ctx);
    const page = await mailOnePiece(ctx, org.orgId);
    const url = receiver.url(path);
    const received = () => receiver.requests.filter((request) => request.path === path);
    return { org, ...page, url, received };
  }

  it("posts the lead once, signed over the exact bytes, verifiable by an independent receiver", async () => {
    const { org, token, url, received } = await setup("/signed");
    await addLeadField(ctx, org.orgId, {
      field_id: "issues",
      label: "Issues",
      type: "multiselect",
      options: ["Roof"],
    });
    const subscription = (await subscribe(ctx, org.key, url)).body;
    const leadId = await submitLead(ctx, token, { ...LEAD, custom_fields: { issues: ["Roof"] } });
    assert.equal(received().length, 0, "delivery happens off the request path");
    assert.equal(await drainJobs(ctx, client), 1);

    const [request] = received();
    assert.ok(request);
    assert.equal(request.method, "POST");
    assert.match(String(request.headers["content-type"]), /^application\/json/);
    assert.equal(request.headers["x-service-timestamp"], String(nowSeconds()));
    assert.equal(
      verifySignature(subscription.signing_secret, request.headers, request.raw, nowSeconds()),
      true,
    );
    const lead = JSON.parse(request.raw.toString("utf8"));
    assert.equal(lead.id, leadId);
    assert.equal(lead.service_lead_id, leadId);
    assert.equal(lead.email, "ned@example.com");
    assert.equal(lead.source, "Landing page");
    assert.equal(lead.custom_issues, "Roof");
    assert.deepEqual(lead.custom_fields, [
      { field_id: "issues", field_label: "Issues", type: "multiselect", value: ["Roof"] },
    ]);
    // In the documented order, as polled (the stored JSONB orders keys its own way).
    assert.deepEqual(Object.keys(lead.custom_fields[0]), ["field_id", "field_label", "type", "value"]);

    const tampered = Buffer.from(request.raw.toString("utf8").replace("Flanders", "Flandres"));
    assert.equal(
      verifySignature(subscription.signing_secret, request.headers, tampered, nowSeconds()),
      false,
    );
    assert.equal(verifySignature("whsec_wrong", request.headers, request.raw, nowSeconds()), false);
    assert.equal(
      verifySignature(subscription.signing_secret, request.headers, request.raw, nowSeconds() + 301),
      false,
    );
    assert.equal(
      verifySignature(subscription.signing_secret, request.headers, request.raw, nowSeconds() + 300),
      true,
    );
    // A non-digit timestamp fails even when the signature was computed over it.
    for (const timestamp of [`+${nowSeconds()}`, `${nowSeconds()}.0`, " 1", "1e9"]) {
      const mac: string = createHmac("sha256", subscription.signing_secret)
        .update(`${timestamp}.`)
        .update(request.raw)
        .digest("hex");
      const headers: Record<string, string> = {
        "x-service-timestamp": timestamp,
        "x-service-signature": `sha256=${mac}`,
      };
      assert.equal(
        verifySignature(subscription.signing_secret, headers, request.raw, nowSeconds()),
        false,
        timestamp,
      );
    }

    const log = await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`);
    assert.equal(log.status, 200);
    assert.equal(log.body.deliveries.length, 1);
    assert.deepEqual(
      { ...log.body.deliveries[0], id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        lead_id: leadId,
        subscription_id: subscription.id,
        target_url: url,
        signed: true,
        outcome: "attempted",
        status_code: 200,
        error: null,
      },
    );
    assert.equal(await drainJobs(ctx, client), 0, "nothing is sent twice");
  });

  it("signs with the rotated secret from the next delivery on", async () => {
    const { org, token, url, received } = await setup("/rotation");
    const original = (await subscribe(ctx, org.key, url)).body;
    await submitLead(ctx, token, LEAD);
    await drainJobs(ctx, client);
    const rotated = (
      await call(ctx, "POST", "/api/v1/webhooks/rotate", { key: org.key, body: { id: original.id } })
    ).body;
    await submitLead(ctx, token, { ...LEAD, first_name: "Rod" });
    await drainJobs(ctx, client);
    const [before, after] = received();
    assert.ok(before && after);
    assert.equal(verifySignature(original.signing_secret, before.headers, before.raw, nowSeconds()), true);
    assert.equal(verifySignature(rotated.signing_secret, after.headers, after.raw, nowSeconds()), true);
    assert.equal(verifySignature(original.signing_secret, after.headers, after.raw, nowSeconds()), false);
  });

  it("delivers a legacy subscription unsigned, and ignores the receiver's status", async () => {
    const { org, token, url, received } = await setup("/legacy");
    const legacy = await admin(ctx, "POST", `/orgs/${org.orgId}/subscriptions`, {
      target_url: url,
      signed: false,
    });
    assert.equal(legacy.status, 201);
    receiver.respondWith(500);
    const logLines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => logLines.push(line) });
    try {
      await submitLead(ctx, token, LEAD);
      await drainJobs(ctx, client, ctx.database.db, logger);
    } finally {
      receiver.respondWith(200);
    }
    const [request] = received();
    assert.ok(request);
    assert.equal(request.headers["x-service-timestamp"], undefined);
    assert.equal(request.headers["x-service-signature"], undefined);
    const [logged] = (await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`)).body.deliveries;
    assert.equal(logged.signed, false);
    assert.equal(logged.outcome, "attempted");
    assert.equal(logged.status_code, 500);
    // Not resent, so the operator is warned (a receiver's 401 usually means the wrong secret).
    const refused = logLines.map((line) => JSON.parse(line)).find((entry) => entry.statusCode === 500);
    assert.equal(refused?.level, 40);
    assert.match(refused?.msg, /refused it \(not resent\)/);
    assert.equal(await drainJobs(ctx, client), 0, "a non-2xx answer is not retried");
    assert.equal(received().length, 1);
  });

  it("logs a delivery's target by its origin only: a secret in the first path segment stays out", async () => {
    const { org, token, url, received } = await setup("/zkqxwvbnmpslt/hook");
    await subscribe(ctx, org.key, url);
    const logLines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => logLines.push(line) });
    await submitLead(ctx, token, LEAD);
    await drainJobs(ctx, client, ctx.database.db, logger);
    assert.equal(received().length, 1);
    const delivered = logLines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === "lead delivered");
    assert.equal(delivered?.targetUrl, new URL(url).origin);
    for (const line of logLines) assert.equal(line.includes("zkqxwvbnmpslt"), false, line);
  });

  it("records a timeout once and never retries it", async () => {
    const { org, token, url, received } = await setup("/slow");
    await subscribe(ctx, org.key, url);
    const impatient = testDeliveryClient(ctx, { ca: receiver.ca, totalTimeoutMs: 300 });
    receiver.respondWith("hang");
    try {
      await submitLead(ctx, token, LEAD);
      await drainJobs(ctx, impatient);
    } finally {
      receiver.respondWith(200);
      await impatient.close();
    }
    const [logged] = (await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`)).body.deliveries;
    assert.equal(logged.outcome, "timeout");
    assert.equal(logged.status_code, null);
    clock.advance(3_600_000);
    assert.equal(await drainJobs(ctx, client), 0);
    assert.equal(received().length, 1);
  });

  it("logs a TLS handshake that never completes as the connect timeout, not the total one", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)); // accepts TCP, never speaks TLS
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { org, token } = await setup("/unused-silent");
    await subscribe(ctx, org.key, `https://receiver.test:${(silent.address() as AddressInfo).port}/silent`);
    const impatient = testDeliveryClient(ctx, {
      ca: receiver.ca,
      connectTimeoutMs: 200,
      totalTimeoutMs: 5000,
    });
    try {
      await submitLead(ctx, token, LEAD);
      await drainJobs(ctx, impatient);
    } finally {
      await impatient.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
    const [logged] = (await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`)).body.deliveries;
    assert.equal(logged.outcome, "timeout");
    assert.equal(logged.error, "no connection (TCP and TLS) within the 200 ms connect timeout");
  });

  it("refuses at connect time a name that re-resolves to a private address (DNS rebinding)", async () => {
    const { org, token } = await setup("/unused");
    const target = `https://rebind.test:${receiver.port}/rebound`;
    assert.equal((await subscribe(ctx, org.key, target)).status, 200);
    ctx.resolver.set("rebind.test", ["93.184.216.34", "127.0.0.1"]);
    const strict = testDeliveryClient(ctx, { ca: receiver.ca, allowPrivateTargets: [] });
    try {
      await submitLead(ctx, token, LEAD);
      await drainJobs(ctx, strict);
    } finally {
      ctx.resolver.set("rebind.test", ["93.184.216.34"]);
      await strict.close();
    }
    assert.equal(receiver.requests.filter((request) => request.path === "/rebound").length, 0);
    const [logged] = (await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`)).body.deliveries;
    assert.equal(logged.outcome, "blocked");
    // The delivery log says why in the caller's words; where the name now points is the operator's log's.
    assert.equal(logged.error, "target host rebind.test does not resolve to a public address");
  });

  it("checks IP-literal targets itself (the connect-time lookup never sees them) and verifies TLS for them", async () => {
    const { org, token } = await setup("/unused-literal");
    const literal = receiver.url("/literal", "127.0.0.1");
    assert.equal((await subscribe(ctx, org.key, literal)).status, 200, "allow-listed at subscribe time");
    const strict = testDeliveryClient(ctx, { ca: receiver.ca, allowPrivateTargets: [] });
    try {
      await submitLead(ctx, token, LEAD);
      await drainJobs(ctx, strict);
    } finally {
      await strict.close();
    }
    let log = (await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`)).body.deliveries;
    assert.equal(log[0].outcome, "blocked");
    assert.equal(receiver.requests.filter((request) => request.path === "/literal").length, 0);

    clock.advance(1000);
    // Each time another lead: the same submission again would be the lead already captured.
    await submitLead(ctx, token, { ...LEAD, first_name: "Todd" });
    await drainJobs(ctx, client);
    assert.equal(receiver.requests.filter((request) => request.path === "/literal").length, 1);

    const untrusting = testDeliveryClient(ctx, {});
    clock.advance(1000);
    try {
      await submitLead(ctx, token, { ...LEAD, first_name: "Rod" });
      await drainJobs(ctx, untrusting);
    } finally {
      await untrusting.close();
    }
    log = (await admin(ctx, "GET", `/orgs/${org.orgId}/deliveries`)).body.deliveries;
    assert.equal(log[0].outcome, "error", "a certificate from an unknown CA is refused");
    assert.equal(receiver.requests.filter((request) => request.path === "/literal").length, 1);
  });

  it("sends nothing to a subscription removed before its delivery ran", async () => {
    const { org, token, url, received } = await setup("/removed");
    const subscription = (await subscribe(ctx, org.key, url)).body;
    await submitLead(ctx, token, LEAD);
    await call(ctx, "DELETE", "/api/v1/webhooks/subscribe", { key: org.key, query: { id: subscription.id } });
    await drainJobs(ctx, client);
    assert.equal(received().length, 0);
  });

  it("still delivers after a crash between capture and delivery, and after a worker died holding the job", async () => {
    const { org, token, url, received } = await setup("/crash");
    await subscribe(ctx, org.key, url);
    const first = await submitLead(ctx, token, LEAD);
    const second = await submitLead(ctx, token, { ...LEAD, first_name: "Maude" });

    // A process that starts later, with its own connection to the same database.
    const restarted = await reopenDatabase(ctx);
    try {
      const deps = { db: restarted.db, clock, logger: silentLogger };
      const catalog = buildJobCatalog({ ...deps, deliveryClient: client });
      // A worker claims the second lead's job and dies before finishing it.
      const claimed = await claimJobs(restarted.db, catalog, clock.now(), 1);
      assert.equal(claimed.length, 1);
      assert.equal(
        await drainJobs(ctx, client, restarted.db),
        1,
        "the other job is not blocked by the dead claim",
      );
      assert.equal(
        await drainJobs(ctx, client, restarted.db),
        0,
        "the dead worker's lock holds until it expires",
      );
      clock.advance(61_000);
      assert.equal(await drainJobs(ctx, client, restarted.db), 1);
    } finally {
      if (restarted !== ctx.database) await restarted.close();
    }
    const delivered = received().map((request) => JSON.parse(request.raw.toString("utf8")).id);
    assert.deepEqual(delivered.sort(), [first, second].sort());
  });

  it("lets several workers drain the queue together without delivering any job twice", async () => {
    const { org, token, url, received } = await setup("/race");
    await subscribe(ctx, org.key, url);
    const leadIds: string[] = [];
    for (let index = 0; index < 12; index++) {
      // One page captures at most 5 new leads an hour (docs/landing-pages.md).
      clock.advance(15 * 60_000);
      leadIds.push(await submitLead(ctx, token, { ...LEAD, first_name: `N${index}` }));
    }
    const workers = await Promise.all([reopenDatabase(ctx), reopenDatabase(ctx), reopenDatabase(ctx)]);
    try {
      const counts = await Promise.all(workers.map((database) => drainJobs(ctx, client, database.db)));
      assert.equal(
        counts.reduce((sum, count) => sum + count, 0),
        12,
      );
    } finally {
      for (const database of workers) if (database !== ctx.database) await database.close();
    }
    const delivered = received().map((request) => JSON.parse(request.raw.toString("utf8")).id);
    assert.equal(delivered.length, 12);
    assert.deepEqual([...new Set(delivered)].sort(), [...leadIds].sort());
    const jobs = await queryRows<{ status: string; n: number }>(
      ctx.database.db,
      sql`SELECT status, count(*)::int AS n FROM jobs WHERE org_id = ${org.orgId} AND kind = 'deliver_lead' GROUP BY status`,
    );
    assert.deepEqual(jobs, [{ status: "done", n: 12 }]);
  });
});

/** On PostgreSQL a separate pool on the same schema (another process); PGlite has one connection. */
async function reopenDatabase(ctx: LeadsTestContext): Promise<Database> {
  if (!TEST_DATABASE_URL || !ctx.schema) return ctx.database;
  return openDatabase({ databaseUrl: TEST_DATABASE_URL, searchPath: ctx.schema, poolSize: 2 });
}
