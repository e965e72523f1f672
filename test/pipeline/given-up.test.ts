import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createHomeImagery } from "../../src/imagery/index.ts";
import { createJobCatalog, type RegisteredJob } from "../../src/jobs/job-kind.ts";
import { processPieceJob } from "../../src/jobs/kinds.ts";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { mailSafetyGates } from "../../src/mail-safety/piece-checks.ts";
import { pipelineJobHandlers } from "../../src/pieces/job-handlers.ts";
import { admin } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  home,
  jobsOf,
  logger,
  orgWithAutomation,
  pieceRow,
  queuePiece,
  runPipeline,
  startFakeLob,
  tempDataDir,
} from "./helpers.ts";

const LAST_TRY = processPieceJob.maxAttempts;

/*
 * A card's job that is given up (its last try threw, or its worker stopped in it) must not leave the
 * card queued for ever with no reason: the contractor sees it failed and why, and it no longer keeps
 * later cards to its home waiting for it. One its job took for print is the exception: it may be
 * printed already, and a card shown failed would be sent again.
 */
describe(`a card whose job is given up fails with the reason (${databaseLabel})`, () => {
  let ctx: TestContext;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");
  const local = { printProvider: "local" as const, dataDir: tempDataDir() };

  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(async () => ctx.close());

  const pieceOf = async (id: string) => {
    const piece = await admin(ctx, "GET", `/pieces/${id}`);
    assert.equal(piece.status, 200, piece.text);
    return piece.body as { status: string; status_reason: string | null };
  };

  /** The piece's process_piece job, as a worker that died in its last try left it. */
  const abandonLastTry = (pieceId: string) =>
    ctx.database.db.execute(sql`
      UPDATE jobs SET status = 'running', attempts = max_attempts,
        locked_until = ${new Date(clock.now().getTime() - 1000).toISOString()}::timestamptz
      WHERE kind = ${processPieceJob.name} AND payload->>'piece_id' = ${pieceId}`);

  test("a worker that stopped in the last try: the card is written, failed, and a later card to the home is mailed", async () => {
    const org = await orgWithAutomation(ctx);
    // Left in its job, as an event's answer leaves it: the worker died before writing it.
    const first = await queuePiece(ctx, org, undefined, { writePiece: false });
    await abandonLastTry(first.id);
    await runPipeline(ctx, local);

    const failed = await pieceOf(first.id);
    assert.equal(failed.status, "failed");
    assert.match(failed.status_reason ?? "", /could not be made ready for print in 6 tries/);
    assert.match(failed.status_reason ?? "", /stopped before finishing/);
    const [job] = await jobsOf(ctx, first.id);
    assert.equal(job?.status, "failed");

    // The same home again (the frequency cap is on): the failed card was never mailed, so it
    // neither counts against the cap nor keeps this one waiting.
    const second = await queuePiece(ctx, org);
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(second.id)).status, "mailed");
  });

  test("a card that passed its home's rules, then lost its worker: later cards to the home are not kept waiting", async () => {
    const org = await orgWithAutomation(ctx);
    const first = await queuePiece(ctx, org, home("88 Elm St"));
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET home_rules_passed_at = ${clock.now().toISOString()}::timestamptz
          WHERE id = ${first.id}::uuid`,
    );
    await abandonLastTry(first.id);
    const second = await queuePiece(ctx, org, home("88 Elm St"));
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(first.id)).status, "failed");
    assert.equal((await pieceOf(second.id)).status, "mailed");
  });

  test("a last try that throws before the print: the card fails with the error", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org, home("9 Birch Rd"));
    await ctx.database.db.execute(
      sql`UPDATE jobs SET attempts = ${LAST_TRY - 1} WHERE payload->>'piece_id' = ${piece.id}`,
    );
    const config = { ...ctx.config, ...local };
    const deps = {
      db: ctx.database.db,
      clock,
      logger,
      config,
      imagery: createHomeImagery(config),
      geocoder: createLocalGeocoder(),
      renderer: ctx.renderer,
      safetyGates: {
        ...mailSafetyGates,
        printGates: async () => {
          throw new Error("the month's cap could not be read");
        },
      },
    };
    await runPendingJobs({ db: ctx.database.db, clock, logger }, createJobCatalog(pipelineJobHandlers(deps)));
    const failed = await pieceOf(piece.id);
    assert.equal(failed.status, "failed");
    assert.match(failed.status_reason ?? "", /in 6 tries: the month's cap could not be read$/);
    assert.equal((await jobsOf(ctx, piece.id))[0]?.status, "failed");
  });

  test("a card its job took for print, then lost its worker: it may be printed, so it is not failed", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org, home("23 Aspen Way"));
    const [job] = await jobsOf(ctx, piece.id);
    // As claimSubmission leaves it: the worker died after taking the card for print.
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET submission_job_id = ${job!.id}::uuid,
            home_rules_passed_at = ${clock.now().toISOString()}::timestamptz
          WHERE id = ${piece.id}::uuid`,
    );
    await abandonLastTry(piece.id);
    await runPipeline(ctx, local);
    const row = await pieceRow(ctx, piece.id);
    assert.equal(row.status, "queued");
    assert.equal(row.status_reason, null);
    assert.equal((await jobsOf(ctx, piece.id))[0]?.status, "failed");
  });

  test("a last try that times out after taking the card for print: the card is not failed", async () => {
    const lob = await startFakeLob(() => "hang");
    try {
      const org = await orgWithAutomation(ctx);
      const piece = await queuePiece(ctx, org, home("31 Spruce St"));
      await ctx.database.db.execute(
        sql`UPDATE jobs SET attempts = ${LAST_TRY - 1} WHERE payload->>'piece_id' = ${piece.id}`,
      );
      const config = {
        ...ctx.config,
        printProvider: "lob" as const,
        lobApiKey: "test_key",
        lobBaseUrl: lob.url,
      };
      const deps = {
        db: ctx.database.db,
        clock,
        logger,
        config,
        imagery: createHomeImagery(config),
        geocoder: createLocalGeocoder(),
        renderer: ctx.renderer,
        safetyGates: mailSafetyGates,
      };
      // The try goes on past its timeout until it sees the abort; the test waits for its end too.
      let lateTry: Promise<void> = Promise.resolve();
      const quickToTimeOut = (entry: RegisteredJob): RegisteredJob => ({
        ...entry,
        kind: { ...entry.kind, timeoutSeconds: 2 },
        run: (payload, context) => {
          lateTry = entry.run(payload, context);
          return lateTry;
        },
      });
      const handlers = pipelineJobHandlers(deps).map((entry) =>
        entry.kind.name === processPieceJob.name ? quickToTimeOut(entry) : entry,
      );
      await runPendingJobs({ db: ctx.database.db, clock, logger }, createJobCatalog(handlers));
      await lateTry.catch(() => undefined);

      // Lob has it unless the try was slower to draw the card than its timeout: either way it may be printed.
      assert.ok(lob.requests.length <= 1);
      assert.equal((await pieceOf(piece.id)).status, "queued");
      const [job] = await jobsOf(ctx, piece.id);
      assert.equal(job?.status, "failed");
      assert.match(job?.last_error ?? "", /exceeded its 2 s timeout/);
    } finally {
      await lob.close();
    }
  });

  test("a card another job will still take up is left queued for it", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org, home("17 Cedar Ct"));
    await abandonLastTry(piece.id);
    // A second job for the piece, due tomorrow (as a card waiting for an earlier one has).
    await ctx.database.db.execute(sql`
      INSERT INTO jobs (id, org_id, kind, payload, run_at, created_at, updated_at, max_attempts)
      VALUES (gen_random_uuid(), ${org.orgId}::uuid, ${processPieceJob.name},
              ${JSON.stringify({ org_id: org.orgId, piece_id: piece.id })}::jsonb,
              ${new Date(clock.now().getTime() + 86_400_000).toISOString()}::timestamptz,
              ${clock.now().toISOString()}::timestamptz, ${clock.now().toISOString()}::timestamptz, 6)`);
    await runPipeline(ctx, local);
    assert.equal((await pieceOf(piece.id)).status, "queued");
    const jobs = await jobsOf(ctx, piece.id);
    assert.deepEqual(jobs.map((job) => job.status).sort(), ["failed", "pending"]);
  });
});
