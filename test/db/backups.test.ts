import assert from "node:assert/strict";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { buildApp } from "../../src/app.ts";
import { systemClock } from "../../src/clock.ts";
import { InterruptedRestoreError, lockDataDir, RESTORE_MARKER_FILE } from "../../src/db/data-dir-lock.ts";
import { type Database, openDatabase, queryRows, sql } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { RestoreRefused, restoreBackup } from "../../src/db/restore.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createRenderPool } from "../../src/render/renderer.ts";
import { boundAutomation, envelope, sendEvent } from "../events/helpers.ts";
import { admin, createAutomation, createOrg } from "../helpers/api.ts";
import {
  ADMIN_TOKEN,
  appAdapters,
  createTestContext,
  TEST_DATABASE_URL,
  type TestContext,
  testConfig,
  testLimiter,
} from "../helpers/harness.ts";

const silent = pino({ level: "silent" });

/** The app on an embedded database kept in files (the harness's PGlite lives in memory). */
async function fileBackedContext(dataDir: string): Promise<TestContext> {
  const database = await openDatabase({ dataDir, pgliteThread: process.env.PGLITE_THREAD !== "off" });
  await migrate(database.db);
  const config = testConfig({ dataDir });
  const limiter = await testLimiter(systemClock, true);
  const renderer = createRenderPool({ threads: 1 });
  const adapters = appAdapters(config, silent);
  const app = await buildApp({
    config,
    database,
    clock: systemClock,
    logger: silent,
    limiter,
    geocoder: createLocalGeocoder(),
    renderer,
    ...adapters,
  });
  await app.ready();
  return {
    app,
    database,
    config,
    clock: systemClock,
    limiter,
    renderer,
    mailer: adapters.mailer,
    schema: undefined,
    close: async () => {
      await app.close();
      await adapters.mailer.close();
      await renderer.close();
      await limiter.close();
      await database.close();
    },
  };
}

/** `GET /metrics` as Prometheus scrapes it. */
async function scrape(ctx: TestContext): Promise<string> {
  const response = await ctx.app.inject({
    method: "GET",
    url: "/metrics",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.body;
}

/** One series' value in Prometheus text (`name{labels} value`); undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Restores `file` into a new DATA_DIR and opens it (on this thread: the test only reads). */
async function restoredDatabase(file: string): Promise<{ database: Database; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-restored-"));
  await restoreBackup({ file, dataDir });
  return { database: await openDatabase({ dataDir }), dataDir };
}

/** Each block is registered in the pass of the database it tests (PGlite's, or PostgreSQL's). */
const onPglite = TEST_DATABASE_URL === undefined ? describe : () => {};
const onPostgres = TEST_DATABASE_URL === undefined ? () => {} : describe;

onPglite("POST /admin/v1/backups on the embedded database", () => {
  let dataDir: string;
  let ctx: TestContext;
  const cleanup: string[] = [];

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-backups-"));
    cleanup.push(dataDir);
    ctx = await fileBackedContext(dataDir);
  });
  after(async () => {
    await ctx.close();
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  test("answers 201 with the file, its size and SHA-256, and lists it", async () => {
    const org = await createOrg(ctx, { name: "Backed Up Roofing" });
    const created = await admin(ctx, "POST", "/backups");
    assert.equal(created.status, 201, created.text);
    const { file, bytes, sha256, created_at } = created.body;
    assert.equal(path.dirname(file), path.join(dataDir, "backups"));
    assert.match(path.basename(file), /^porchlight-\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{6}\.tar\.gz$/);
    assert.equal(readFileSync(file).length, bytes);
    const { createHash } = await import("node:crypto");
    assert.equal(createHash("sha256").update(readFileSync(file)).digest("hex"), sha256);
    assert.equal(readFileSync(`${file}.sha256`, "utf8"), `${sha256}  ${path.basename(file)}\n`);
    assert.ok(Math.abs(Date.parse(created_at) - Date.now()) < 60_000);
    // Nothing half-written is left beside it.
    assert.deepEqual(
      readdirSync(path.join(dataDir, "backups")).filter((name) => name.startsWith(".")),
      [],
    );

    const listed = await admin(ctx, "GET", "/backups");
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.backups[0], { file, bytes, sha256, created_at });
    assert.equal(listed.body.last_failure, null);
    assert.deepEqual(listed.body.schedule, { interval_hours: 24, keep: 7, next_at: null });

    const { database, dataDir: restoredDir } = await restoredDatabase(file);
    cleanup.push(restoredDir);
    try {
      const orgs = await queryRows<{ name: string }>(
        database.db,
        sql`SELECT name FROM organizations WHERE id = ${org.orgId}`,
      );
      assert.deepEqual(orgs, [{ name: "Backed Up Roofing" }]);
    } finally {
      await database.close();
    }
  });

  test("records PGlite's and PostgreSQL's versions in the backup", async () => {
    const created = await admin(ctx, "POST", "/backups");
    assert.equal(created.status, 201, created.text);
    const into = mkdtempSync(path.join(tmpdir(), "porchlight-manifest-"));
    cleanup.push(into);
    const { extract } = await import("tar");
    await extract({ file: created.body.file, cwd: into }, ["porchlight-backup.json"]);
    const manifest = JSON.parse(readFileSync(path.join(into, "porchlight-backup.json"), "utf8"));
    const pglite = JSON.parse(
      readFileSync(
        path.join(import.meta.dirname, "../../node_modules/@electric-sql/pglite/package.json"),
        "utf8",
      ),
    );
    assert.equal(manifest.format, "porchlight-backup");
    assert.equal(manifest.pglite_version, pglite.version);
    const [server] = await queryRows<{ server_version: string }>(ctx.database.db, sql`SHOW server_version`);
    assert.equal(manifest.postgres_version, server!.server_version);
    assert.equal(manifest.postgres_major, server!.server_version.split(".")[0]);
    const [latest] = await queryRows<{ version: string }>(
      ctx.database.db,
      sql`SELECT max(version) AS version FROM schema_migrations`,
    );
    assert.equal(manifest.schema_version, latest!.version);
  });

  test("two backups requested at once each write a whole, restorable file", async () => {
    const org = await createOrg(ctx);
    const [first, second] = await Promise.all([
      admin(ctx, "POST", "/backups"),
      admin(ctx, "POST", "/backups"),
    ]);
    assert.equal(first.status, 201, first.text);
    assert.equal(second.status, 201, second.text);
    assert.notEqual(first.body.file, second.body.file);
    for (const backup of [first.body, second.body]) {
      const { database, dataDir: restoredDir } = await restoredDatabase(backup.file);
      cleanup.push(restoredDir);
      try {
        const rows = await queryRows(database.db, sql`SELECT id FROM organizations WHERE id = ${org.orgId}`);
        assert.equal(rows.length, 1);
      } finally {
        await database.close();
      }
    }
  });

  test("a backup taken while events arrive holds every event acknowledged before it began", async () => {
    const org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, boundAutomation("job.backed_up"));
    const acknowledged: { dedupId: string; at: number }[] = [];
    let sending = true;
    // Under the key's 120 requests a minute.
    let budget = 110;
    const sender = async () => {
      while (sending && budget-- > 0) {
        const body = envelope({ event_type: "job.backed_up" });
        const answer = await sendEvent(ctx, org.key, body);
        assert.equal(answer.status, 202, answer.text);
        acknowledged.push({ dedupId: body.dedup_id as string, at: performance.now() });
      }
    };
    const senders = [sender(), sender()];
    while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 5));
    const backupStarted = performance.now();
    const before = acknowledged.filter((event) => event.at <= backupStarted).map((event) => event.dedupId);
    const created = await admin(ctx, "POST", "/backups");
    const acknowledgedDuring = acknowledged.length - before.length;
    sending = false;
    await Promise.all(senders);
    assert.equal(created.status, 201, created.text);
    assert.ok(acknowledgedDuring > 0, "events kept being accepted while the backup ran");

    const { database, dataDir: restoredDir } = await restoredDatabase(created.body.file);
    cleanup.push(restoredDir);
    try {
      const rows = await queryRows<{ dedup_key: string }>(
        database.db,
        sql`SELECT dedup_key FROM campaigns WHERE org_id = ${org.orgId}`,
      );
      const inBackup = new Set(rows.map((row) => row.dedup_key));
      const missing = before.filter((dedupId) => !inBackup.has(dedupId));
      assert.deepEqual(missing, [], `${missing.length} of ${before.length} acknowledged events missing`);
    } finally {
      await database.close();
    }
  });

  test("a restore checks the checksums: a damaged file is refused and DATA_DIR is left empty", async () => {
    const created = await admin(ctx, "POST", "/backups");
    assert.equal(created.status, 201, created.text);
    const scratch = mkdtempSync(path.join(tmpdir(), "porchlight-damaged-"));
    cleanup.push(scratch);

    // A flipped byte: the file no longer matches its .sha256.
    const flipped = path.join(scratch, path.basename(created.body.file));
    const bytes = readFileSync(created.body.file);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(flipped, bytes);
    copyFileSync(`${created.body.file}.sha256`, `${flipped}.sha256`);
    const into = mkdtempSync(path.join(tmpdir(), "porchlight-restore-refused-"));
    cleanup.push(into);
    await assert.rejects(restoreBackup({ file: flipped, dataDir: into }), (error: Error) => {
      assert.ok(error instanceof RestoreRefused, String(error));
      assert.match(error.message, /^the backup is damaged: its SHA-256 is [0-9a-f]{64}/);
      return true;
    });
    assert.deepEqual(readdirSync(into), []);

    // A cluster file changed inside a well-formed archive, without a .sha256 beside it: SHA256SUMS catches it.
    const unpacked = path.join(scratch, "unpacked");
    mkdirSync(unpacked);
    const { create, extract } = await import("tar");
    await extract({ file: created.body.file, cwd: unpacked });
    writeFileSync(path.join(unpacked, "cluster", "PG_VERSION"), "99\n");
    const repacked = path.join(scratch, "repacked.tar.gz");
    await create({ gzip: true, cwd: unpacked, file: repacked }, readdirSync(unpacked));
    await assert.rejects(restoreBackup({ file: repacked, dataDir: into }), (error: Error) => {
      assert.ok(error instanceof RestoreRefused, String(error));
      assert.equal(error.message, "the backup is damaged: cluster/PG_VERSION does not match SHA256SUMS");
      return true;
    });
    assert.deepEqual(readdirSync(into), []);

    // The same archive untouched, without its .sha256: restored, saying the whole file was not checked.
    const plain = path.join(scratch, "plain.tar.gz");
    copyFileSync(created.body.file, plain);
    const summary = await restoreBackup({ file: plain, dataDir: into });
    assert.equal(summary.fileChecksumChecked, false);
    assert.ok(summary.counts.organizations! >= 1);
  });

  test("what an interrupted restore left is refused by the server's lock and cleared by the next restore, nothing else", async () => {
    const org = await createOrg(ctx, { name: "Interrupted Roofing" });
    const created = await admin(ctx, "POST", "/backups");
    assert.equal(created.status, 201, created.text);
    const file = created.body.file as string;
    const into = mkdtempSync(path.join(tmpdir(), "porchlight-restore-interrupted-"));
    cleanup.push(into);
    // As a restore killed during its renames leaves it (test/reliability/interrupted-restore.test.ts
    // kills real ones): its marker, its staging folder with the backup unpacked, and two of the
    // cluster's entries moved into place.
    const staging = path.join(into, ".restore-0123abcd");
    mkdirSync(staging);
    const { extract } = await import("tar");
    await extract({ file, cwd: staging });
    for (const name of ["PG_VERSION", "base"]) {
      renameSync(path.join(staging, "cluster", name), path.join(into, name));
    }
    const leftovers = [".restore-0123abcd", "PG_VERSION", "base", RESTORE_MARKER_FILE].sort();
    const refusedBy = (expected: string) => (error: Error) => {
      assert.ok(error instanceof InterruptedRestoreError, String(error));
      assert.equal(error.message, expected);
      return true;
    };
    // Killed as it wrote its marker: empty, it still marks the DATA_DIR.
    writeFileSync(path.join(into, RESTORE_MARKER_FILE), "");
    assert.throws(
      () => lockDataDir(into),
      refusedBy(
        `DATA_DIR ${into} holds an interrupted restore, not a whole database: run npm run db:restore -- FILE again (it clears what the interrupted one left), or empty DATA_DIR to start a new database`,
      ),
    );
    writeFileSync(path.join(into, RESTORE_MARKER_FILE), `${JSON.stringify({ backup: file })}\n`);
    assert.throws(
      () => lockDataDir(into),
      refusedBy(
        `DATA_DIR ${into} holds an interrupted restore of ${file}, not a whole database: run npm run db:restore -- ${file} again (it clears what the interrupted one left), or empty DATA_DIR to start a new database`,
      ),
    );
    // Refused before anything opened the cluster; the lock was let go.
    assert.deepEqual(readdirSync(into).sort(), leftovers);

    // Beside them, anything a restore does not write: refused, and nothing cleared.
    writeFileSync(path.join(into, "admin-token"), "an operator's file\n");
    await assert.rejects(restoreBackup({ file, dataDir: into }), (error: Error) => {
      assert.ok(error instanceof RestoreRefused, String(error));
      assert.match(
        error.message,
        /^DATA_DIR .* holds an interrupted restore and also admin-token, which no restore writes: restore only into an empty DATA_DIR, or move this one away first$/,
      );
      return true;
    });
    assert.deepEqual(readdirSync(into).sort(), [...leftovers, "admin-token"].sort());
    rmSync(path.join(into, "admin-token"));

    const summary = await restoreBackup({ file, dataDir: into });
    assert.equal(summary.clearedInterruptedRestore, true);
    assert.ok(summary.counts.organizations! >= 1);
    const names = readdirSync(into);
    assert.ok(names.includes("PG_VERSION") && names.includes("global"), names.join(", "));
    assert.deepEqual(
      names.filter((name) => name === RESTORE_MARKER_FILE || name.startsWith(".")),
      [],
    );
    // The server's lock takes it now, and it holds the backup's data.
    lockDataDir(into)();
    const database = await openDatabase({ dataDir: into });
    try {
      const rows = await queryRows(database.db, sql`SELECT id FROM organizations WHERE id = ${org.orgId}`);
      assert.equal(rows.length, 1);
    } finally {
      await database.close();
    }
  });

  test("shows a failed backup to the operator: in GET /admin/v1/backups and on /metrics", async () => {
    const newest = (await admin(ctx, "GET", "/backups")).body.backups[0];
    let metrics = await scrape(ctx);
    assert.equal(
      sample(metrics, "porchlight_backup_last_success_timestamp_seconds"),
      Date.parse(newest.created_at) / 1000,
    );
    assert.equal(sample(metrics, 'porchlight_backup_failures_total{trigger="requested"}'), 0);
    assert.equal(sample(metrics, 'porchlight_backup_failures_total{trigger="scheduled"}'), 0);

    // A backups "folder" that is a file: the backup cannot be written.
    const folder = path.join(dataDir, "backups");
    const aside = `${folder}-aside`;
    renameSync(folder, aside);
    writeFileSync(folder, "not a folder");
    try {
      const failed = await admin(ctx, "POST", "/backups");
      assert.equal(failed.status, 500, failed.text);
      const unreadable = await admin(ctx, "GET", "/backups");
      assert.equal(unreadable.status, 503, unreadable.text);
      assert.equal(unreadable.body.error, "backups_unreadable");
      assert.match(unreadable.body.detail, /backups cannot be read \(ENOTDIR\)/);
      metrics = await scrape(ctx);
      assert.equal(sample(metrics, 'porchlight_backup_failures_total{trigger="requested"}'), 1);
      // The newest backup's time is kept while the folder cannot be read.
      assert.equal(
        sample(metrics, "porchlight_backup_last_success_timestamp_seconds"),
        Date.parse(newest.created_at) / 1000,
      );
    } finally {
      rmSync(folder);
      renameSync(aside, folder);
    }
    const listed = await admin(ctx, "GET", "/backups");
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.last_failure.scheduled, false);
    assert.match(listed.body.last_failure.reason, /EEXIST|ENOTDIR/);
    assert.ok(Math.abs(Date.parse(listed.body.last_failure.at) - Date.now()) < 60_000);

    // The next backup that succeeds moves the timestamp; the failure stays counted.
    const created = await admin(ctx, "POST", "/backups");
    assert.equal(created.status, 201, created.text);
    metrics = await scrape(ctx);
    assert.equal(
      sample(metrics, "porchlight_backup_last_success_timestamp_seconds"),
      Date.parse(created.body.created_at) / 1000,
    );
    assert.equal(sample(metrics, 'porchlight_backup_failures_total{trigger="requested"}'), 1);
  });
});

onPostgres("POST /admin/v1/backups on PostgreSQL", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  test("answers 409 pointing to pg_dump, and so does the listing", async () => {
    const created = await admin(ctx, "POST", "/backups");
    assert.equal(created.status, 409, created.text);
    assert.equal(created.body.error, "backups_not_available");
    assert.match(created.body.detail, /PostgreSQL \(DATABASE_URL\).*pg_dump/);
    const listed = await admin(ctx, "GET", "/backups");
    assert.equal(listed.status, 409, listed.text);
  });

  test("/metrics has no backup series (rather than a last backup at 0 that an alert would take as missing)", async () => {
    const metrics = await scrape(ctx);
    assert.doesNotMatch(metrics, /porchlight_backup_/);
    assert.match(metrics, /^# TYPE porchlight_jobs /m);
  });
});
