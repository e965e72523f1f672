/**
 * Mail's thumbnails of printed cards are drawn ahead too (issue 41): a card handed to the printer
 * queues its organization's sweep, which keeps its front thumbnail final (no key) before anyone
 * looks; the list then reads it from the database, and the browser keeps it for good.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { fixedClock } from "../../src/clock.ts";
import { queryOne, queryRows, sql } from "../../src/db/database.ts";
import { createJobCatalog, handleJob } from "../../src/jobs/job-kind.ts";
import { drawCardImagesJob } from "../../src/jobs/kinds.ts";
import { claimJobs, enqueueJob } from "../../src/jobs/queue.ts";
import { admin } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { home, orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

const SWEEP_DELAY_MS = 10_000;
const PRINTED_CARD_CACHING = "private, max-age=31536000, immutable";

describe(`app API: printed cards' thumbnails drawn ahead (${databaseLabel})`, () => {
  const clock = fixedClock(new Date());
  const dataDir = tempDataDir();
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  let owner: SignedInUser;
  let printed: { id: string }[];
  /** Sides the renderer drew, for the app's routes and the test's pipeline runs alike. */
  let draws = 0;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true, clock });
    const side = ctx.renderer.side.bind(ctx.renderer);
    ctx.renderer.side = async (...args) => {
      draws++;
      return side(...args);
    };
    org = await orgWithAutomation(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-printed@example.com", "owner");
    printed = [];
    for (const street of ["201 Elm St", "202 Elm St", "203 Elm St"]) {
      printed.push(await queuePiece(ctx, org, home(street)));
    }
  });
  after(() => ctx.close());

  // One job at a time: on PostgreSQL, writers at the same instant may each queue a sweep (the
  // pending check cannot see another's uncommitted one; see insertJobUnlessPending). Run one after
  // another, as here, a burst's cards queue exactly one.
  const run = () =>
    runPipeline(ctx, { dataDir, printProvider: "local" }, ctx.database.db, undefined, { batchSize: 1 });
  /** Runs the pipeline, then the sweep it queued once its delay is over; answers the sides the sweep drew. */
  const runThenSweep = async () => {
    await run();
    clock.advance(SWEEP_DELAY_MS);
    const before = draws;
    await run();
    return draws - before;
  };
  const thumbnail = (pieceId: string) =>
    ctx.app.inject({
      method: "GET",
      url: `/app/api/v1/pieces/${pieceId}/proof/front.png?size=thumbnail`,
      headers: { cookie: [...owner.browser.cookies].map(([n, v]) => `${n}=${v}`).join("; ") },
    });
  const kept = async (pieceId: string) => {
    const row = await queryOne<{ png: string; card_key: string | null }>(
      ctx.database.db,
      sql`SELECT encode(png, 'base64') AS png, card_key FROM piece_images
           WHERE org_id = ${org.orgId}::uuid AND piece_id = ${pieceId}::uuid AND image = 'front_thumbnail'`,
    );
    return row && { png: Buffer.from(row.png, "base64"), cardKey: row.card_key };
  };
  const sweeps = (status: string) =>
    queryRows<{ id: string }>(
      ctx.database.db,
      sql`SELECT id FROM jobs WHERE kind = 'draw_waiting_cards' AND org_id = ${org.orgId}::uuid
            AND status = ${status}`,
    );
  const statusOf = async (pieceId: string) => (await admin(ctx, "GET", `/pieces/${pieceId}`)).body.status;
  const proofsCounted = async () =>
    (await ctx.limiter.hit("app-piece-proofs", org.orgId, 1_000_000, 60)).count;

  test("cards printed together queue one sweep, which keeps their thumbnails final before anyone looks", async () => {
    await run();
    for (const piece of printed) assert.equal(await statusOf(piece.id), "mailed");
    assert.equal((await sweeps("pending")).length, 1, "three cards printed, one sweep");
    assert.equal(await kept(printed[0]!.id), undefined, "the sweep waits for the burst to end");

    clock.advance(SWEEP_DELAY_MS);
    const before = draws;
    await run();
    assert.equal((await sweeps("done")).length, 1);
    assert.equal(draws - before, 3, "one drawing per printed card");
    for (const piece of printed) {
      const image = await kept(piece.id);
      assert.ok(image, `piece ${piece.id}'s thumbnail is kept`);
      assert.equal(image.cardKey, null, "final");
      assert.equal((await sharp(image.png).metadata()).width, 320);
    }
  });

  test("the list serves a printed card's thumbnail drawn ahead as immutable: no drawing, no rate limit spent", async () => {
    const counted = await proofsCounted();
    const before = draws;
    for (const piece of printed) {
      const answer = await thumbnail(piece.id);
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers["cache-control"], PRINTED_CARD_CACHING);
      assert.deepEqual(answer.rawPayload, (await kept(piece.id))!.png);
    }
    assert.equal(draws, before, "nothing drawn");
    assert.equal(await proofsCounted(), counted + 1, "no card image counted against the limit");
  });

  test("a later sweep draws only the newly printed card: final images are not drawn again", async () => {
    const finals = await Promise.all(printed.map(async (piece) => (await kept(piece.id))!.png));
    const piece = await queuePiece(ctx, org, home("204 Elm St"));
    assert.equal(await runThenSweep(), 1, "the new card only");
    assert.equal(await statusOf(piece.id), "mailed");
    assert.equal((await kept(piece.id))!.cardKey, null);
    for (const [i, earlier] of printed.entries()) {
      assert.deepEqual((await kept(earlier.id))!.png, finals[i], `piece ${i}'s final image is untouched`);
    }
  });

  test("a profile change queues a sweep that leaves printed cards as they were printed", async () => {
    const finals = await Promise.all(printed.map(async (piece) => (await kept(piece.id))!.png));
    const changed = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Harbor Exteriors", brand_color: "#b91c1c" },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await sweeps("pending")).length, 1);
    assert.equal(await runThenSweep(), 0, "nothing drawn");
    for (const [i, piece] of printed.entries()) {
      const image = (await kept(piece.id))!;
      assert.equal(image.cardKey, null);
      assert.deepEqual(image.png, finals[i]);
    }
  });

  test("a waiting card drawn ahead and then printed has its image made final by the sweep, not drawn again", async () => {
    const approval = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      approval_required: true,
    });
    assert.equal(approval.status, 200, approval.text);
    const piece = await queuePiece(ctx, org, home("205 Elm St"));
    assert.equal(await runThenSweep(), 1, "the waiting card is drawn ahead");
    assert.equal(await statusOf(piece.id), "awaiting_approval");
    const waiting = (await kept(piece.id))!;
    assert.match(waiting.cardKey ?? "", /^[0-9a-f]{64}$/);

    const approved = await owner.browser.request("POST", `/app/api/v1/pieces/${piece.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(await runThenSweep(), 0, "the card printed is the one drawn: nothing drawn");
    assert.equal(await statusOf(piece.id), "mailed");
    const final = (await kept(piece.id))!;
    assert.equal(final.cardKey, null, "final");
    assert.deepEqual(final.png, waiting.png);

    const before = draws;
    const answer = await thumbnail(piece.id);
    assert.equal(answer.headers["cache-control"], PRINTED_CARD_CACHING);
    assert.deepEqual(answer.rawPayload, waiting.png);
    assert.equal(draws, before);
  });

  test("an organization's sweeps never run at once: two queued at the same instant run one after the other", async () => {
    const db = ctx.database.db;
    const now = clock.now();
    for (let i = 0; i < 2; i++) {
      await enqueueJob(db, drawCardImagesJob, { org_id: org.orgId }, { orgId: org.orgId, now });
    }
    const catalog = createJobCatalog([handleJob(drawCardImagesJob, async () => undefined)]);
    assert.equal((await claimJobs(db, catalog, now, 10)).length, 1, "one runs");
    assert.equal((await claimJobs(db, catalog, now, 10)).length, 0, "the other waits for it");
    assert.equal((await sweeps("pending")).length, 1);
  });
});
