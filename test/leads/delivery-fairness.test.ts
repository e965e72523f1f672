import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { systemClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { deliverLeadJob } from "../../src/jobs/kinds.ts";
import { claimJobs, completeJob, enqueueJob } from "../../src/jobs/queue.ts";
import { startWorker } from "../../src/jobs/worker.ts";
import type { DeliveryClient } from "../../src/webhooks/delivery-client.ts";
import { buildJobCatalog } from "../../src/worker/catalog.ts";
import { createOrg } from "../helpers/api.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";
import { type HttpsReceiver, startHttpsReceiver } from "../helpers/https-receiver.ts";
import {
  createLeadsContext,
  drainJobs,
  type LeadsTestContext,
  mailOnePiece,
  NED_LEAD,
  silentLogger,
  submitLead,
  subscribe,
  testDeliveryClient,
} from "./leads-helpers.ts";

const LEAD = NED_LEAD;
/** deliverLeadJob.maxRunningPerOrg, written out: the number the README documents. */
const CAP = 8;
const HANG_MS = 3000;

async function waitFor(condition: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

describe(`lead deliveries shared fairly between organizations (${databaseLabel})`, () => {
  let ctx: LeadsTestContext;
  let hanging: HttpsReceiver;
  let healthy: HttpsReceiver;
  let client: DeliveryClient;

  before(async () => {
    hanging = await startHttpsReceiver();
    hanging.respondWith("hang");
    healthy = await startHttpsReceiver();
    ctx = await createLeadsContext({
      allowPrivateTargets: ["receiver.test"],
      hosts: { "receiver.test": ["127.0.0.1"] },
    });
    // Without the cap, another org's lead waits at least this long behind the hanging ones.
    client = testDeliveryClient(ctx, { ca: healthy.ca, totalTimeoutMs: HANG_MS });
  });
  after(async () => {
    await client.close();
    await hanging.close();
    await healthy.close();
    await ctx.close();
  });

  /** The worker a process runs (16 slots), polling often so a test does not wait on the poll. */
  function worker(pollIntervalMs = 20) {
    const deps = { db: ctx.database.db, clock: ctx.clock, logger: silentLogger };
    return startWorker(deps, buildJobCatalog({ ...deps, deliveryClient: client }), { pollIntervalMs });
  }

  async function orgWithSubscriptions(receiver: HttpsReceiver, prefix: string, count: number) {
    const org = await createOrg(ctx);
    const page = await mailOnePiece(ctx, org.orgId);
    for (let index = 0; index < count; index++) {
      assert.equal((await subscribe(ctx, org.key, receiver.url(`${prefix}/${index}`))).status, 200);
    }
    return { org, ...page };
  }

  it("delivers another org's lead promptly while one org's 20 receivers hang", async () => {
    const x = await orgWithSubscriptions(hanging, "/x", 20);
    const y = await orgWithSubscriptions(healthy, "/y", 1);
    const running = worker();
    try {
      await submitLead(ctx, x.token, LEAD);
      assert.ok(await waitFor(() => hanging.requests.length >= CAP, 5000), "X's deliveries went out");
      const started = Date.now();
      await submitLead(ctx, y.token, LEAD);
      assert.ok(await waitFor(() => healthy.requests.some((request) => request.path === "/y/0"), 5000));
      const latency = Date.now() - started;
      assert.ok(latency < HANG_MS - 1000, `Y's delivery waited ${latency} ms behind X's hanging receivers`);
      assert.equal(hanging.requests.length, CAP, "X holds no more than its share of slots");
      // X's other deliveries wait their turn and still go out, each once (and time out).
      assert.ok(
        await waitFor(() => hanging.requests.length === 20, 5 * HANG_MS),
        "all of X's deliveries went out",
      );
    } finally {
      await running.stop();
    }
    assert.deepEqual(
      hanging.requests.map((request) => request.path).sort(),
      Array.from({ length: 20 }, (_, index) => `/x/${index}`).sort(),
    );
  });

  it("sends a capped org's next deliveries as soon as places free up, not at the next poll", async () => {
    healthy.respondWith(200);
    const w = await orgWithSubscriptions(healthy, "/w", 20);
    const received = () => healthy.requests.filter((request) => request.path.startsWith("/w/"));
    const running = worker(60_000);
    try {
      const started = Date.now();
      await submitLead(ctx, w.token, LEAD);
      running.wake();
      assert.ok(await waitFor(() => received().length >= 20, 10_000), `${received().length} of 20 received`);
      assert.ok(Date.now() - started < 10_000, "all 20 before the next poll, in rounds of 8");
    } finally {
      await running.stop();
    }
  });

  it("delivers every job of a capped org exactly once, never more than 8 at a time across two workers", async () => {
    healthy.respondWith({ status: 200, afterMs: 100 });
    const z = await orgWithSubscriptions(healthy, "/z", 20);
    // Two different submissions: an identical one would be the same lead (double-submit guard).
    const leads = [
      await submitLead(ctx, z.token, { ...LEAD, message: "First visit" }),
      await submitLead(ctx, z.token, { ...LEAD, message: "Second visit" }),
    ];
    const received = () => healthy.requests.filter((request) => request.path.startsWith("/z/"));
    const workers = [worker(), worker()];
    try {
      assert.ok(await waitFor(() => received().length >= 40, 20_000), `${received().length} of 40 received`);
    } finally {
      await Promise.all(workers.map((each) => each.stop()));
      healthy.respondWith(200);
    }
    assert.ok(
      healthy.peakOpen() <= CAP,
      `${healthy.peakOpen()} deliveries of one org were in flight at once`,
    );
    const pairs = received().map(
      (request) => `${request.path} ${JSON.parse(request.raw.toString("utf8")).id}`,
    );
    assert.equal(new Set(pairs).size, 40, "each lead reached each subscription once");
    for (const leadId of leads) assert.equal(pairs.filter((pair) => pair.endsWith(leadId)).length, 20);
    assert.equal(await drainJobs(ctx, client), 0, "nothing left to send");
    const jobs = await queryRows<{ status: string; attempts: number }>(
      ctx.database.db,
      sql`SELECT status, attempts FROM jobs WHERE kind = 'deliver_lead' AND org_id = ${z.org.orgId}`,
    );
    assert.equal(jobs.length, 40);
    assert.ok(
      jobs.every((job) => job.status === "done" && job.attempts === 1),
      "waiting for a slot cost no attempt",
    );
  });
});

describe(`claiming lead deliveries per organization (${databaseLabel})`, () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let catalog: ReturnType<typeof buildJobCatalog>;
  before(async () => {
    opened = await openTestDatabase();
    const deps = { db: opened.database.db, clock: systemClock, logger: silentLogger };
    catalog = buildJobCatalog({
      ...deps,
      deliveryClient: { post: async () => assert.fail(), close: async () => {} },
    });
  });
  after(async () => opened.drop());

  /** `count` deliveries of one org, created a minute before `now`, a millisecond apart. */
  async function deliveries(orgId: string, count: number, now: Date) {
    for (let index = 0; index < count; index++) {
      const payload = { org_id: orgId, lead_id: randomUUID(), subscription_id: randomUUID() };
      await enqueueJob(opened.database.db, deliverLeadJob, payload, {
        orgId,
        now: new Date(now.getTime() - 60_000 + index),
      });
    }
  }
  const countBy = (jobs: { org_id: string | null }[], orgId: string) =>
    jobs.filter((job) => job.org_id === orgId).length;

  it("hands one org at most 8 per claim and in flight; the rest stay pending and untried until slots free", async () => {
    const db = opened.database.db;
    const now = new Date("2026-11-22T12:00:00Z");
    const [busy, quiet] = [randomUUID(), randomUUID()];
    await deliveries(busy, 20, now);
    await deliveries(quiet, 1, new Date(now.getTime() + 1000)); // newer than all of busy's

    const first = await claimJobs(db, catalog, now, 50);
    assert.equal(countBy(first, busy), CAP);
    assert.equal(countBy(first, quiet), 1, "the newer lead of another org is not left behind");
    assert.equal((await claimJobs(db, catalog, now, 50)).length, 0, "the busy org is at its cap");
    const waiting = await queryRows<{ status: string; attempts: number }>(
      db,
      sql`SELECT status, attempts FROM jobs WHERE org_id = ${busy} AND status <> 'running'`,
    );
    assert.equal(waiting.length, 12);
    assert.ok(waiting.every((job) => job.status === "pending" && job.attempts === 0));

    for (const job of first.filter((each) => each.org_id === busy).slice(0, 3))
      await completeJob(db, job, now);
    const refill = await claimJobs(db, catalog, now, 50);
    assert.equal(countBy(refill, busy), 3, "as many as finished");

    // Locks that ran out (a worker died) do not count; their jobs are taken over first.
    const later = new Date(now.getTime() + (deliverLeadJob.timeoutSeconds + 1) * 1000);
    const takeover = await claimJobs(db, catalog, later, 50);
    assert.equal(countBy(takeover, busy), CAP);
    assert.ok(
      takeover.every((job) => job.attempts === 2),
      "the expired ones, on their second try",
    );
  });

  it("lets two workers claiming at once hand one org no more than 8 together", async () => {
    const db = opened.database.db;
    const now = new Date("2026-11-23T12:00:00Z");
    await db.execute(sql`DELETE FROM jobs`);
    const org = randomUUID();
    await deliveries(org, 30, now);
    const claims = await Promise.all(Array.from({ length: 4 }, () => claimJobs(db, catalog, now, 16)));
    const claimed = claims.flat();
    assert.equal(countBy(claimed, org), CAP);
    assert.equal(new Set(claimed.map((job) => job.id)).size, claimed.length, "no job claimed twice");
  });
});
