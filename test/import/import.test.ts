import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { queryOne, queryRows, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { ABANDONED_CLAIM_SECONDS } from "../../src/imports/claims.ts";
import { admin, call, createOrg, issueKey } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { signal } from "../helpers/signal.ts";
import { importGeocoder, postImport, rows, startImportGeocoder } from "./import-helpers.ts";

const NOON = "2025-03-10T12:00:00.000Z";

describe(`POST /api/v1/import/jobs (${databaseLabel})`, () => {
  let ctx: TestContext;
  let geo: Awaited<ReturnType<typeof startImportGeocoder>>;
  const clock = fixedClock(NOON);

  before(async () => {
    // The first address read loads the parser and the ZIP table (~1 s on a busy machine): done
    // here, so the geocoder's 1 s timeout below times the geocoder, not that start-up.
    normalizeAddress("1 Main St, Springfield, IL 62701");
    geo = await startImportGeocoder();
    ctx = await createTestContext({ clock, geocoder: importGeocoder(geo.server, 1000) });
  });
  after(async () => {
    await ctx.close();
    await geo.server.close();
  });

  const countRows = async (table: "imports" | "import_rows", orgId: string) =>
    Number(
      (
        await queryOne<{ n: string | number }>(
          ctx.database.db,
          sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE org_id = ${orgId}`,
        )
      )?.n,
    );

  it("stages a batch: 201 with counts that sum to the rows sent, rows readable by the operator", async () => {
    clock.set(NOON);
    const org = await createOrg(ctx);
    const response = await postImport(ctx, org.key, {
      source: "jobs",
      rows: [
        {
          address: "123 North Main Street Apt 4, Springfield, IL 62701",
          external_id: "job-1",
          customer_name: "Ada Lovelace",
          completed_at: "2024-11-05",
        },
        { external_id: "job-2" },
        { address: "   " },
        { address: "9 Nowhere Rd, Springfield IL 62701" },
        { address: "77 Elm St, Springfield IL 62701", completed_at: "2024-11-06T23:30:00-08:00" },
      ],
      org_id: "00000000-0000-0000-0000-000000000000",
    });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), [
      "import_id",
      "skipped_geocode_failed",
      "skipped_no_address",
      "staged",
    ]);
    assert.equal(response.body.staged, 2);
    assert.equal(response.body.skipped_no_address, 2);
    assert.equal(response.body.skipped_geocode_failed, 1);
    assert.deepEqual(
      Object.keys(response.body).sort(),
      ["import_id", "skipped_geocode_failed", "skipped_no_address", "staged"],
      "the developer API's answer is the contract's: counts, not the skipped rows",
    );

    const list = await admin(ctx, "GET", `/orgs/${org.orgId}/imports`);
    assert.equal(list.status, 200);
    assert.equal(list.body.imports.length, 1);
    assert.equal(list.body.imports[0].id, response.body.import_id);
    assert.equal(list.body.imports[0].source, "jobs");

    const batch = await admin(ctx, "GET", `/orgs/${org.orgId}/imports/${response.body.import_id}`);
    assert.equal(batch.status, 200);
    assert.deepEqual(batch.body.rows, [
      {
        address: "123 North Main Street Apt 4, Springfield, IL 62701",
        normalized_address: "123 N MAIN ST #4, SPRINGFIELD IL 62701",
        latitude: 39.0123,
        longitude: -89.6,
        precision: "rooftop",
        external_id: "job-1",
        customer_name: "Ada Lovelace",
        completed_at: "2024-11-05",
      },
      {
        address: "77 Elm St, Springfield IL 62701",
        normalized_address: "77 ELM ST, SPRINGFIELD IL 62701",
        latitude: 39.0077,
        longitude: -89.6,
        precision: "rooftop",
        external_id: null,
        customer_name: null,
        completed_at: "2024-11-06",
      },
    ]);

    const csv = await call(ctx, "GET", `/admin/v1/orgs/${org.orgId}/imports/${response.body.import_id}`, {
      key: "test-admin-token-0123456789",
      query: { format: "csv" },
    });
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers["content-type"]), /^text\/csv/);
    assert.equal(
      csv.text,
      "address,normalized_address,latitude,longitude,precision,external_id,customer_name,completed_at\r\n" +
        '"123 North Main Street Apt 4, Springfield, IL 62701","123 N MAIN ST #4, SPRINGFIELD IL 62701",39.0123,-89.6,rooftop,job-1,Ada Lovelace,2024-11-05\r\n' +
        '"77 Elm St, Springfield IL 62701","77 ELM ST, SPRINGFIELD IL 62701",39.0077,-89.6,rooftop,,,2024-11-06\r\n',
    );
  });

  it("creates no campaign and mails nothing", async () => {
    const org = await createOrg(ctx);
    assert.equal((await postImport(ctx, org.key, { source: "customers", rows: rows(3) })).status, 201);
    const campaigns = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
    assert.deepEqual(campaigns.body.campaigns, []);
  });

  it("answers another org's import id, or an unknown one, with 404", async () => {
    const owner = await createOrg(ctx);
    const other = await createOrg(ctx);
    const staged = await postImport(ctx, owner.key, { source: "jobs", rows: rows(1) });
    assert.equal(
      (await admin(ctx, "GET", `/orgs/${other.orgId}/imports/${staged.body.import_id}`)).status,
      404,
    );
    assert.equal(
      (await admin(ctx, "GET", `/orgs/${owner.orgId}/imports/00000000-0000-4000-8000-000000000000`)).status,
      404,
    );
  });

  it("reads a blank completed_at (a flow's empty CRM field) as absent: the row stages, the batch is not refused", async () => {
    clock.set(NOON);
    const org = await createOrg(ctx);
    const response = await postImport(ctx, org.key, {
      source: "jobs",
      rows: [
        { address: "77 Elm St, Springfield IL 62701", completed_at: "" },
        { address: "78 Elm St, Springfield IL 62701", completed_at: "  " },
      ],
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.staged, 2);
    const batch = await admin(ctx, "GET", `/orgs/${org.orgId}/imports/${response.body.import_id}`);
    assert.deepEqual(
      batch.body.rows.map((row: { completed_at: string | null }) => row.completed_at),
      [null, null],
    );
  });

  describe("validation (422 invalid_payload naming the row)", () => {
    const cases: [string, unknown, RegExp][] = [
      [
        "a non-string address",
        { source: "jobs", rows: [...rows(3), { address: 12 }] },
        /^rows\[3\]\.address/,
      ],
      ["a null address", { source: "jobs", rows: [{ address: null }] }, /^rows\[0\]\.address/],
      [
        "garbage completed_at",
        { source: "jobs", rows: [...rows(2), { address: "1 Main St", completed_at: "last tuesday" }] },
        /^rows\[2\]\.completed_at/,
      ],
      [
        "an impossible date",
        { source: "jobs", rows: [{ address: "1 Main St", completed_at: "2024-02-30" }] },
        /^rows\[0\]\.completed_at/,
      ],
      [
        "an impossible time",
        { source: "jobs", rows: [{ address: "1 Main St", completed_at: "2024-05-01T99:99:99Z" }] },
        /^rows\[0\]\.completed_at/,
      ],
      [
        "an address over 500 chars",
        { source: "jobs", rows: [{ address: "x".repeat(501) }] },
        /^rows\[0\]\.address/,
      ],
      [
        "an external_id over 128 chars",
        { source: "jobs", rows: [{ external_id: "x".repeat(129) }] },
        /^rows\[0\]\.external_id/,
      ],
      [
        "a customer_name over 200 chars",
        { source: "jobs", rows: [{ customer_name: "x".repeat(201) }] },
        /^rows\[0\]\.customer_name/,
      ],
      ["an unknown row field", { source: "jobs", rows: [{ adress: "1 Main St" }] }, /^rows\[0\]\.adress/],
      ["a bad source", { source: "leads", rows: rows(1) }, /^source: must be one of jobs, customers$/],
      ["no rows", { source: "jobs", rows: [] }, /^rows/],
      ["more than 500 rows", { source: "jobs", rows: rows(501) }, /^rows/],
      ["a missing source", { rows: rows(1) }, /source/],
    ];
    for (const [name, body, detail] of cases) {
      it(`rejects ${name}`, async () => {
        const org = await createOrg(ctx);
        const response = await postImport(ctx, org.key, body);
        assert.equal(response.status, 422, response.text);
        assert.equal(response.body.error, "invalid_payload");
        assert.match(response.body.detail, detail);
        assert.equal(await countRows("imports", org.orgId), 0);
      });
    }

    it("rejects an Idempotency-Key sent twice (Node would join them into one key)", async () => {
      const org = await createOrg(ctx);
      const response = await ctx.app.inject({
        method: "POST",
        url: "/api/v1/import/jobs",
        headers: {
          authorization: `Bearer ${org.key}`,
          "content-type": "application/json",
          "idempotency-key": ["a", "b"],
        },
        payload: JSON.stringify({ source: "jobs", rows: rows(1) }),
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.deepEqual(response.json(), {
        error: "invalid_payload",
        detail: "Idempotency-Key: sent more than once; send one key",
      });
      assert.equal(await countRows("imports", org.orgId), 0);
    });

    it("rejects an Idempotency-Key over 255 characters, and accepts one of 255", async () => {
      const org = await createOrg(ctx);
      const long = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: "k".repeat(256) },
      );
      assert.equal(long.status, 422);
      assert.equal(long.body.error, "invalid_payload");
      assert.match(long.body.detail, /Idempotency-Key/);
      const exact = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: "k".repeat(255) },
      );
      assert.equal(exact.status, 201);
      // A UTF-8 key arrives as Node's Latin-1 reading of its bytes; it counts and is kept in characters.
      const accented = "é".repeat(255);
      const asReceived = Buffer.from(accented, "utf8").toString("latin1");
      const utf8 = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: asReceived },
      );
      assert.equal(utf8.status, 201, utf8.text);
      const [stored] = await queryRows<{ idempotency_key: string }>(
        ctx.database.db,
        sql`SELECT idempotency_key FROM imports WHERE id = ${utf8.body.import_id}::uuid`,
      );
      assert.equal(stored?.idempotency_key, accented);
      for (const key of ["a\tb", "a\u0085b"]) {
        const control = await postImport(
          ctx,
          org.key,
          { source: "jobs", rows: rows(1) },
          { idempotencyKey: key },
        );
        assert.equal(control.status, 422, JSON.stringify(key));
        assert.equal(control.body.detail, "Idempotency-Key: must not contain control characters");
      }
      // Code points, like every length limit: 255 emoji fit.
      const emoji = Buffer.from("🏠".repeat(255), "utf8").toString("latin1");
      const emojiKey = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: emoji },
      );
      assert.equal(emojiKey.status, 201, emojiKey.text);
    });

    it("ignores an org_id inside a row, as anywhere in a body", async () => {
      const org = await createOrg(ctx);
      const response = await postImport(ctx, org.key, {
        source: "jobs",
        rows: [
          { address: "77 Elm St, Springfield IL 62701", org_id: "00000000-0000-0000-0000-000000000000" },
        ],
      });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.staged, 1);
    });

    it("answers 400 invalid_json to a body that is not JSON and 413 over 1 MiB", async () => {
      const org = await createOrg(ctx);
      const malformed = '{"source": "jobs", "rows": [';
      const notJson: [string, Record<string, string>][] = [
        [malformed, { "content-type": "application/json" }],
        // Without a JSON content type (none, or text/plain as fetch sends for a string) the body is still JSON.
        [malformed, {}],
        [malformed, { "content-type": "text/plain;charset=UTF-8" }],
        // Import's one 400 is invalid_json (spec: Errors, Import endpoint): so is a body that cannot be
        // read as JSON at all, where the other endpoints answer 400 invalid_payload.
        ["", { "content-type": "application/json" }],
        ["source,rows\njobs,1", { "content-type": "text/csv" }],
      ];
      for (const [payload, headers] of notJson) {
        const refused = await call(ctx, "POST", "/api/v1/import/jobs", { key: org.key, payload, headers });
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.error, "invalid_json");
        assert.ok(refused.body.detail, "the detail says what was wrong with the body");
      }
      const staged = await call(ctx, "POST", "/api/v1/import/jobs", {
        key: org.key,
        payload: JSON.stringify({ source: "jobs", rows: [{}] }),
        headers: { "content-type": "text/plain;charset=UTF-8" },
      });
      assert.equal(staged.status, 201, staged.text);
      assert.equal(staged.body.skipped_no_address, 1);
      const huge = await call(ctx, "POST", "/api/v1/import/jobs", {
        key: org.key,
        payload: JSON.stringify({ source: "jobs", rows: [{ address: "x".repeat(1_048_576) }] }),
        headers: { "content-type": "application/json" },
      });
      assert.equal(huge.status, 413);
      assert.equal(huge.body.error, "payload_too_large");
      assert.match(huge.body.detail, /1048576/);
    });
  });

  describe("auth", () => {
    it("answers Unauthorized without a key and to a key lacking import:write", async () => {
      const org = await createOrg(ctx);
      const none = await call(ctx, "POST", "/api/v1/import/jobs", {
        body: { source: "jobs", rows: rows(1) },
      });
      assert.equal(none.status, 401);
      assert.equal(none.body.error, "Unauthorized");
      const eventsOnly = await issueKey(ctx, org.orgId, { scopes: ["events:write"] });
      const forbidden = await postImport(ctx, eventsOnly, { source: "jobs", rows: rows(1) });
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.body.error, "Unauthorized");
      const importOnly = await issueKey(ctx, org.orgId, { scopes: ["import:write"] });
      assert.equal((await postImport(ctx, importOnly, { source: "jobs", rows: rows(1) })).status, 201);
    });
  });

  describe("Idempotency-Key", () => {
    it("replays a finished import with 200, the same id and counts, nothing re-geocoded", async () => {
      const org = await createOrg(ctx);
      const body = { source: "jobs", rows: [...rows(4), {}] };
      const first = await postImport(ctx, org.key, body, { idempotencyKey: "batch-1" });
      assert.equal(first.status, 201);
      const calls = geo.server.requests.length;
      const replay = await postImport(ctx, org.key, body, { idempotencyKey: "batch-1" });
      assert.equal(replay.status, 200);
      assert.deepEqual(replay.body, first.body);
      assert.equal(geo.server.requests.length, calls, "no geocoder call on a replay");
      assert.equal(await countRows("imports", org.orgId), 1);
      assert.equal(await countRows("import_rows", org.orgId), 4);
    });

    it("replays a finished key whatever the body says now, even a body that would be refused", async () => {
      const org = await createOrg(ctx);
      const first = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(2) },
        { idempotencyKey: "k-1" },
      );
      assert.equal(first.status, 201);
      for (const body of [
        { source: "bad", rows: [] },
        { source: "customers", rows: [{ completed_at: "garbage" }] },
      ]) {
        const replay = await postImport(ctx, org.key, body, { idempotencyKey: "k-1" });
        assert.equal(replay.status, 200, replay.text);
        assert.deepEqual(replay.body, first.body);
      }
      const fresh = await postImport(ctx, org.key, { source: "bad", rows: [] }, { idempotencyKey: "k-2" });
      assert.equal(fresh.status, 422, "a new key's body is validated");
      const other = await createOrg(ctx);
      const elsewhere = await postImport(
        ctx,
        other.key,
        { source: "bad", rows: [] },
        { idempotencyKey: "k-1" },
      );
      assert.equal(elsewhere.status, 422, "another org's key is not a replay");
    });

    it("scopes keys per org and never dedups keyless requests", async () => {
      const a = await createOrg(ctx);
      const b = await createOrg(ctx);
      const inA = await postImport(ctx, a.key, { source: "jobs", rows: rows(1) }, { idempotencyKey: "same" });
      const inB = await postImport(ctx, b.key, { source: "jobs", rows: rows(1) }, { idempotencyKey: "same" });
      assert.equal(inA.status, 201);
      assert.equal(inB.status, 201);
      assert.notEqual(inA.body.import_id, inB.body.import_id);
      const keyless1 = await postImport(ctx, a.key, { source: "jobs", rows: rows(1) });
      const keyless2 = await postImport(ctx, a.key, { source: "jobs", rows: rows(1) });
      assert.equal(keyless1.status, 201);
      assert.equal(keyless2.status, 201);
      assert.notEqual(keyless1.body.import_id, keyless2.body.import_id);
    });

    it("returns 409 import_in_progress with Retry-After while the first request holds the key", async () => {
      clock.set(NOON);
      const org = await createOrg(ctx);
      await ctx.database.db.execute(
        sql`INSERT INTO imports (org_id, id, source, idempotency_key, status, claimed_at)
            VALUES (${org.orgId}, gen_random_uuid(), 'jobs', 'busy', 'processing', ${NOON}::timestamptz)`,
      );
      const response = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: "busy" },
      );
      assert.equal(response.status, 409);
      assert.equal(response.body.error, "import_in_progress");
      assert.ok(Number(response.headers["retry-after"]) > 0);
      clock.advance((ABANDONED_CLAIM_SECONDS - 1) * 1000);
      assert.equal(
        (await postImport(ctx, org.key, { source: "jobs", rows: rows(1) }, { idempotencyKey: "busy" }))
          .status,
        409,
        "still held just before the bound",
      );
    });

    it("answers 409 to a retry sent while the first request stages its batch, and replays the batch after", async () => {
      clock.set(NOON);
      const org = await createOrg(ctx);
      const body = { source: "jobs", rows: rows(500) };
      // The last address's geocoding is held: once released, the first request goes on to stage its
      // 500 rows in one transaction, which the retry (sent at once) finds under way.
      const released = signal();
      const lastAsked = signal();
      geo.holdWhen((q) => {
        const last = q.startsWith("500 ");
        if (last) lastAsked.fire();
        return last;
      }, released.done);
      try {
        const first = postImport(ctx, org.key, body, { idempotencyKey: "staging" });
        await lastAsked.done;
        released.fire();
        const retry = await postImport(ctx, org.key, body, { idempotencyKey: "staging" });
        const original = await first;
        assert.equal(original.status, 201, original.text);
        assert.equal(retry.status, 409, retry.text);
        assert.equal(retry.body.error, "import_in_progress");
        assert.ok(Number(retry.headers["retry-after"]) > 0);
        const replay = await postImport(ctx, org.key, body, { idempotencyKey: "staging" });
        assert.equal(replay.status, 200, replay.text);
        assert.deepEqual(replay.body, original.body);
      } finally {
        released.fire();
        geo.holdWhen(undefined);
      }
    });

    it(`releases a claim left by a killed process after ${ABANDONED_CLAIM_SECONDS} s: the retry stages the batch`, async () => {
      clock.set(NOON);
      const org = await createOrg(ctx);
      const claimedAt = new Date(Date.parse(NOON) - (ABANDONED_CLAIM_SECONDS + 1) * 1000).toISOString();
      await ctx.database.db.execute(
        sql`INSERT INTO imports (org_id, id, source, idempotency_key, status, claimed_at)
            VALUES (${org.orgId}, gen_random_uuid(), 'jobs', 'crashed', 'processing', ${claimedAt}::timestamptz)`,
      );
      const retry = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(3) },
        { idempotencyKey: "crashed" },
      );
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.body.staged, 3);
      const stored = await queryRows<{ status: string }>(
        ctx.database.db,
        sql`SELECT status FROM imports WHERE org_id = ${org.orgId}`,
      );
      assert.deepEqual(stored, [{ status: "staged" }], "one batch, no partial leftovers");
      assert.equal(await countRows("import_rows", org.orgId), 3);
      const replay = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(3) },
        { idempotencyKey: "crashed" },
      );
      assert.equal(replay.status, 200);
      assert.equal(replay.body.import_id, retry.body.import_id);
    });
  });

  describe("geocoder failures", () => {
    it("a geocoder failing on row 400 leaves no rows, no claim and no spent slot (502 geocoding_failed)", async () => {
      clock.set(NOON);
      const org = await createOrg(ctx);
      geo.failWhen((q) => q.startsWith("400 "), 500);
      try {
        const failed = await postImport(
          ctx,
          org.key,
          { source: "jobs", rows: rows(500) },
          { idempotencyKey: "big" },
        );
        assert.equal(failed.status, 502);
        assert.equal(failed.body.error, "geocoding_failed");
      } finally {
        geo.failWhen(undefined);
      }
      assert.equal(await countRows("imports", org.orgId), 0);
      assert.equal(await countRows("import_rows", org.orgId), 0);
      const retry = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(500) },
        { idempotencyKey: "big" },
      );
      assert.equal(retry.status, 201, "the key is usable again");
      assert.equal(retry.body.staged, 500);
    });

    it("answers 503 geocoding_unavailable when the geocoder times out, leaving nothing behind", async () => {
      const org = await createOrg(ctx);
      geo.failWhen((q) => q.startsWith("2 "), "hang");
      try {
        const down = await postImport(
          ctx,
          org.key,
          { source: "jobs", rows: rows(3) },
          { idempotencyKey: "slow" },
        );
        assert.equal(down.status, 503);
        assert.equal(down.body.error, "geocoding_unavailable");
        assert.equal(down.headers["retry-after"], "300");
      } finally {
        geo.failWhen(undefined);
      }
      assert.equal(await countRows("imports", org.orgId), 0);
    });

    it("answers 503 automations_disabled with Retry-After: 300 under the kill switch, staging nothing", async () => {
      const org = await createOrg(ctx);
      const finished = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(2) },
        { idempotencyKey: "done" },
      );
      assert.equal(finished.status, 201);
      await admin(ctx, "PUT", "/kill-switch", { paused: true });
      try {
        clock.advance(2000);
        const replay = await postImport(
          ctx,
          org.key,
          { source: "jobs", rows: rows(2) },
          { idempotencyKey: "done" },
        );
        assert.equal(replay.status, 200, "a finished batch is replayed while paused");
        assert.deepEqual(replay.body, finished.body);
        clock.advance(2000);
        const paused = await postImport(
          ctx,
          org.key,
          { source: "jobs", rows: rows(1) },
          { idempotencyKey: "p" },
        );
        assert.equal(paused.status, 503);
        assert.equal(paused.body.error, "automations_disabled");
        assert.equal(paused.headers["retry-after"], "300");
      } finally {
        await admin(ctx, "PUT", "/kill-switch", { paused: false });
        clock.advance(2000);
      }
      assert.equal(await countRows("imports", org.orgId), 1, "only the batch staged before the pause");
      assert.equal(
        (await postImport(ctx, org.key, { source: "jobs", rows: rows(1) }, { idempotencyKey: "p" })).status,
        201,
      );
    });
  });

  describe("daily quota", () => {
    it("stages 10 batches per UTC day; the 11th is 429 with Retry-After to 00:00 UTC; replays and failures never count", async () => {
      clock.set("2025-03-10T23:59:00.000Z");
      const org = await createOrg(ctx);
      geo.failWhen((q) => q.includes("Fail"), 500);
      try {
        const failed = await postImport(ctx, org.key, { source: "jobs", rows: [{ address: "1 Fail St" }] });
        assert.equal(failed.status, 502);
      } finally {
        geo.failWhen(undefined);
      }
      for (let n = 0; n < 10; n++) {
        const staged = await postImport(
          ctx,
          org.key,
          { source: "jobs", rows: rows(1) },
          { idempotencyKey: `day-${n}` },
        );
        assert.equal(staged.status, 201, `batch ${n + 1}`);
      }
      const replay = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: "day-3" },
      );
      assert.equal(replay.status, 200, "a replay is answered even when the day is full");

      const over = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: "day-10" },
      );
      assert.equal(over.status, 429);
      assert.equal(over.body.error, "rate_limited");
      assert.equal(over.headers["retry-after"], "60");
      assert.equal(await countRows("imports", org.orgId), 10, "the refused request left no claim");

      const otherOrg = await createOrg(ctx);
      assert.equal((await postImport(ctx, otherOrg.key, { source: "jobs", rows: rows(1) })).status, 201);

      clock.set("2025-03-11T00:00:00.000Z");
      const nextDay = await postImport(
        ctx,
        org.key,
        { source: "jobs", rows: rows(1) },
        { idempotencyKey: "day-10" },
      );
      assert.equal(nextDay.status, 201, "a new UTC day has 10 fresh slots");
    });
  });
});
