import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import sharp from "sharp";
import { queryRows, sql } from "../../src/db/database.ts";
import { THUMBNAIL_WIDTH } from "../../src/pieces/piece-proof.ts";
import { call, recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { submitLead } from "../leads/leads-helpers.ts";
import { orgWithAutomation, queuePiece, runPipeline, tempDataDir } from "../pipeline/helpers.ts";
import { createAppTestContext, inviteAndAccept, type SignedInUser } from "./helpers.ts";

type Piece = { id: string; status: string; created_at: string; automation_id: string | null };

/** Every page of the Mail list for `query`, following next_cursor. */
async function allPages(user: SignedInUser, query = "") {
  const pages: Piece[][] = [];
  let cursor: string | null = null;
  do {
    const separator = query ? "&" : "";
    const url = `/app/api/v1/pieces?${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await user.browser.request("GET", url);
    assert.equal(page.status, 200, page.text);
    pages.push(page.body.pieces);
    cursor = page.body.next_cursor;
  } while (cursor && pages.length < 20);
  return pages;
}

describe(`app API: Mail (${databaseLabel})`, () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<typeof orgWithAutomation>>;
  let owner: SignedInUser;
  let member: SignedInUser;
  let otherOwner: SignedInUser;
  let mailedPiece: { id: string; token: string };
  let suppressedPiece: { id: string };
  let historyCampaignId: string;
  const dataDir = tempDataDir();

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    org = await orgWithAutomation(ctx);
    owner = await inviteAndAccept(ctx, org.orgId, "owner-mail@example.com", "owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-mail@example.com", "member", "Mia Member");
    const other = await orgWithAutomation(ctx);
    otherOwner = await inviteAndAccept(ctx, other.orgId, "owner-other@example.com", "owner");
    await queuePiece(ctx, other);

    // 120 pieces of a recorded mailing, written in one statement: they share one created_at.
    const history = await recordMailing(
      ctx,
      org.orgId,
      Array.from({ length: 120 }, (_, i) => ({
        address: `${100 + i} Elm St, Springfield, IL 62704`,
        mailed_at: "2026-01-15T10:00:00Z",
      })),
      "Past customers",
    );
    historyCampaignId = history.campaign_id;
    mailedPiece = await queuePiece(ctx, org);
    const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "77 Birch Road, Austin, TX 78701" },
    });
    assert.equal(registered.status, 200, registered.text);
    suppressedPiece = await queuePiece(ctx, org, {
      street: "77 Birch Rd",
      city: "Austin",
      state: "TX",
      zip: "78701",
      client_name: "Sam",
    });
    await runPipeline(ctx, { dataDir, printProvider: "local" });
  });
  after(() => ctx.close());

  test("lists every piece once, newest first, a keyset page of 50 at a time", async () => {
    const pages = await allPages(owner);
    assert.deepEqual(
      pages.map((page) => page.length),
      [50, 50, 22],
    );
    const pieces = pages.flat();
    assert.equal(new Set(pieces.map((p) => p.id)).size, 122, "no piece twice, none skipped");
    for (let i = 1; i < pieces.length; i++) {
      assert.ok(pieces[i - 1]!.created_at >= pieces[i]!.created_at, "newest first");
    }
    assert.equal(pieces.filter((p) => p.automation_id === org.automationId).length, 2);
  });

  test("filters by automation, status and date range", async () => {
    const byAutomation = (await allPages(owner, `automation_id=${org.automationId}`)).flat();
    assert.deepEqual(byAutomation.map((p) => p.id).sort(), [mailedPiece.id, suppressedPiece.id].sort());
    const suppressed = (await allPages(owner, "status=suppressed")).flat();
    assert.deepEqual(
      suppressed.map((p) => p.id),
      [suppressedPiece.id],
    );
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    assert.equal((await allPages(owner, `from=${yesterday}&to=${tomorrow}`)).flat().length, 122);
    assert.equal((await allPages(owner, `from=${tomorrow}`)).flat().length, 0);
    assert.equal((await allPages(owner, `to=${yesterday}`)).flat().length, 0);
    const bad = await owner.browser.request("GET", "/app/api/v1/pieces?status=lost");
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, "invalid_payload");
  });

  test("a list row carries recipient, address, automation, status, dates and a thumbnail URL", async () => {
    const list = await owner.browser.request("GET", `/app/api/v1/pieces?automation_id=${org.automationId}`);
    const row = list.body.pieces.find((p: { id: string }) => p.id === mailedPiece.id);
    assert.equal(row.status, "mailed");
    assert.equal(row.recipient_name, "Jane Smith");
    assert.match(row.address, /412 Maple Ave/);
    assert.equal(row.automation_name, "Completed jobs");
    assert.ok(row.mailed_at);
    assert.equal(row.status_reason, null);
    assert.equal(row.thumbnail_url, `/app/api/v1/pieces/${mailedPiece.id}/proof/front.png`);
    const history = await owner.browser.request("GET", "/app/api/v1/pieces?status=mailed");
    const recorded = history.body.pieces.find(
      (p: { campaign_name: string }) => p.campaign_name === "Past customers",
    );
    assert.equal(recorded.automation_id, null);
    assert.equal(recorded.campaign_id, historyCampaignId);
  });

  test("a suppressed piece says why in words, and its timeline ends there", async () => {
    const page = await owner.browser.request("GET", `/app/api/v1/pieces/${suppressedPiece.id}`);
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.status, "suppressed");
    assert.match(page.body.status_reason, /^[A-Z].*customer/);
    assert.deepEqual(
      page.body.timeline.map((step: { step: string }) => step.step),
      ["queued", "suppressed"],
    );
    assert.equal(page.body.timeline[1].detail, page.body.status_reason);
    assert.ok(page.body.timeline[1].at);
    assert.equal(page.body.landing_url, null, "a card never mailed has no page to link to");
    assert.equal(page.body.landing_page_closes_at, null);
  });

  test("a mailed piece's page: proofs, landing link, its leads and conversions, and its timeline", async () => {
    await submitLead(ctx, mailedPiece.token, {
      first_name: "Ned",
      last_name: "Flanders",
      email: "ned@example.com",
      phone: "555-0100",
    });
    const converted = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: {
        address: "412 Maple Ave, Springfield, IL 62704",
        deal_id: "D-77",
        deal_amount: "8400",
        deal_date: new Date().toISOString().slice(0, 10),
      },
    });
    assert.equal(converted.status, 200, converted.text);

    const page = await member.browser.request("GET", `/app/api/v1/pieces/${mailedPiece.id}`);
    assert.equal(page.status, 200, page.text);
    const piece = page.body;
    assert.equal(piece.landing_url, `${ctx.config.publicBaseUrl}/l/${mailedPiece.token}`);
    assert.equal(
      Date.parse(piece.landing_page_closes_at) - Date.parse(piece.mailed_at),
      ctx.config.landingPageTtlDays * 86_400_000,
      "the page closes LANDING_PAGE_TTL_DAYS after mailing",
    );
    assert.equal(piece.front_url, `/app/api/v1/pieces/${mailedPiece.id}/proof/front.svg`);
    assert.deepEqual(piece.sequence, [], "a card without follow-ups is no sequence");
    assert.equal(piece.leads.length, 1);
    assert.equal(piece.leads[0].name, "Ned Flanders");
    assert.equal(piece.leads[0].source, "landing_page");
    assert.equal(piece.conversions.length, 1);
    assert.equal(piece.conversions[0].deal_id, "D-77");
    assert.equal(piece.conversions[0].amount, 8400);

    const steps = Object.fromEntries(
      piece.timeline.map((s: { step: string }) => [s.step, s] as const),
    ) as Record<string, { at: string | null; estimated: boolean; reached: boolean }>;
    assert.deepEqual(Object.keys(steps), [
      "queued",
      "rendered",
      "submitted",
      "mailed",
      "in_transit",
      "delivered",
    ]);
    assert.equal(steps.queued!.estimated, false);
    assert.equal(steps.queued!.at, piece.created_at, "queued is the piece's own creation time");
    assert.equal(steps.mailed!.estimated, false);
    assert.equal(steps.mailed!.at, piece.mailed_at);
    // The local print provider mails at once: rendering and submission left no event of their own.
    assert.equal(steps.rendered!.estimated, true);
    assert.equal(steps.submitted!.estimated, true);
    assert.equal(steps.submitted!.at, piece.mailed_at);
    assert.equal(steps.in_transit!.reached, false);
    assert.equal(steps.delivered!.at, null);
  });

  test("tracking events after mailing show with their own times; a returned card ends as returned", async () => {
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET status = 'returned', status_updated_at = '2030-01-02T03:04:05Z'
          WHERE id = ${mailedPiece.id}::uuid`,
    );
    const page = await owner.browser.request("GET", `/app/api/v1/pieces/${mailedPiece.id}`);
    const steps = page.body.timeline as { step: string; at: string | null; estimated: boolean }[];
    assert.deepEqual(
      steps.map((s) => s.step),
      ["queued", "rendered", "submitted", "mailed", "in_transit", "returned"],
    );
    assert.equal(steps[5]!.at, "2030-01-02T03:04:05.000Z");
    assert.equal(steps[5]!.estimated, false);
    assert.equal(steps[4]!.estimated, true, "no in-transit event came");
  });

  test("a page past its lifetime is not linked, and the card says when it closed; the landing page agrees", async () => {
    const longAgo = new Date(Date.now() - (ctx.config.landingPageTtlDays + 1) * 86_400_000);
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET mailed_at = ${longAgo.toISOString()}::timestamptz WHERE id = ${mailedPiece.id}::uuid`,
    );
    const page = await owner.browser.request("GET", `/app/api/v1/pieces/${mailedPiece.id}`);
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.landing_url, null);
    assert.ok(Date.parse(page.body.landing_page_closes_at) < Date.now(), page.body.landing_page_closes_at);
    const visit = await call(ctx, "GET", `/l/${mailedPiece.token}`);
    assert.equal(visit.status, 404, "the homeowner's page is closed too");
  });

  test("a card's thumbnail is a small PNG; its page's sides are SVG that nothing in runs, gzipped for a browser", async () => {
    const cookie = [...owner.browser.cookies].map(([n, v]) => `${n}=${v}`).join("; ");
    const thumb = await ctx.app.inject({
      method: "GET",
      url: `/app/api/v1/pieces/${mailedPiece.id}/proof/front.png`,
      headers: { cookie },
    });
    assert.equal(thumb.statusCode, 200);
    assert.equal(thumb.headers["content-type"], "image/png");
    assert.equal((await sharp(thumb.rawPayload).metadata()).width, THUMBNAIL_WIDTH);
    for (const side of ["front", "back"]) {
      const url = `/app/api/v1/pieces/${mailedPiece.id}/proof/${side}.svg`;
      const browser = await ctx.app.inject({
        method: "GET",
        url,
        headers: { cookie, "accept-encoding": "gzip, deflate, br, zstd" },
      });
      assert.equal(browser.statusCode, 200);
      assert.equal(browser.headers["content-type"], "image/svg+xml");
      assert.equal(browser.headers["content-encoding"], "gzip");
      assert.equal(browser.headers.vary, "accept-encoding");
      assert.match(String(browser.headers["content-security-policy"]), /default-src 'none'.*sandbox/);
      const svg = gunzipSync(browser.rawPayload).toString("utf8");
      assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      assert.doesNotMatch(svg, /<script|<text|\bon[a-z]+=/i, "text as paths; nothing to run");
      // A 4x6 card with its bleed, at the proofs' 150 dpi.
      const drawn = await sharp(Buffer.from(svg), { density: 150 }).metadata();
      assert.deepEqual([drawn.width, drawn.height], [938, 638]);
      const plain = await ctx.app.inject({ method: "GET", url, headers: { cookie } });
      assert.equal(plain.headers["content-encoding"], undefined, "unzipped for a client that takes no gzip");
      assert.equal(plain.rawPayload.toString("utf8"), svg);
    }
    const front = gunzipSync(
      (
        await ctx.app.inject({
          method: "GET",
          url: `/app/api/v1/pieces/${mailedPiece.id}/proof/front.svg`,
          headers: { cookie, "accept-encoding": "gzip" },
        })
      ).rawPayload,
    ).toString("utf8");
    assert.match(front, /href="data:image\/jpeg;base64,/, "the front carries the home's picture");
  });

  test("a printed card's images are drawn once and then served from the database; a card never printed is drawn when asked and kept by its key", async () => {
    const cookie = [...owner.browser.cookies].map(([n, v]) => `${n}=${v}`).join("; ");
    const get = (pieceId: string, side: string, size = "thumbnail") =>
      ctx.app.inject({
        method: "GET",
        url: `/app/api/v1/pieces/${pieceId}/proof/${side}.${size === "full" ? "svg" : "png"}`,
        headers: { cookie, "accept-encoding": "gzip" },
      });
    const kept = async (pieceId: string) =>
      (
        await queryRows<{ image: string }>(
          ctx.database.db,
          sql`SELECT image FROM piece_images WHERE piece_id = ${pieceId}::uuid ORDER BY image`,
        )
      ).map((row) => row.image);

    const parallel = await Promise.all(Array.from({ length: 8 }, () => get(mailedPiece.id, "front")));
    for (const answer of parallel) {
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers["cache-control"], "private, max-age=31536000, immutable");
    }
    // Each side at each size is drawn and kept on its own: a list asks for fronts only.
    assert.ok((await kept(mailedPiece.id)).includes("front_thumbnail"));
    for (const [side, size] of [
      ["back", "thumbnail"],
      ["front", "full"],
      ["back", "full"],
    ] as const) {
      const answer = await get(mailedPiece.id, side, size);
      assert.equal(answer.statusCode, 200);
      const [stored] = await queryRows<{ bytes: string }>(
        ctx.database.db,
        sql`SELECT encode(bytes, 'base64') AS bytes FROM piece_images
             WHERE piece_id = ${mailedPiece.id}::uuid AND image = ${size === "full" ? side : `${side}_thumbnail`}`,
      );
      assert.deepEqual(
        answer.rawPayload,
        Buffer.from(stored!.bytes, "base64"),
        `${side} ${size} is what was kept`,
      );
    }
    assert.deepEqual(await kept(mailedPiece.id), ["back", "back_thumbnail", "front", "front_thumbnail"]);

    // What is served is the kept image, not a new drawing: replace it and the answer follows.
    const marker = await sharp({ create: { width: 2, height: 1, channels: 3, background: "#123456" } })
      .png()
      .toBuffer();
    await ctx.database.db.execute(
      sql`UPDATE piece_images SET bytes = decode(${marker.toString("base64")}, 'base64')
           WHERE piece_id = ${mailedPiece.id}::uuid AND image = 'front_thumbnail'`,
    );
    const served = await get(mailedPiece.id, "front");
    assert.deepEqual(served.rawPayload, marker);

    const neverPrinted = await get(suppressedPiece.id, "back");
    assert.equal(neverPrinted.statusCode, 200);
    assert.equal(neverPrinted.headers["cache-control"], "private, max-age=60");
    assert.equal((await sharp(neverPrinted.rawPayload).metadata()).width, THUMBNAIL_WIDTH);
    // A card never printed may still change: kept with the key of the card it was drawn from.
    assert.deepEqual(await kept(suppressedPiece.id), ["back_thumbnail"]);
    const [neverPrintedKept] = await queryRows<{ bytes: string; card_key: string | null }>(
      ctx.database.db,
      sql`SELECT encode(bytes, 'base64') AS bytes, card_key FROM piece_images WHERE piece_id = ${suppressedPiece.id}::uuid`,
    );
    assert.match(neverPrintedKept!.card_key ?? "", /^[0-9a-f]{64}$/);
    assert.deepEqual(Buffer.from(neverPrintedKept!.bytes, "base64"), neverPrinted.rawPayload);
    const printedKeys = await queryRows<{ card_key: string | null }>(
      ctx.database.db,
      sql`SELECT card_key FROM piece_images WHERE piece_id = ${mailedPiece.id}::uuid`,
    );
    assert.ok(
      printedKeys.every((row) => row.card_key === null),
      "a printed card's images are final",
    );
  });

  test("another organization's pieces answer 404 and never list; no session answers 401", async () => {
    for (const url of [
      `/app/api/v1/pieces/${mailedPiece.id}`,
      `/app/api/v1/pieces/${mailedPiece.id}/proof/front.png`,
    ]) {
      const answer = await otherOwner.browser.request("GET", url);
      assert.equal(answer.status, 404, url);
      assert.equal(answer.body.error.code, "not_found");
    }
    const theirs = (await allPages(otherOwner)).flat();
    assert.equal(theirs.length, 1);
    assert.ok(!theirs.some((p) => p.id === mailedPiece.id));
    const anonymous = await ctx.app.inject({ method: "GET", url: "/app/api/v1/pieces" });
    assert.equal(anonymous.statusCode, 401);
  });

  test("a cursor the list did not give answers 422", async () => {
    const answer = await owner.browser.request("GET", "/app/api/v1/pieces?cursor=bm90LWEtY3Vyc29y");
    assert.equal(answer.status, 422);
    assert.equal(answer.body.error.code, "invalid_payload");
  });
});
