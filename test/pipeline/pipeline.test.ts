import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createKillSwitch } from "../../src/automations/kill-switch.ts";
import { fixedClock } from "../../src/clock.ts";
import { queryRows, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { signLobPayload } from "../../src/pieces/lob-tracking.ts";
import { admin, call } from "../helpers/api.ts";
import { createTestContext, type TestContext } from "../helpers/harness.ts";
import {
  adminBytes,
  decodeQr,
  jobsOf,
  orgWithAutomation,
  pieceRow,
  queuePiece,
  runPipeline,
  startFakeLob,
  tempDataDir,
} from "./helpers.ts";

const START = "2026-03-02T15:00:00.000Z";
const LOB_SECRET = "lob-webhook-secret-for-tests";

describe("campaign pipeline", () => {
  let ctx: TestContext;
  const clock = fixedClock(START);

  before(async () => {
    ctx = await createTestContext({ clock, config: { lobWebhookSecret: LOB_SECRET } });
  });
  after(async () => ctx.close());

  test("the proof PNG carries a QR code that decodes to the piece's exact landing URL", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org);
    const png = await adminBytes(ctx, `/pieces/${piece.id}/proof.png`);
    assert.equal(png.status, 200);
    assert.equal(png.type, "image/png");
    assert.equal(await decodeQr(png.bytes), `${ctx.config.publicBaseUrl}/l/${piece.token}`);
    assert.equal(piece.landing_url, `${ctx.config.publicBaseUrl}/l/${piece.token}`);
  });

  test("the proof PDF has two pages (front, back) of 6.25 × 4.25 in: the 4 × 6 in card plus 0.125 in bleed", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org);
    const pdf = await adminBytes(ctx, `/pieces/${piece.id}/proof.pdf`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.type, "application/pdf");
    const text = pdf.bytes.toString("latin1");
    assert.ok(text.startsWith("%PDF-"));
    assert.equal(text.match(/\/Type \/Page\b/g)?.length, 2);
    assert.match(text, /\/MediaBox \[0 0 450 306\]/);
  });

  test("a 6x9 template renders 9.25 × 6.25 in pages", async () => {
    const org = await orgWithAutomation(ctx);
    const set = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, { size: "6x9" });
    assert.equal(set.status, 200, set.text);
    const piece = await queuePiece(ctx, org);
    const pdf = await adminBytes(ctx, `/pieces/${piece.id}/proof.pdf`);
    assert.match(pdf.bytes.toString("latin1"), /\/MediaBox \[0 0 666 450\]/);
  });

  test("an unknown piece's proof is 404", async () => {
    const missing = await adminBytes(ctx, "/pieces/00000000-0000-4000-8000-000000000000/proof.png");
    assert.equal(missing.status, 404);
  });

  test("templates: merge fields fill in, missing values print a fallback, never 'undefined'", async () => {
    const org = await orgWithAutomation(ctx);
    const set = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, {
      headline: "Hello {{client_name}} at {{street}}",
      message: "{{org_name}} loves {{city}}. Roof: {{cf_roof|your roof}}.",
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.template.size, "4x6");
    const { applyMergeFields } = await import("../../src/render/merge.ts");
    const merged = applyMergeFields(set.body.template.message, {
      org_name: "Acme Co.",
      city: "",
      cf_roof: undefined,
    });
    assert.equal(merged, "Acme Co. loves your neighborhood. Roof: your roof.");
    assert.equal(applyMergeFields("from {{org_name}}.", { org_name: "Acme Co." }), "from Acme Co.");
    assert.equal(applyMergeFields(set.body.template.headline, {}), "Hello Neighbor at your home");
    const piece = await queuePiece(ctx, org, { street: "9 Elm St", zip: "62704" });
    const png = await adminBytes(ctx, `/pieces/${piece.id}/proof.png`);
    assert.equal(png.status, 200);
  });

  test("templates: a custom field without a fallback or an unknown field is 422 naming it", async () => {
    const org = await orgWithAutomation(ctx);
    const noFallback = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, {
      message: "About your {{cf_roof}}",
    });
    assert.equal(noFallback.status, 422);
    assert.match(noFallback.body.detail, /message: merge field \{\{cf_roof\}\} needs a fallback/);
    const unknown = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, {
      headline: "Hi {{first_name}}",
    });
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.detail, /headline: unknown merge field \{\{first_name\}\}/);
    const badSize = await admin(ctx, "PUT", `/automations/${org.automationId}/template`, { size: "5x7" });
    assert.equal(badSize.status, 422);
  });

  test("local provider: the worker writes front/back PDFs and a manifest, and marks the piece mailed", async () => {
    const dataDir = tempDataDir();
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org);
    assert.equal((await pieceRow(ctx, piece.id)).status, "queued");
    await runPipeline(ctx, { dataDir, printProvider: "local" });

    const row = await pieceRow(ctx, piece.id);
    assert.equal(row.status, "mailed");
    assert.equal(new Date(row.mailed_at!).toISOString(), START);
    assert.equal(row.provider, "local");
    assert.notEqual(row.latitude, null, "geocoded on the way");
    const dir = path.join(dataDir, "outbox", piece.id);
    for (const file of ["front.pdf", "back.pdf"]) {
      assert.ok(readFileSync(path.join(dir, file)).toString("latin1").startsWith("%PDF-"));
    }
    const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
    assert.equal(manifest.piece_id, piece.id);
    assert.equal(manifest.landing_url, piece.landing_url);
    assert.deepEqual(manifest.to, {
      name: "Jane Smith",
      line1: "412 Maple Ave",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    const [job] = await jobsOf(ctx, piece.id);
    assert.equal(job?.status, "done");
  });

  test("an address on one line mails its street as written (not the parser's capitals) and its town", async () => {
    const dataDir = tempDataDir();
    const org = await orgWithAutomation(ctx);
    const fired = await call(ctx, "POST", `/api/v1/webhooks/trigger?id=${org.automationId}`, {
      key: org.key,
      body: {
        deal_id: "one-line-1",
        address: "412 Maple Ave, Apt 3, springfield, IL 62704",
        name: "Jane Smith",
      },
    });
    assert.equal(fired.status, 202, fired.text);
    await runPipeline(ctx, { dataDir, printProvider: "local" });
    const [piece] = await queryRows<{ id: string; status: string }>(
      ctx.database.db,
      sql`SELECT id, status FROM mail_pieces WHERE campaign_id = ${fired.body.queue_id}::uuid`,
    );
    assert.equal(piece?.status, "mailed");
    const manifest = JSON.parse(
      readFileSync(path.join(dataDir, "outbox", piece.id, "manifest.json"), "utf8"),
    );
    assert.equal(manifest.to.line1, "412 Maple Ave Apt 3");
    assert.equal(manifest.to.city, "Springfield");
    assert.deepEqual([manifest.to.state, manifest.to.zip], ["IL", "62704"]);
  });

  test("the kill switch holds queued mail (not only new events) until automations resume", async () => {
    const dataDir = tempDataDir();
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org);
    // A fresh switch per run: its one-second cache never expires under the fixed clock.
    const paused = () => createKillSwitch({ db: ctx.database.db, clock }).isPaused();
    assert.equal((await admin(ctx, "PUT", "/kill-switch", { paused: true })).status, 200);
    try {
      await runPipeline(ctx, { dataDir, printProvider: "local" }, ctx.database.db, paused);
      assert.equal((await pieceRow(ctx, piece.id)).status, "queued");
      assert.equal((await jobsOf(ctx, piece.id))[0]?.status, "pending", "held, no attempt spent");
    } finally {
      await admin(ctx, "PUT", "/kill-switch", { paused: false });
    }
    await runPipeline(ctx, { dataDir, printProvider: "local" }, ctx.database.db, paused);
    assert.equal((await pieceRow(ctx, piece.id)).status, "mailed");
  });

  test("suppression at mail time: a registered customer's piece becomes suppressed, unless the automation opts out", async () => {
    const dataDir = tempDataDir();
    const address = { street: "77 Birch Rd", city: "Austin", state: "TX", zip: "78701", client_name: "Sam" };
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org, address);
    const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "77 Birch Road, Austin, TX 78701" },
    });
    assert.equal(registered.status, 200, registered.text);
    await runPipeline(ctx, { dataDir });
    const row = await pieceRow(ctx, piece.id);
    assert.equal(row.status, "suppressed");
    assert.equal(row.mailed_at, null);
    assert.match(row.status_reason!, /registered customer/);
    assert.equal(existsSync(path.join(dataDir, "outbox", piece.id)), false);

    const optedOut = await orgWithAutomation(ctx, { suppress_customers: false });
    await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: optedOut.key,
      body: { address: "77 Birch Rd, Austin, TX 78701" },
    });
    const mailed = await queuePiece(ctx, optedOut, address);
    await runPipeline(ctx, { dataDir });
    assert.equal((await pieceRow(ctx, mailed.id)).status, "mailed");
  });

  test("suppression finds the customer registered with less of the locality, never one in another town", async () => {
    const dataDir = tempDataDir();
    const org = await orgWithAutomation(ctx);
    const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: {
        addresses: ["2004 Pine Rd, Springfield, IL", "2005 Birch Blvd, 62704", "9 Elm St, Chicago, IL 60601"],
      },
    });
    assert.equal(registered.status, 200, registered.text);
    const home = (street: string) => ({ street, city: "Springfield", state: "IL", zip: "62704" });
    const withoutZip = await queuePiece(ctx, org, home("2004 Pine Road"));
    const withoutCity = await queuePiece(ctx, org, home("2005 Birch Boulevard"));
    const otherTown = await queuePiece(ctx, org, home("9 Elm St"));
    const zipOnly = await queuePiece(ctx, org, { street: "2004 Pine Rd", zip: "62704" });
    const zipOfAnotherCity = await queuePiece(ctx, org, { street: "2004 Pine Rd", zip: "60601" });
    await runPipeline(ctx, { dataDir });
    assert.equal((await pieceRow(ctx, withoutZip.id)).status, "suppressed");
    assert.equal((await pieceRow(ctx, withoutCity.id)).status, "suppressed");
    assert.equal((await pieceRow(ctx, otherTown.id)).status, "mailed", "9 Elm St of Chicago is another home");
    assert.equal((await pieceRow(ctx, zipOnly.id)).status, "suppressed", "62704 is Springfield, IL");
    assert.equal((await pieceRow(ctx, zipOfAnotherCity.id)).status, "mailed", "60601 is Chicago");
  });

  test("suppression finds the customer registered with the home's neighbourhood or another spelling of its town", async () => {
    const dataDir = tempDataDir();
    const org = await orgWithAutomation(ctx);
    const registered = await call(ctx, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: {
        addresses: [
          "6801 Hollywood Blvd, Hollywood, CA 90028",
          "500 Court St, New York, NY 11231",
          "12 Main St, Winston-Salem, NC",
          "1 Chain Bridge Rd, McLean, VA",
        ],
      },
    });
    assert.equal(registered.status, 200, registered.text);
    const postalTown = await queuePiece(ctx, org, {
      street: "6801 Hollywood Boulevard",
      city: "Los Angeles",
      state: "CA",
      zip: "90028",
    });
    const borough = await queuePiece(ctx, org, {
      street: "500 Court St",
      city: "Brooklyn",
      state: "NY",
      zip: "11231",
    });
    const tableSpelling = await queuePiece(ctx, org, {
      street: "12 Main St",
      city: "Winston Salem",
      state: "NC",
      zip: "27101",
    });
    const withZip = await queuePiece(ctx, org, {
      street: "1 Chain Bridge Rd",
      city: "Mc Lean",
      state: "VA",
      zip: "22101",
    });
    const otherZip = await queuePiece(ctx, org, {
      street: "500 Court St",
      city: "Brooklyn",
      state: "NY",
      zip: "11201",
    });
    await runPipeline(ctx, { dataDir });
    assert.equal((await pieceRow(ctx, postalTown.id)).status, "suppressed", "90028 is Los Angeles");
    assert.equal((await pieceRow(ctx, borough.id)).status, "suppressed", "11231 is Brooklyn");
    assert.equal((await pieceRow(ctx, tableSpelling.id)).status, "suppressed", "Winston-Salem");
    assert.equal((await pieceRow(ctx, withZip.id)).status, "suppressed", "McLean");
    assert.equal((await pieceRow(ctx, otherZip.id)).status, "mailed", "11201 is another home");
  });

  test("the operator marks a queued piece mailed; a repeat without a date keeps the first date", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(ctx, org);
    const first = await admin(ctx, "POST", `/pieces/${piece.id}/mailed`, {});
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, "mailed");
    assert.equal(first.body.mailed_at, clock.now().toISOString());
    clock.advance(60_000);
    const repeat = await admin(ctx, "POST", `/pieces/${piece.id}/mailed`, {});
    assert.equal(repeat.body.mailed_at, first.body.mailed_at);
    // Its body is all optional: none at all is `{}`.
    const withoutBody = await admin(ctx, "POST", `/pieces/${piece.id}/mailed`);
    assert.equal(withoutBody.status, 200, withoutBody.text);
    assert.equal(withoutBody.body.mailed_at, first.body.mailed_at);
    const corrected = await admin(ctx, "POST", `/pieces/${piece.id}/mailed`, {
      mailed_at: "2026-03-01T09:00:00Z",
    });
    assert.equal(corrected.body.mailed_at, "2026-03-01T09:00:00.000Z");
    const future = new Date(clock.now().getTime() + 2 * 86_400_000).toISOString();
    const ahead = await admin(ctx, "POST", `/pieces/${piece.id}/mailed`, { mailed_at: future });
    assert.equal(ahead.status, 422);
    assert.equal(ahead.body.detail, "mailed_at: must not be more than 24 hours in the future");
    const history = await admin(ctx, "POST", `/orgs/${org.orgId}/mailings`, {
      pieces: [
        { address: "1 Elm St, Springfield, IL 62704" },
        { address: "2 Elm St, Springfield, IL 62704", mailed_at: future },
      ],
    });
    assert.equal(history.status, 422);
    assert.equal(history.body.detail, "pieces[1].mailed_at: must not be more than 24 hours in the future");
    assert.equal((await admin(ctx, "POST", `/pieces/${crypto.randomUUID()}/mailed`, {})).status, 404);
  });

  test("suppress_customers defaults by kind: on for standard, off for deal_won, also when the kind changes", async () => {
    const standard = await orgWithAutomation(ctx);
    const automation = (id: string) =>
      queryRows<{ suppress_customers: boolean }>(
        ctx.database.db,
        sql`SELECT suppress_customers FROM automations WHERE id = ${id}::uuid`,
      ).then((rows) => rows[0]!.suppress_customers);
    assert.equal(await automation(standard.automationId), true);
    const toWon = await admin(ctx, "PATCH", `/automations/${standard.automationId}`, { kind: "deal_won" });
    assert.equal(toWon.status, 200, toWon.text);
    assert.equal(toWon.body.suppress_customers, false);
    const explicit = await admin(ctx, "PATCH", `/automations/${standard.automationId}`, {
      kind: "deal_won",
      suppress_customers: true,
    });
    assert.equal(explicit.body.suppress_customers, true);
    const renamed = await admin(ctx, "PATCH", `/automations/${standard.automationId}`, { name: "Renamed" });
    assert.equal(renamed.body.suppress_customers, true);
    const sameKind = await admin(ctx, "PATCH", `/automations/${standard.automationId}`, { kind: "deal_won" });
    assert.equal(sameKind.body.suppress_customers, true, "naming the kind it has keeps the explicit setting");
    assert.equal(await automation(standard.automationId), true);
    const back = await admin(ctx, "PATCH", `/automations/${standard.automationId}`, { kind: "standard" });
    assert.equal(back.body.suppress_customers, true, "a real change of kind takes the new kind's default");
  });

  test("a deal_won trigger's card reaches the customer it registered (suppression is off by default there)", async () => {
    const dataDir = tempDataDir();
    const org = await orgWithAutomation(ctx, { name: "Thank you card", kind: "deal_won" });
    const fired = await call(ctx, "POST", `/api/v1/webhooks/trigger?id=${org.automationId}`, {
      key: org.key,
      body: { deal_id: "won-1", address: "15 Aspen Ct, Austin, TX 78701", deal_amount: "9000" },
    });
    assert.equal(fired.status, 202, fired.text);
    assert.equal(fired.body.customer_added, true);
    assert.equal(fired.body.queued, true);
    await runPipeline(ctx, { dataDir });
    const [piece] = await queryRows<{ id: string; status: string }>(
      ctx.database.db,
      sql`SELECT id, status FROM mail_pieces WHERE campaign_id = ${fired.body.queue_id}::uuid`,
    );
    assert.equal(piece?.status, "mailed");
  });

  test("an event's piece is written and keyed by its job, not the request, and a conversion then matches it", async () => {
    const org = await orgWithAutomation(ctx);
    const piece = await queuePiece(
      ctx,
      org,
      { street: "9 Quarry Lane", city: "Boulder", state: "CO", zip: "80302" },
      { writePiece: false },
    );
    const onRequest = await queryRows(
      ctx.database.db,
      sql`SELECT id FROM mail_pieces WHERE id = ${piece.id}`,
    );
    assert.deepEqual(onRequest, [], "the request writes the campaign and its job only");
    await runPipeline(ctx, { dataDir: tempDataDir() });
    const mailed = await pieceRow(ctx, piece.id);
    assert.equal(mailed.status, "mailed");
    assert.equal(mailed.normalized_address, normalizeAddress("9 Quarry Lane, Boulder, CO 80302"));

    const conversion = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: { address: "9 Quarry Ln., Boulder CO 80302", deal_id: `deal-${piece.id}` },
    });
    assert.equal(conversion.status, 200, conversion.text);
    assert.equal(conversion.body.matched, true, conversion.text);
  });

  test("lob: submits once with the piece id as Idempotency-Key, stores the postcard id, then tracking moves the piece", async () => {
    const lob = await startFakeLob();
    try {
      const org = await orgWithAutomation(ctx);
      const piece = await queuePiece(ctx, org);
      await runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
      assert.equal(lob.requests.length, 1);
      const [request] = lob.requests;
      assert.equal(request!.idempotencyKey, piece.id);
      assert.equal(request!.authorization, `Basic ${Buffer.from("test_key:").toString("base64")}`);
      assert.match(request!.contentType!, /^multipart\/form-data/);
      const form = request!.body.toString("latin1");
      assert.match(form, /name="to\[address_line1\]"\r\n\r\n412 Maple Ave/);
      assert.match(form, /name="size"\r\n\r\n4x6/);
      assert.match(form, /name="front"; filename="front.pdf"/);

      const submitted = await pieceRow(ctx, piece.id);
      assert.equal(submitted.status, "submitted");
      assert.equal(submitted.provider, "lob");
      assert.match(submitted.provider_id!, /^psc_/);
      assert.equal(submitted.mailed_at, null);

      const post = (event: string, options: { secret?: string; timestamp?: string } = {}) => {
        const body = Buffer.from(
          JSON.stringify({
            id: `evt_${event}`,
            event_type: { id: event },
            date_created: "2026-03-03T10:00:00.000Z",
            body: { id: submitted.provider_id, object: "postcard" },
          }),
        );
        const timestamp = options.timestamp ?? String(Math.floor(clock.now().getTime() / 1000));
        return ctx.app.inject({
          method: "POST",
          url: "/webhooks/lob",
          headers: {
            "content-type": "application/json",
            "lob-signature-timestamp": timestamp,
            "lob-signature": signLobPayload(options.secret ?? LOB_SECRET, timestamp, body),
          },
          payload: body,
        });
      };
      assert.equal((await post("postcard.mailed", { secret: "wrong" })).statusCode, 401);
      assert.equal((await post("postcard.mailed", { timestamp: "1000" })).statusCode, 401, "stale timestamp");
      assert.equal((await pieceRow(ctx, piece.id)).status, "submitted");

      const mailed = await post("postcard.mailed");
      assert.equal(mailed.statusCode, 200, mailed.body);
      assert.equal(JSON.parse(mailed.body).status, "mailed");
      const mailedRow = await pieceRow(ctx, piece.id);
      assert.equal(mailedRow.status, "mailed");
      assert.equal(new Date(mailedRow.mailed_at!).toISOString(), "2026-03-03T10:00:00.000Z");

      await post("postcard.in_transit");
      await post("postcard.delivered");
      await post("postcard.in_transit");
      const delivered = await pieceRow(ctx, piece.id);
      assert.equal(delivered.status, "delivered", "a late in_transit does not move it back");
      assert.equal(new Date(delivered.mailed_at!).toISOString(), "2026-03-03T10:00:00.000Z");
    } finally {
      await lob.close();
    }
  });

  test("lob: a 4xx fails the piece and the job at once, with Lob's reason, and is not retried", async () => {
    const lob = await startFakeLob(() => ({
      status: 422,
      body: { error: { message: "address_zip is invalid", status_code: 422 } },
    }));
    try {
      const org = await orgWithAutomation(ctx);
      const piece = await queuePiece(ctx, org);
      await runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
      clock.advance(24 * 3600 * 1000);
      await runPipeline(ctx, { printProvider: "lob", lobApiKey: "test_key", lobBaseUrl: lob.url });
      clock.set(START);
      assert.equal(lob.requests.length, 1);
      const row = await pieceRow(ctx, piece.id);
      assert.equal(row.status, "failed");
      assert.match(row.status_reason!, /address_zip is invalid/);
      const failed = await admin(ctx, "GET", "/jobs?status=failed&kind=process_piece");
      assert.equal(failed.status, 200, failed.text);
      const job = failed.body.jobs.find(
        (entry: { payload: { piece_id: string } }) => entry.payload.piece_id === piece.id,
      );
      assert.equal(job.attempts, 1);
      assert.match(job.last_error, /Lob answered 422: address_zip is invalid/);
    } finally {
      await lob.close();
    }
  });

  test("lob: a 5xx or a timeout is retried with backoff under the same Idempotency-Key", async () => {
    const lob = await startFakeLob((_request, index) =>
      index === 0
        ? { status: 503, body: { error: { message: "try later" } } }
        : index === 1
          ? "hang"
          : undefined!,
    );
    try {
      const org = await orgWithAutomation(ctx);
      const piece = await queuePiece(ctx, org);
      const config = { printProvider: "lob" as const, lobApiKey: "test_key", lobBaseUrl: lob.url };
      await runPipeline(ctx, config);
      let [job] = await jobsOf(ctx, piece.id);
      assert.equal(job?.status, "pending");
      assert.equal(job?.attempts, 1);
      assert.equal(new Date(job!.run_at).toISOString(), "2026-03-02T15:00:30.000Z", "30 s backoff");
      assert.match(job!.last_error!, /Lob answered 503/);
      assert.equal((await pieceRow(ctx, piece.id)).status, "queued");

      clock.advance(30_000);
      const { createLobProvider } = await import("../../src/print/lob.ts");
      const quick = createLobProvider({ apiKey: "k", baseUrl: lob.url, timeoutMs: 200 });
      const { PrintUnavailableError } = await import("../../src/print/print-provider.ts");
      await assert.rejects(
        quick.submit({
          pieceId: piece.id,
          orgId: org.orgId,
          size: "4x6",
          frontPdf: Buffer.from("%PDF"),
          backPdf: Buffer.from("%PDF"),
          to: { name: "A", line1: "1 A St", city: "B", state: "IL", zip: "62704" },
          landingUrl: piece.landing_url,
          description: "timeout probe",
        }),
        PrintUnavailableError,
        "a timeout is transient",
      );
      await runPipeline(ctx, config);
      [job] = await jobsOf(ctx, piece.id);
      assert.equal(job?.status, "done");
      assert.equal((await pieceRow(ctx, piece.id)).status, "submitted");
      assert.deepEqual(
        lob.requests.map((request) => request.idempotencyKey),
        [piece.id, piece.id, piece.id],
      );
    } finally {
      clock.set(START);
      await lob.close();
    }
  });
});
