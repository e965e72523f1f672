/**
 * What the draw-ahead tests share (waiting and printed cards' thumbnails): an organization with an
 * automation and a signed-in owner, a renderer whose drawings are counted (and which can be made to
 * fail), the pipeline run one job at a time, and ways to look at what was kept and queued.
 */
import assert from "node:assert/strict";
import { fixedClock } from "../../src/clock.ts";
import type { Config } from "../../src/config.ts";
import { queryOne, queryRows, sql } from "../../src/db/database.ts";
import { admin } from "../helpers/api.ts";
import { orgWithAutomation, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept } from "./helpers.ts";

/** pieces/draw-ahead.ts: how long a queued sweep waits before it runs. */
export const SWEEP_DELAY_MS = 10_000;

export async function cardImagesContext(ownerEmail: string, config: Partial<Config> = {}) {
  const clock = fixedClock(new Date());
  const ctx = await createAppTestContext({ memoryLimiter: true, clock, config });
  /**
   * Sides the renderer drew, thumbnails and previews, for the app's routes and the test's pipeline runs
   * alike (`draws`), and thumbnails and previews drawn with a card's print files (`printThumbnails`,
   * `printPreviews`); `down` fails every side, and `printImagesDown` leaves the print files without
   * their images (images that could not be drawn).
   */
  const renderer = {
    draws: 0,
    printThumbnails: 0,
    printPreviews: 0,
    down: false,
    printImagesDown: false,
    /** Runs while a card's print files are drawn: between the print's claim of its piece and its receipt. */
    whilePrinting: undefined as (() => Promise<void>) | undefined,
  };
  const counted = <A extends unknown[]>(draw: (...args: A) => Promise<Buffer>) => {
    return async (...args: A) => {
      if (renderer.down) throw new Error("the render pool is down");
      renderer.draws++;
      return draw(...args);
    };
  };
  ctx.renderer.side = counted(ctx.renderer.side.bind(ctx.renderer));
  ctx.renderer.preview = counted(ctx.renderer.preview.bind(ctx.renderer));
  const printFiles = ctx.renderer.printFiles.bind(ctx.renderer);
  ctx.renderer.printFiles = async (card, options) => {
    const { frontThumbnail, previews, ...files } = await printFiles(card, options);
    await renderer.whilePrinting?.();
    if (renderer.printImagesDown) return { ...files, imagesError: "the images could not be drawn" };
    if (frontThumbnail) renderer.printThumbnails++;
    renderer.printPreviews += Object.keys(previews ?? {}).length;
    return { ...files, ...(frontThumbnail ? { frontThumbnail } : {}), ...(previews ? { previews } : {}) };
  };
  const org = await orgWithAutomation(ctx);
  const owner = await inviteAndAccept(ctx, org.orgId, ownerEmail, "owner");
  const dataDir = tempDataDir();
  const db = ctx.database.db;

  const look = (url: string) =>
    ctx.app.inject({
      method: "GET",
      url,
      headers: {
        cookie: [...owner.browser.cookies].map(([n, v]) => `${n}=${v}`).join("; "),
        "accept-encoding": "gzip, deflate, br",
      },
    });

  // One job at a time: on PostgreSQL, writers at the same instant may each queue a sweep (the
  // pending check cannot see another's uncommitted one; see insertJobUnlessPending). Run one after
  // another, as here, a burst's cards queue exactly one.
  const run = () => runPipeline(ctx, { dataDir, printProvider: "local" }, db, undefined, { batchSize: 1 });
  return {
    clock,
    ctx,
    org,
    owner,
    renderer,
    run,
    /** The automation's cards wait for a person's approval from now on. */
    async requireApproval() {
      const approval = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
        approval_required: true,
      });
      assert.equal(approval.status, 200, approval.text);
    },
    /** Runs the pipeline, then the sweep it queued once its delay is over; answers the sides the sweep drew. */
    async runThenSweep() {
      await run();
      clock.advance(SWEEP_DELAY_MS);
      const before = renderer.draws;
      await run();
      return renderer.draws - before;
    },
    /** Mail's list image of the piece, as the owner's browser asks for it. */
    thumbnail: (pieceId: string) => look(`/app/api/v1/pieces/${pieceId}/proof/front.png`),
    /** A card image at `url`, as the owner's browser asks for it (taking gzip). */
    look,
    async kept(pieceId: string, image = "front_thumbnail") {
      const row = await queryOne<{ bytes: string; card_key: string | null }>(
        db,
        sql`SELECT encode(bytes, 'base64') AS bytes, card_key FROM piece_images
             WHERE org_id = ${org.orgId}::uuid AND piece_id = ${pieceId}::uuid AND image = ${image}`,
      );
      return row && { bytes: Buffer.from(row.bytes, "base64"), cardKey: row.card_key };
    },
    sweeps: (status: string) =>
      queryRows<{ id: string }>(
        db,
        sql`SELECT id FROM jobs WHERE kind = 'draw_waiting_cards' AND org_id = ${org.orgId}::uuid
              AND status = ${status}`,
      ),
    /** Card images counted against the org's limit so far (this look counts one more). */
    proofsCounted: async () => (await ctx.limiter.hit("app-piece-proofs", org.orgId, 1_000_000, 60)).count,
  };
}
