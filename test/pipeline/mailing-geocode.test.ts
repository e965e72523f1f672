import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createOrg, recordMailing } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { jobsOf, pieceRow, runPipeline } from "./helpers.ts";

describe(`recorded mailings are geocoded in the background (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  it("enqueues a geocode job with each recorded piece and fills its point when the worker runs", async () => {
    const org = await createOrg(ctx);
    const mailing = await recordMailing(ctx, org.orgId, [{ address: "500 Congress Ave, Austin, TX 78701" }]);
    const pieceId = mailing.pieces[0]!.id;
    assert.equal((await pieceRow(ctx, pieceId)).latitude, null, "not geocoded on the request path");
    assert.deepEqual(
      (await jobsOf(ctx, pieceId)).map((job) => [job.kind, job.status]),
      [["geocode_piece", "pending"]],
    );
    await runPipeline(ctx, {});
    const piece = await pieceRow(ctx, pieceId);
    assert.equal(piece.status, "mailed", "a recorded mailing stays mailed");
    assert.ok(
      piece.latitude !== null && Math.abs(piece.latitude - 30.27) < 0.2,
      `latitude ${piece.latitude}`,
    );
  });

  it("records the largest mailing the endpoint allows (5 000 pieces) in one request", async () => {
    const org = await createOrg(ctx);
    const pieces = Array.from({ length: 5000 }, (_, n) => ({ address: `${n + 1} Oak St, Austin, TX 78701` }));
    const mailing = await recordMailing(ctx, org.orgId, pieces);
    assert.equal(mailing.pieces.length, 5000);
    assert.equal(new Set(mailing.pieces.map((piece) => piece.token)).size, 5000, "a landing page each");
    assert.equal(mailing.pieces[4999]!.address, "5000 Oak St, Austin, TX 78701", "in the order sent");
  });
});
