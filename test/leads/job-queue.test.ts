import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Type } from "@fastify/type-provider-typebox";
import pino from "pino";
import { fixedClock } from "../../src/clock.ts";
import { queryOne, queryRows, sql } from "../../src/db/database.ts";
import { createJobCatalog, defineJobKind, exponentialBackoff, handleJob } from "../../src/jobs/job-kind.ts";
import { claimJobs, enqueueJob, JOBS_READY_CHANNEL } from "../../src/jobs/queue.ts";
import { runPendingJobs, startWorker } from "../../src/jobs/worker.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";
import { silentLogger } from "./leads-helpers.ts";

const flakyJob = defineJobKind({
  name: "test_flaky",
  payload: Type.Object({ name: Type.String() }),
  maxAttempts: 3,
  backoffSeconds: exponentialBackoff(10, 60),
  timeoutSeconds: 5,
});

describe(`durable job queue (${databaseLabel})`, () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  const clock = fixedClock("2026-11-22T12:00:00Z");
  before(async () => {
    opened = await openTestDatabase();
  });
  after(async () => opened.drop());

  const deps = () => ({ db: opened.database.db, clock, logger: silentLogger });
  /** The test database, refusing every statement as an unreachable server would while `isDown()`. */
  const unreachableWhile = (isDown: () => boolean) =>
    new Proxy(opened.database.db, {
      get(target, property, receiver) {
        if (property === "execute" && isDown())
          return async () => {
            throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
          };
        return Reflect.get(target, property, receiver);
      },
    });
  const jobRow = (id: string) =>
    queryOne<{ status: string; attempts: number; last_error: string | null; run_at: Date }>(
      opened.database.db,
      sql`SELECT status, attempts, last_error, run_at FROM jobs WHERE id = ${id}`,
    );

  it("retries a failing job after its backoff, then marks it failed with the last error", async () => {
    const seen: number[] = [];
    const catalog = createJobCatalog([
      handleJob(flakyJob, async (_payload, context) => {
        seen.push(context.attempt);
        throw new Error(`boom ${context.attempt}`);
      }),
    ]);
    const id = await enqueueJob(opened.database.db, flakyJob, { name: "x" }, { now: clock.now() });
    assert.equal(await runPendingJobs(deps(), catalog), 1);
    let row = await jobRow(id);
    assert.equal(row?.status, "pending");
    assert.equal(row?.last_error, "boom 1");
    assert.equal(new Date(row!.run_at).getTime(), clock.now().getTime() + 10_000);
    assert.equal(await runPendingJobs(deps(), catalog), 0, "not before the backoff");
    clock.advance(10_000);
    assert.equal(await runPendingJobs(deps(), catalog), 1);
    clock.advance(20_000);
    assert.equal(await runPendingJobs(deps(), catalog), 1);
    row = await jobRow(id);
    assert.equal(row?.status, "failed");
    assert.equal(row?.attempts, 3);
    assert.equal(row?.last_error, "boom 3");
    assert.deepEqual(seen, [1, 2, 3]);
    clock.advance(3_600_000);
    assert.equal(await runPendingJobs(deps(), catalog), 0);
  });

  it("claims urgent kinds (lead deliveries) before an older backlog of other kinds", async () => {
    const backlogJob = defineJobKind({ ...flakyJob, name: "test_backlog" });
    const urgentJob = defineJobKind({ ...flakyJob, name: "test_urgent", urgent: true });
    const noop = async () => undefined;
    const catalog = createJobCatalog([handleJob(backlogJob, noop), handleJob(urgentJob, noop)]);
    const db = opened.database.db;
    for (let index = 0; index < 5; index++) {
      await enqueueJob(db, backlogJob, { name: `piece ${index}` }, { now: clock.now() });
    }
    clock.advance(1_000);
    const urgentId = await enqueueJob(db, urgentJob, { name: "lead" }, { now: clock.now() });
    const first = await claimJobs(db, catalog, clock.now(), 2);
    assert.deepEqual(
      first.map((job) => job.kind),
      ["test_urgent", "test_backlog"],
    );
    assert.equal(first[0]!.id, urgentId);
    const rest = await claimJobs(db, catalog, clock.now(), 10);
    assert.equal(rest.length, 4);
    assert.ok(rest.every((job) => job.kind === "test_backlog"));
  });

  it("claims the oldest due jobs of its kinds in run_at order, behind a backlog of thousands, with each kind's lock time", async () => {
    const queued = defineJobKind({ ...flakyJob, name: "test_backlog", timeoutSeconds: 7 });
    const other = defineJobKind({ ...flakyJob, name: "test_backlog_other", timeoutSeconds: 40 });
    const stranger = defineJobKind({ ...flakyJob, name: "test_backlog_stranger" });
    const now = clock.now();
    const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
    // A backlog the statistics have not seen (no ANALYZE), as after a burst of CRM events.
    await opened.database.db.execute(
      sql`INSERT INTO jobs (id, kind, payload, run_at, created_at, updated_at, max_attempts)
          SELECT gen_random_uuid(), ${queued.name}, '{"name":"backlog"}'::jsonb,
                 ${minutesAgo(30).toISOString()}::timestamptz + g * interval '1 ms', ${now.toISOString()}::timestamptz,
                 ${now.toISOString()}::timestamptz, 3
          FROM generate_series(1, 5000) g`,
    );
    const enqueueDue = (kind: typeof queued, name: string, minutes: number) =>
      enqueueJob(opened.database.db, kind, { name }, { now, runAt: minutesAgo(minutes) });
    const stale = await enqueueDue(stranger, "not mine", 90);
    const oldest = await enqueueDue(other, "oldest", 60);
    const second = await enqueueDue(queued, "second", 45);
    const future = await enqueueDue(queued, "later", -5);
    const catalog = createJobCatalog([handleJob(queued, async () => {}), handleJob(other, async () => {})]);
    const claimed = await claimJobs(opened.database.db, catalog, now, 3);
    assert.deepEqual(
      claimed.map((job) => (job.payload as { name: string }).name),
      ["oldest", "second", "backlog"],
    );
    assert.equal(claimed[0]?.id, oldest);
    assert.equal(claimed[1]?.id, second);
    const locks = await queryRows<{ id: string; locked_until: Date | string }>(
      opened.database.db,
      sql`SELECT id, locked_until FROM jobs WHERE id IN (${oldest}, ${second})`,
    );
    const lockSeconds = (id: string) =>
      (new Date(locks.find((row) => row.id === id)!.locked_until).getTime() - now.getTime()) / 1000;
    assert.equal(lockSeconds(oldest), 40, "each kind's own timeout");
    assert.equal(lockSeconds(second), 7);
    assert.equal((await jobRow(stale))?.status, "pending", "a kind this worker does not know stays");
    assert.equal((await jobRow(future))?.status, "pending", "not due yet");
    await opened.database.db.execute(sql`DELETE FROM jobs WHERE kind LIKE 'test_backlog%'`);
  });

  it("completes a job that succeeds on a retry, and refuses a payload that breaks its schema", async () => {
    let calls = 0;
    const catalog = createJobCatalog([
      handleJob(flakyJob, async () => {
        calls++;
        if (calls === 1) throw new Error("transient");
      }),
    ]);
    const id = await enqueueJob(opened.database.db, flakyJob, { name: "y" }, { now: clock.now() });
    await runPendingJobs(deps(), catalog);
    clock.advance(10_000);
    await runPendingJobs(deps(), catalog);
    assert.equal((await jobRow(id))?.status, "done");
    await assert.rejects(
      enqueueJob(opened.database.db, flakyJob, { name: 1 } as never, { now: clock.now() }),
      /invalid test_flaky payload/,
    );
  });

  it("keeps running other jobs while one slow job holds its slot", async () => {
    const slowJob = defineJobKind({ ...flakyJob, name: "test_slow" });
    let releaseSlow: () => void = () => {};
    const slowHeld = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const fastDone: string[] = [];
    await enqueueJob(opened.database.db, slowJob, { name: "slow" }, { now: clock.now() });
    const worker = startWorker(
      deps(),
      createJobCatalog([
        handleJob(slowJob, () => slowHeld),
        handleJob(flakyJob, async (payload) => void fastDone.push(payload.name)),
      ]),
      { pollIntervalMs: 10, concurrency: 2 },
    );
    try {
      for (let index = 0; index < 6; index++) {
        await enqueueJob(opened.database.db, flakyJob, { name: `fast ${index}` }, { now: clock.now() });
      }
      for (let wait = 0; wait < 500 && fastDone.length < 6; wait++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(fastDone.length, 6, "the fast jobs ran while the slow one was still running");
    } finally {
      releaseSlow();
      await worker.stop();
    }
  });

  it("wakes an idle worker through the database's notification as soon as a job is enqueued", async () => {
    const ran: string[] = [];
    const worker = startWorker(
      deps(),
      createJobCatalog([handleJob(flakyJob, async (payload) => void ran.push(payload.name))]),
      { pollIntervalMs: 600_000 },
    );
    const stopListening = await opened.database.listen(JOBS_READY_CHANNEL, () => worker.wake());
    try {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the worker's first look found nothing
      await opened.database.db.transaction(async (tx) => {
        await enqueueJob(tx, flakyJob, { name: "woken" }, { now: clock.now() });
      });
      for (let wait = 0; wait < 500 && ran.length === 0; wait++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(ran, ["woken"], "ran long before the 10-minute poll");
    } finally {
      await stopListening();
      await worker.stop();
    }
  });

  it("runs only the kinds a worker knows, and stops gracefully", async () => {
    const other = defineJobKind({ ...flakyJob, name: "test_other" });
    const ran: string[] = [];
    const id = await enqueueJob(opened.database.db, other, { name: "left alone" }, { now: clock.now() });
    await enqueueJob(opened.database.db, flakyJob, { name: "taken" }, { now: clock.now() });
    const worker = startWorker(
      deps(),
      createJobCatalog([handleJob(flakyJob, async (payload) => void ran.push(payload.name))]),
      { pollIntervalMs: 10 },
    );
    for (let wait = 0; wait < 200 && ran.length === 0; wait++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await worker.stop();
    assert.deepEqual(ran, ["taken"]);
    assert.equal((await jobRow(id))?.status, "pending");
  });

  it("records a failed try once the database is back, instead of leaving the job locked", async () => {
    const kind = defineJobKind({ ...flakyJob, name: "test_outage_outcome" });
    let down = false;
    const flakyDb = unreachableWhile(() => down);
    const catalog = createJobCatalog([
      handleJob(kind, async () => {
        down = true;
        setTimeout(() => {
          down = false;
        }, 500);
        throw new Error("receiver said 500");
      }),
    ]);
    const id = await enqueueJob(opened.database.db, kind, { name: "x" }, { now: clock.now() });
    assert.equal(await runPendingJobs({ ...deps(), db: flakyDb }, catalog), 1);
    const row = await jobRow(id);
    assert.equal(
      row?.status,
      "pending",
      "the try is recorded, so it is retried after its backoff, not its lock",
    );
    assert.equal(row?.last_error, "receiver said 500");
  });

  it("logs one line when claiming starts failing, none while it keeps failing, one when it works again", async () => {
    const lines: { msg: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    let down = true;
    const flakyDb = unreachableWhile(() => down);
    const idle = createJobCatalog([
      handleJob(defineJobKind({ ...flakyJob, name: "test_idle" }), async () => {}),
    ]);
    const worker = startWorker({ db: flakyDb, clock, logger }, idle, { pollIntervalMs: 5 });
    const claimFailures = () =>
      lines.filter((line) => line.msg.startsWith("job worker could not claim")).length;
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(claimFailures(), 1, "dozens of failed claims, one line");
      down = false;
      for (
        let wait = 0;
        wait < 100 && !lines.some((line) => line.msg === "job worker claims jobs again");
        wait++
      )
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(lines.some((line) => line.msg === "job worker claims jobs again"));
    } finally {
      down = false;
      await worker.stop();
    }
  });
});
