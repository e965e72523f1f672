import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import type { Config } from "../../src/config.ts";
import { queryOne, queryRows, sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createHomeImagery } from "../../src/imagery/index.ts";
import { createJobCatalog } from "../../src/jobs/job-kind.ts";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { mailSafetyGates } from "../../src/mail-safety/piece-checks.ts";
import { pipelineJobHandlers } from "../../src/pieces/job-handlers.ts";
import type { Renderer } from "../../src/render/renderer.ts";
import { admin, call } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import {
  type FakeLobRequest,
  logger,
  orgWithAutomation,
  queuePiece,
  startFakeLob,
  tempDataDir,
} from "./helpers.ts";

const GOOD = { street: "412 Maple Ave", city: "Springfield", state: "IL", zip: "62704" };
/** The three addresses, each queued by the developer API and mailed before verification existed. */
const BAD: { properties: Record<string, string>; reason: RegExp }[] = [
  { properties: { street: "asdf", city: "qwerty" }, reason: /has no house number; the address has no ZIP/ },
  {
    properties: { street: "99999 Imaginary Pkwy", city: "Notacity", state: "ZZ", zip: "00000" },
    reason: /^ZZ is not a US state code; ZIP 00000 does not exist$/,
  },
  {
    properties: { street: "12 Main St", city: "Austin", state: "TX", zip: "10001" },
    reason: /^ZIP 10001 is in NY, not TX$/,
  },
];

/** What Lob's verification answers for a primary line naming a deliverability ("1 Deliverable_Missing_Unit Rd"). */
function lobVerification(body: Buffer) {
  const request = JSON.parse(body.toString("utf8")) as { primary_line: string; city: string; state: string };
  const deliverability = request.primary_line.split(" ")[1]!.toLowerCase();
  return {
    id: "us_ver_test",
    primary_line: `${request.primary_line.toUpperCase()} STANDARD`,
    secondary_line: deliverability === "deliverable_missing_unit" ? "" : "APT 2",
    last_line: "SPRINGFIELD IL 62704-1234",
    deliverability,
    components: { city: "SPRINGFIELD", state: "IL", zip_code: "62704", zip_code_plus_4: "1234" },
  };
}

describe(`address verification before print (${databaseLabel})`, () => {
  let ctx: TestContext;
  let lob: Awaited<ReturnType<typeof startFakeLob>>;
  let verifierDown = false;
  const clock = fixedClock("2026-03-02T15:00:00.000Z");
  const rendered: string[] = [];

  before(async () => {
    ctx = await createTestContext({ clock });
    lob = await startFakeLob((request: FakeLobRequest) => {
      if (!request.path.endsWith("/us_verifications")) return undefined as never;
      if (verifierDown) return { status: 503, body: { error: { message: "down for maintenance" } } };
      return { status: 200, body: lobVerification(request.body) };
    });
  });
  after(async () => {
    await lob.close();
    await ctx.close();
  });

  /** The worker's pipeline, with a renderer that records which pieces it drew. */
  const run = (config: Partial<Config>) => {
    const renderer: Renderer = {
      ...ctx.renderer,
      printFiles: (card, options) => {
        rendered.push(card.landingUrl);
        return ctx.renderer.printFiles(card, options);
      },
    };
    const merged = { ...ctx.config, ...config };
    const deps = {
      db: ctx.database.db,
      clock: ctx.clock,
      logger,
      config: merged,
      imagery: createHomeImagery(merged),
      geocoder: createLocalGeocoder(),
      renderer,
      safetyGates: mailSafetyGates,
    };
    return runPendingJobs(
      { db: ctx.database.db, clock: ctx.clock, logger },
      createJobCatalog(pipelineJobHandlers(deps)),
    );
  };
  const lobPrinting = () => ({ printProvider: "lob" as const, lobApiKey: "test_key", lobBaseUrl: lob.url });
  const lobVerifying = () => ({ ...lobPrinting(), addressVerifier: "lob" as const });
  const pieceOf = async (id: string) => (await admin(ctx, "GET", `/pieces/${id}`)).body;
  const postcardsOf = (pieceId: string) =>
    lob.requests.filter(
      (request) => request.path.endsWith("/postcards") && request.idempotencyKey === pieceId,
    );
  /** The fields of the postcard sent to Lob for the piece (its multipart form). */
  const postcardFields = (pieceId: string) => {
    const [postcard] = postcardsOf(pieceId);
    return new Response(new Uint8Array(postcard!.body), {
      headers: { "content-type": postcard!.contentType ?? "" },
    }).formData();
  };
  const setLevel = async (orgId: string, level: string) => {
    const set = await admin(ctx, "PATCH", `/orgs/${orgId}/mail-safety`, { address_verification: level });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.address_verification, level);
  };

  test("offline, at the default level: the issue's three addresses are undeliverable, never rendered, printed, capped or costed", async () => {
    const org = await orgWithAutomation(ctx);
    assert.equal(
      (await admin(ctx, "GET", `/orgs/${org.orgId}/mail-safety`)).body.address_verification,
      "normal",
    );
    const bad = [];
    for (const address of BAD) {
      // The developer API answers `queued` as the spec says: verification runs in the worker.
      bad.push(await queuePiece(ctx, org, { ...address.properties, client_name: "Pat Doe" }));
    }
    const good = await queuePiece(ctx, org, { ...GOOD, client_name: "Jane Smith" });
    await run(lobPrinting());

    for (const [index, piece] of bad.entries()) {
      const stored = await pieceOf(piece.id);
      assert.equal(stored.status, "undeliverable", JSON.stringify(stored));
      assert.match(stored.status_reason, BAD[index]!.reason);
      assert.equal(stored.mailed_at ?? null, null);
      assert.deepEqual(postcardsOf(piece.id), [], "never sent to the printer");
      assert.ok(!rendered.some((url) => url.endsWith(piece.token)), "never rendered for print");
      assert.equal((await ctx.app.inject({ method: "GET", url: `/l/${piece.token}` })).statusCode, 404);
    }
    assert.equal((await pieceOf(good.id)).status, "submitted");
    assert.equal(postcardsOf(good.id).length, 1);
    // The month's counters (the org's and the automation's), which caps and cost are read from.
    const usage = await queryRows<{ cards: number }>(
      ctx.database.db,
      sql`SELECT cards FROM mail_cap_usage WHERE org_id = ${org.orgId}::uuid`,
    );
    assert.equal(usage.length, 2);
    assert.ok(
      usage.every((row) => Number(row.cards) === 1),
      `only the good card is counted: ${JSON.stringify(usage)}`,
    );
  });

  test("the verified address is the one printed, and a card back from its hold window is not verified twice", async () => {
    const org = await orgWithAutomation(ctx);
    const hold = await admin(ctx, "PATCH", `/automations/${org.automationId}/mail-safety`, {
      hold_minutes: 60,
    });
    assert.equal(hold.status, 200, hold.text);
    const piece = await queuePiece(ctx, org, {
      street: "7 Deliverable Way",
      city: "Springfield",
      state: "IL",
      zip: "62704",
      client_name: "Jane Smith",
    });
    const verificationsBefore = lob.requests.filter((request) =>
      request.path.endsWith("/us_verifications"),
    ).length;
    await run(lobVerifying());
    assert.equal((await pieceOf(piece.id)).status, "held");
    clock.advance(61 * 60_000);
    await run(lobVerifying());
    assert.equal((await pieceOf(piece.id)).status, "submitted");
    const verifications = lob.requests.filter((request) => request.path.endsWith("/us_verifications"));
    assert.equal(verifications.length - verificationsBefore, 1, "verified once");
    const postcard = await postcardFields(piece.id);
    assert.equal(postcard.get("to[address_line1]"), "7 DELIVERABLE WAY STANDARD");
    assert.equal(postcard.get("to[address_line2]"), "APT 2");
    assert.equal(postcard.get("to[address_zip]"), "62704-1234");
    assert.equal(postcard.get("to[address_city]"), "SPRINGFIELD");
  });

  const LOB_EXPECTED: Record<string, Record<string, boolean>> = {
    deliverable: { strict: true, normal: true, relaxed: true },
    deliverable_unnecessary_unit: { strict: false, normal: true, relaxed: true },
    deliverable_incorrect_unit: { strict: false, normal: false, relaxed: true },
    deliverable_missing_unit: { strict: false, normal: false, relaxed: true },
    undeliverable: { strict: false, normal: false, relaxed: false },
  };
  for (const level of ["strict", "normal", "relaxed"]) {
    test(`with Lob's verification at ${level}: each deliverability prints or stops as the level says`, async () => {
      const org = await orgWithAutomation(ctx);
      await setLevel(org.orgId, level);
      const pieces = new Map<string, string>();
      for (const deliverability of Object.keys(LOB_EXPECTED)) {
        const piece = await queuePiece(ctx, org, {
          ...GOOD,
          street: `1 ${deliverability} Rd`,
          client_name: "Jo",
        });
        pieces.set(deliverability, piece.id);
      }
      await run(lobVerifying());
      for (const [deliverability, pieceId] of pieces) {
        const stored = await pieceOf(pieceId);
        const prints = LOB_EXPECTED[deliverability]![level]!;
        assert.equal(stored.status, prints ? "submitted" : "undeliverable", `${deliverability} at ${level}`);
        assert.equal(postcardsOf(pieceId).length, prints ? 1 : 0);
        if (!prints) assert.match(stored.status_reason, new RegExp(`\\(Lob: ${deliverability}\\)$`));
      }
    });
  }

  test("a verifier that cannot answer leaves the card queued for a retry, and prints nothing unchecked", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org, { ...GOOD, street: "3 Deliverable Ct", client_name: "Jo" });
    verifierDown = true;
    try {
      await run(lobVerifying());
    } finally {
      verifierDown = false;
    }
    assert.equal((await pieceOf(piece.id)).status, "queued");
    assert.deepEqual(postcardsOf(piece.id), []);
    const job = await queryOne<{ status: string; last_error: string }>(
      ctx.database.db,
      sql`SELECT status, last_error FROM jobs WHERE payload->>'piece_id' = ${piece.id} AND kind = 'process_piece'`,
    );
    assert.equal(job?.status, "pending");
    assert.match(job?.last_error ?? "", /503/);
  });

  test("the level is the organization's: relaxed lets a street without a number through, strict refuses a city the ZIP does not know", async () => {
    const relaxed = await orgWithAutomation(ctx);
    await setLevel(relaxed.orgId, "relaxed");
    const strict = await orgWithAutomation(ctx);
    await setLevel(strict.orgId, "strict");
    const invalid = await admin(ctx, "PATCH", `/orgs/${strict.orgId}/mail-safety`, {
      address_verification: "lax",
    });
    assert.equal(invalid.status, 422);
    const noNumber = {
      street: "Maple Ave",
      city: "Springfield",
      state: "IL",
      zip: "62704",
      client_name: "Jo",
    };
    const unknownCity = {
      street: "5 Oak St",
      city: "Zzyzxville",
      state: "IL",
      zip: "62704",
      client_name: "Jo",
    };
    const relaxedPiece = await queuePiece(ctx, relaxed, noNumber);
    const strictPiece = await queuePiece(ctx, strict, unknownCity);
    const dataDir = tempDataDir();
    await run({ dataDir });
    assert.equal((await pieceOf(relaxedPiece.id)).status, "mailed");
    const refused = await pieceOf(strictPiece.id);
    assert.equal(refused.status, "undeliverable");
    assert.equal(refused.status_reason, "ZIP 62704 is in Springfield, not Zzyzxville");
  });

  test("the record's address corrected in the CRM, its next event mails the home: the undeliverable card holds nothing back", async () => {
    const org = await orgWithAutomation(ctx);
    const send = (dedupId: string, properties: Record<string, string>) =>
      call(ctx, "POST", "/api/v1/events", {
        key: org.key,
        body: {
          event_type: "job.completed",
          object_type: "job",
          dedup_id: dedupId,
          record: { id: "rec-corrected", properties: { ...properties, client_name: "Pat Doe" } },
        },
      });
    const wrongZip = { street: "412 Maple Ave", city: "Springfield", state: "IL", zip: "10001" };
    assert.equal((await send("dedup-wrong-zip", wrongZip)).status, 202);
    await run(lobPrinting());
    const [first] = (await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`)).body.campaigns.flatMap(
      (campaign: { pieces: { id: string; status: string }[] }) => campaign.pieces,
    );
    assert.equal(first?.status, "undeliverable");

    const corrected = await send("dedup-corrected-zip", GOOD);
    assert.equal(corrected.status, 202, corrected.text);
    assert.equal(corrected.body.outcomes[0].reason, "queued", "no cap, no duplicate: the home had no card");
    await run(lobPrinting());
    const pieces = (await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`)).body.campaigns.flatMap(
      (campaign: { pieces: { id: string; status: string; address: string }[] }) => campaign.pieces,
    );
    const second = pieces.find((piece: { id: string }) => piece.id !== first!.id);
    assert.equal(second?.status, "submitted", JSON.stringify(pieces));
    assert.equal(postcardsOf(second!.id).length, 1);
  });

  test("a state the CRM writes as its name (free text in many CRMs) is mailed with its USPS code", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org, {
      street: "70 Cedar Ln",
      city: "Springfield",
      state: "Illinois",
      zip: "62704",
      client_name: "José Núñez",
    });
    await run(lobPrinting());
    const stored = await pieceOf(piece.id);
    assert.equal(stored.status, "submitted", JSON.stringify(stored));
    const postcard = await postcardFields(piece.id);
    assert.equal(postcard.get("to[address_state]"), "IL");

    // A card stored with the name before this reading (queued around an upgrade) prints the code too.
    const stored2 = await queuePiece(ctx, org, { street: "72 Cedar Ln", city: "Springfield", zip: "62704" });
    await ctx.database.db.execute(
      sql`UPDATE mail_pieces SET state = 'Illinois' WHERE org_id = ${org.orgId}::uuid AND id = ${stored2.id}::uuid`,
    );
    await run(lobPrinting());
    assert.equal((await postcardFields(stored2.id)).get("to[address_state]"), "IL");
  });

  test("a record with a street and a ZIP alone is printed with the ZIP's town and state, not a blank town", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org, { street: "800 Evergreen Terrace", zip: "62704" });
    await run(lobPrinting());
    assert.equal((await pieceOf(piece.id)).status, "submitted");
    const postcard = await postcardFields(piece.id);
    assert.equal(postcard.get("to[address_city]"), "Springfield");
    assert.equal(postcard.get("to[address_state]"), "IL");
    assert.equal(postcard.get("to[address_zip]"), "62704");

    // A town written in lower case prints as the ZIP table spells it; the state as its code.
    const lower = await queuePiece(ctx, org, {
      street: "802 Evergreen Terrace",
      city: "springfield",
      state: "il",
      zip: "62704",
    });
    await run(lobPrinting());
    const lowerCard = await postcardFields(lower.id);
    assert.equal(lowerCard.get("to[address_city]"), "Springfield");
    assert.equal(lowerCard.get("to[address_state]"), "IL");
  });

  test("at the default level, a card to the city's name on its neighbourhood's ZIP (Boston, 02134 Allston) is mailed; a far town's is not", async () => {
    const org = await orgWithAutomation(ctx);
    assert.equal(
      (await admin(ctx, "GET", `/orgs/${org.orgId}/mail-safety`)).body.address_verification,
      "normal",
    );
    const boston = await queuePiece(ctx, org, {
      street: "12 Oak St",
      city: "Boston",
      state: "MA",
      zip: "02134",
      client_name: "Pat Doe",
    });
    const brooklyn = await queuePiece(ctx, org, {
      street: "500 Court St",
      city: "New York",
      state: "NY",
      zip: "11231",
      client_name: "Pat Doe",
    });
    const chicago = await queuePiece(ctx, org, {
      street: "12 Oak St",
      city: "Chicago",
      state: "IL",
      zip: "62704",
      client_name: "Pat Doe",
    });
    await run({ dataDir: tempDataDir() });
    const mailed = await pieceOf(boston.id);
    assert.equal(mailed.status, "mailed", JSON.stringify(mailed));
    const listed = (await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`)).body.campaigns.flatMap(
      (campaign: { pieces: { id: string; address: string }[] }) => campaign.pieces,
    );
    assert.equal(
      listed.find((piece: { id: string }) => piece.id === boston.id)?.address,
      "12 Oak St, Boston, MA 02134",
      "the card carries the town as written",
    );
    assert.equal((await pieceOf(brooklyn.id)).status, "mailed");
    const far = await pieceOf(chicago.id);
    assert.equal(far.status, "undeliverable");
    assert.equal(far.status_reason, "ZIP 62704 is in Springfield, not Chicago");
  });

  test("the developer API's event outcome stays queued for an address that will not verify", async () => {
    const org = await orgWithAutomation(ctx);
    const sent = await call(ctx, "POST", "/api/v1/events", {
      key: org.key,
      body: {
        event_type: "job.completed",
        object_type: "job",
        dedup_id: "dedup-bad-zip",
        record: { id: "rec-bad", properties: BAD[2]!.properties },
      },
    });
    assert.equal(sent.status, 202, sent.text);
    assert.equal(sent.body.outcomes[0].reason, "queued");
  });
});
