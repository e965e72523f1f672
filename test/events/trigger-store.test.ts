import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { type Database, queryOne, queryRows, sql } from "../../src/db/database.ts";
import { processPieceJob } from "../../src/jobs/kinds.ts";
import { newJobRow } from "../../src/jobs/queue.ts";
import { createOrganization } from "../../src/orgs/organizations.ts";
import type { EventSampleRow } from "../../src/trigger/samples.ts";
import {
  type CampaignEnqueue,
  createTriggerStore,
  type TriggerStore,
} from "../../src/trigger/trigger-store.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const NOW = new Date("2026-11-22T12:00:00Z");

function enqueueFor(orgId: string, automationId: string, dedupKey: string | null): CampaignEnqueue {
  const pieceId = randomUUID();
  const campaignId = randomUUID();
  const piece = {
    campaign_id: campaignId,
    recipient_name: 'Jane "Q" O\'Doe \\ {x}',
    address: "12 Oak Lane, Austin, TX 78701",
    street: "12 Oak Lane",
    city: "Austin",
    state: "TX",
    zip: "78701",
    token: randomUUID().replaceAll("-", ""),
    properties: { street: "12 Oak Lane", cf_note: 'quote " and {brace}, comma' },
    queued_at: NOW.toISOString(),
  };
  return {
    campaign: {
      orgId,
      id: campaignId,
      name: `bench${dedupKey ? ` (${dedupKey})` : ""}`,
      automationId,
      origin: "event",
      dedupKind: dedupKey ? "event" : null,
      dedupKey,
    },
    pieceId,
    job: newJobRow(processPieceJob, { org_id: orgId, piece_id: pieceId, piece }, { orgId, now: NOW }),
  };
}

function sampleFor(orgId: string, eventType: string, at: Date): EventSampleRow {
  return {
    orgId,
    id: randomUUID(),
    eventType,
    envelope: { event_type: eventType },
    receivedAt: at,
  };
}

describe(`trigger store: group-committed samples, enqueues and dedup lookups (${databaseLabel})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  let store: TriggerStore;
  let orgId: string;
  const automationId = randomUUID();

  const count = async (table: string, where = sql``) =>
    Number(
      (
        await queryOne<{ n: string }>(
          database.db,
          sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE org_id = ${orgId} ${where}`,
        )
      )?.n,
    );

  before(async () => {
    ({ database, drop } = await openTestDatabase());
    // One statement at a time, so everything submitted together lands in one batch.
    store = createTriggerStore({ database, logger: pino({ level: "silent" }), maxInFlight: 1 });
    orgId = (await createOrganization(database.db, { name: "Writer Co" })).org_id;
  });
  after(async () => drop());

  it("writes every concurrent request's campaign and job (carrying its piece), values intact", async () => {
    const writes = Array.from({ length: 30 }, (_, index) => ({
      enqueues: [enqueueFor(orgId, automationId, `unique-${index}`)],
    }));
    const results = await Promise.all(writes.map((write) => store.write(write)));
    assert.deepEqual(
      results,
      writes.map(() => [true]),
    );
    assert.equal(await count("campaigns"), 30);
    assert.equal(await count("jobs"), 30);
    assert.equal(await count("mail_pieces"), 0, "the job writes the piece when it runs");
    const job = await queryOne<{ recipient_name: string; cf_note: string; campaign_id: string }>(
      database.db,
      sql`SELECT payload->'piece'->>'recipient_name' AS recipient_name,
                 payload->'piece'->'properties'->>'cf_note' AS cf_note,
                 payload->'piece'->>'campaign_id' AS campaign_id
          FROM jobs WHERE payload->>'piece_id' = ${writes[7]!.enqueues[0]!.pieceId}`,
    );
    assert.equal(job?.recipient_name, 'Jane "Q" O\'Doe \\ {x}');
    assert.equal(job?.cf_note, 'quote " and {brace}, comma');
    assert.equal(job?.campaign_id, writes[7]!.enqueues[0]!.campaign.id);
  });

  it("lets exactly one of many same-key requests in one batch win; the rest write nothing", async () => {
    const before = await count("jobs");
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        store.write({ enqueues: [enqueueFor(orgId, automationId, "same-key")] }),
      ),
    );
    assert.equal(results.filter(([written]) => written).length, 1);
    assert.equal(await count("campaigns", sql`AND dedup_key = 'same-key'`), 1);
    assert.equal((await count("jobs")) - before, 1);
  });

  it("never lets one request's bad row fail the requests batched with it", async () => {
    const strangerOrg = randomUUID(); // not an organization: its rows break a foreign key
    const outcomes = await Promise.allSettled([
      store.write({ enqueues: [enqueueFor(orgId, automationId, "good-1")] }),
      store.write({ enqueues: [enqueueFor(strangerOrg, automationId, "bad")] }),
      store.write({ enqueues: [enqueueFor(orgId, automationId, "good-2")] }),
      store.write({ enqueues: [enqueueFor(orgId, automationId, "good-3")] }),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ["fulfilled", "rejected", "fulfilled", "fulfilled"],
    );
    assert.equal(await count("campaigns", sql`AND dedup_key LIKE 'good-%'`), 3);
  });

  it("records samples and keeps each event type's newest 25, even when 40 arrive at once", async () => {
    for (let index = 0; index < 20; index++) {
      await store.write({
        sample: sampleFor(orgId, "job.completed", new Date(NOW.getTime() + index)),
        enqueues: [],
      });
    }
    const burst = Array.from({ length: 40 }, (_, index) =>
      sampleFor(orgId, "job.completed", new Date(NOW.getTime() + 1000 + index)),
    );
    await Promise.all(burst.map((sample) => store.write({ sample, enqueues: [] })));
    await store.flushSamples();
    const last = sampleFor(orgId, "job.completed", new Date(NOW.getTime() + 5000));
    await store.write({ sample: last, enqueues: [] });
    await store.write({ sample: sampleFor(orgId, "deal.won", NOW), enqueues: [] });
    await store.flushSamples();
    assert.equal(await count("event_samples", sql`AND event_type = 'job.completed'`), 25);
    const newest = await queryOne<{ id: string }>(
      database.db,
      sql`SELECT id FROM event_samples WHERE org_id = ${orgId} AND event_type = 'job.completed'
          ORDER BY received_at DESC LIMIT 1`,
    );
    assert.equal(newest?.id, last.id);
    assert.equal(await count("event_samples", sql`AND event_type = 'deal.won'`), 1);
  });

  it("keeps exactly 25 samples of a type written by several writers at once (several API processes)", async () => {
    const writers = Array.from({ length: 4 }, () =>
      createTriggerStore({ database, logger: pino({ level: "silent" }), maxInFlight: 2, maxBatch: 8 }),
    );
    // 12 per writer: under a ring's worth each, so every sample is written and advances the ring.
    const samples = Array.from({ length: 48 }, (_, index) =>
      sampleFor(orgId, "contact.created", new Date(NOW.getTime() + index)),
    );
    await Promise.all(
      samples.map((sample, index) => writers[index % writers.length]!.write({ sample, enqueues: [] })),
    );
    const flushed = await Promise.allSettled(writers.map((writer) => writer.flushSamples()));
    assert.deepEqual(
      flushed.filter((outcome) => outcome.status === "rejected"),
      [],
    );
    assert.equal(await count("event_samples", sql`AND event_type = 'contact.created'`), 25);
    const cursor = await queryOne<{ next_slot: number; received: string | number }>(
      database.db,
      sql`SELECT next_slot, received FROM event_sample_cursors WHERE org_id = ${orgId} AND event_type = 'contact.created'`,
    );
    assert.equal(cursor?.next_slot, 48 % 25, "every written sample advanced the ring once");
    assert.equal(Number(cursor?.received), 48, "every event received is counted, across writers");
  });

  it("writes a burst's newest 25 samples of a type, not every arrival, in one statement", async () => {
    const burst = Array.from({ length: 100 }, (_, index) =>
      sampleFor(orgId, "job.scheduled", new Date(NOW.getTime() + index)),
    );
    for (const sample of burst) await store.write({ sample, enqueues: [] });
    await store.flushSamples();
    const kept = await queryRows<{ id: string }>(
      database.db,
      sql`SELECT id FROM event_samples WHERE org_id = ${orgId} AND event_type = 'job.scheduled' ORDER BY received_at`,
    );
    assert.deepEqual(
      kept.map((row) => row.id),
      burst.slice(75).map((sample) => sample.id),
    );
    const cursor = await queryOne<{ next_slot: number; received: string | number }>(
      database.db,
      sql`SELECT next_slot, received FROM event_sample_cursors WHERE org_id = ${orgId} AND event_type = 'job.scheduled'`,
    );
    assert.equal(cursor?.next_slot, 0, "25 writes advanced the ring once around, not 100");
    assert.equal(Number(cursor?.received), 100, "the 75 samples not written are counted as received");
  });

  it("writes buffered samples by itself within the flush interval", async () => {
    const quick = createTriggerStore({
      database,
      logger: pino({ level: "silent" }),
      // Long enough that "not written with the request" holds on a loaded machine (20 ms flaked at load 14).
      sampleFlushIntervalMs: 1_000,
    });
    await quick.write({ sample: sampleFor(orgId, "deal.lost", NOW), enqueues: [] });
    assert.equal(
      await count("event_samples", sql`AND event_type = 'deal.lost'`),
      0,
      "not written with the request",
    );
    const deadline = Date.now() + 10_000;
    while ((await count("event_samples", sql`AND event_type = 'deal.lost'`)) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(await count("event_samples", sql`AND event_type = 'deal.lost'`), 1);
  });

  it("buffers no sample for an event whose enqueues did not commit (the database went away: 503)", async () => {
    let reachable = false;
    // The real database behind a link that drops the enqueue statement, as an outage would.
    const outage: Pick<Database, "run"> = {
      run: (statement) =>
        reachable || !statement.name.startsWith("trigger_write_batch")
          ? database.run(statement)
          : Promise.reject(
              Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
            ),
    };
    const store = createTriggerStore({ database: outage as Database, logger: pino({ level: "silent" }) });
    const refused = store.write({
      sample: sampleFor(orgId, "job.outage", NOW),
      enqueues: [enqueueFor(orgId, automationId, "during-outage")],
    });
    await assert.rejects(refused, /ECONNREFUSED/);
    reachable = true;
    await store.flushSamples();
    assert.equal(await count("event_samples", sql`AND event_type = 'job.outage'`), 0);
    assert.equal(await count("campaigns", sql`AND dedup_key = 'during-outage'`), 0);
    // The client's retry after the 503 is received, sampled once and queued.
    const retried = await store.write({
      sample: sampleFor(orgId, "job.outage", NOW),
      enqueues: [enqueueFor(orgId, automationId, "during-outage")],
    });
    assert.deepEqual(retried, [true]);
    await store.flushSamples();
    assert.equal(await count("event_samples", sql`AND event_type = 'job.outage'`), 1);
  });

  it("answers batched dedup lookups per key: the committed campaign, or nothing", async () => {
    const held = enqueueFor(orgId, automationId, "lookup-held");
    await store.write({ enqueues: [held] });
    const key = (dedupKey: string, automation = automationId) => ({
      orgId,
      automationId: automation,
      kind: "event",
      key: dedupKey,
    });
    const answers = await Promise.all([
      store.findCampaign(key("lookup-missing")),
      store.findCampaign(key("lookup-held")),
      store.findCampaign(key("lookup-held", randomUUID())),
      store.findCampaign({ ...key("lookup-held"), kind: "deal" }),
      store.findCampaign(key("lookup-held")),
    ]);
    assert.deepEqual(answers, [undefined, held.campaign.id, undefined, undefined, held.campaign.id]);
  });
});
