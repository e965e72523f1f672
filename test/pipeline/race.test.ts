import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Static } from "typebox";
import { fixedClock } from "../../src/clock.ts";
import { type Database, openDatabase, queryOne, queryRows, sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createHomeImagery } from "../../src/imagery/index.ts";
import { createJobCatalog } from "../../src/jobs/job-kind.ts";
import { processPieceJob } from "../../src/jobs/kinds.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { startWorker } from "../../src/jobs/worker.ts";
import { mailSafetyGates } from "../../src/mail-safety/piece-checks.ts";
import { pipelineJobHandlers } from "../../src/pieces/job-handlers.ts";
import { createTestContext, databaseLabel, TEST_DATABASE_URL, type TestContext } from "../helpers/harness.ts";
import { jobsOf, logger, orgWithAutomation, queuePiece, startFakeLob } from "./helpers.ts";

const PIECES = 12;

// On PostgreSQL the two workers hold separate connection pools, as two processes would, and
// really race for the same rows; on PGlite they share its single connection.
describe(`two workers over the same pieces never mail one twice (${databaseLabel})`, () => {
  let ctx: TestContext;
  let second: Database | undefined;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");

  before(async () => {
    ctx = await createTestContext({ clock });
    if (TEST_DATABASE_URL) {
      second = await openDatabase({ databaseUrl: TEST_DATABASE_URL, searchPath: ctx.schema!, poolSize: 6 });
    }
  });
  after(async () => {
    await second?.close();
    await ctx.close();
  });

  test("each piece reaches Lob once, even with a duplicated job per piece", async () => {
    const lob = await startFakeLob();
    const org = await orgWithAutomation(ctx);
    const pieceIds: string[] = [];
    for (let index = 0; index < PIECES; index++) {
      // Left in its job: the racing workers' first step writes it.
      const piece = await queuePiece(
        ctx,
        org,
        { street: `${100 + index} Oak Lane`, city: "Austin", zip: "78701" },
        { writePiece: false },
      );
      pieceIds.push(piece.id);
      // A second job for the same piece, carrying it too (an operator's replay, a bug upstream):
      // must neither write the piece twice nor mail it again.
      const [original] = await jobsOf(ctx, piece.id);
      const payload = await queryOne<{ payload: unknown }>(
        ctx.database.db,
        sql`SELECT payload FROM jobs WHERE id = ${original!.id}`,
      );
      const carried = payload!.payload;
      await enqueueJob(
        ctx.database.db,
        processPieceJob,
        (typeof carried === "string" ? JSON.parse(carried) : carried) as Static<
          typeof processPieceJob.payload
        >,
        { orgId: org.orgId, now: clock.now() },
      );
    }
    const config = { ...ctx.config, printProvider: "lob" as const, lobApiKey: "k", lobBaseUrl: lob.url };
    const workerFor = (db: Database["db"]) =>
      startWorker(
        { db, clock, logger },
        createJobCatalog(
          pipelineJobHandlers({
            db,
            clock,
            logger,
            config,
            imagery: createHomeImagery(config),
            geocoder: createLocalGeocoder(),
            renderer: ctx.renderer,
            safetyGates: mailSafetyGates,
          }),
        ),
        { pollIntervalMs: 20, concurrency: 4 },
      );
    const workers = [workerFor(ctx.database.db), workerFor((second ?? ctx.database).db)];
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [open] = await queryRows<{ count: number }>(
          ctx.database.db,
          sql`SELECT count(*)::int AS count FROM jobs WHERE kind = 'process_piece' AND status IN ('pending', 'running')`,
        );
        if (open!.count === 0) break;
        assert.ok(Date.now() < deadline, "the workers did not finish in time");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await lob.close();
    }
    const submitted = lob.requests.map((request) => request.idempotencyKey).sort();
    assert.deepEqual(submitted, [...pieceIds].sort());
    const statuses = await queryRows<{ status: string; count: number }>(
      ctx.database.db,
      sql`SELECT status, count(*)::int AS count FROM mail_pieces WHERE org_id = ${org.orgId} GROUP BY status`,
    );
    assert.deepEqual(statuses, [{ status: "submitted", count: PIECES }]);
    const [pieces] = await queryRows<{ count: number }>(
      ctx.database.db,
      sql`SELECT count(*)::int AS count FROM mail_pieces WHERE org_id = ${org.orgId}`,
    );
    assert.equal(pieces!.count, PIECES, "each piece written once by its racing jobs");
  });
});
