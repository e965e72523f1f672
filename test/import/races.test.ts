import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { queryOne, sql } from "../../src/db/database.ts";
import { createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { importGeocoder, postImport, rows, startImportGeocoder } from "./import-helpers.ts";

/** Concurrency of the import endpoint; PostgreSQL really races (PGlite serializes, and must agree). */
describe(`import races (${databaseLabel})`, () => {
  let ctx: TestContext;
  let geo: Awaited<ReturnType<typeof startImportGeocoder>>;
  before(async () => {
    geo = await startImportGeocoder();
    ctx = await createTestContext({ geocoder: importGeocoder(geo.server, 5000) });
  });
  after(async () => {
    await ctx.close();
    await geo.server.close();
  });

  const count = async (query: ReturnType<typeof sql>) =>
    Number((await queryOne<{ n: string | number }>(ctx.database.db, query))?.n);

  it("20 parallel requests with one key: exactly one 201, the others 409 or 200, one batch stored", async () => {
    const org = await createOrg(ctx);
    const body = { source: "jobs", rows: rows(25) };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => postImport(ctx, org.key, body, { idempotencyKey: "race" })),
    );
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(","));
    assert.ok(
      statuses.every((status) => status === 201 || status === 200 || status === 409),
      statuses.join(","),
    );
    const created = responses.find((response) => response.status === 201)!;
    for (const response of responses.filter((r) => r.status === 200)) {
      assert.equal(response.body.import_id, created.body.import_id);
    }
    assert.equal(await count(sql`SELECT count(*) AS n FROM imports WHERE org_id = ${org.orgId}`), 1);
    assert.equal(await count(sql`SELECT count(*) AS n FROM import_rows WHERE org_id = ${org.orgId}`), 25);
  });

  it("15 parallel keyless batches of one org: exactly 10 staged, 5 refused with 429", async () => {
    const org = await createOrg(ctx);
    const responses = await Promise.all(
      Array.from({ length: 15 }, () => postImport(ctx, org.key, { source: "jobs", rows: rows(2) })),
    );
    const statuses = responses.map((response) => response.status).sort();
    assert.deepEqual(statuses, [...Array(10).fill(201), ...Array(5).fill(429)], statuses.join(","));
    assert.equal(
      await count(sql`SELECT count(*) AS n FROM imports WHERE org_id = ${org.orgId} AND status = 'staged'`),
      10,
    );
    assert.equal(await count(sql`SELECT count(*) AS n FROM import_rows WHERE org_id = ${org.orgId}`), 20);
  });
});
