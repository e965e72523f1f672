/**
 * The loader's path for a file large against the table: on PostgreSQL a new table built beside
 * the current one and swapped in (src/neighbours/postgres-swap-load.ts), on PGlite the indexes
 * dropped and rebuilt in one transaction. Each is checked against the incremental path (batches
 * inserted through the indexes) on the same files, for idempotence, for a failure halfway, and
 * for nearest queries answering while a load runs.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { type Database, queryRows, sql } from "../../src/db/database.ts";
import {
  type AddressSink,
  type LoadReport,
  loadAddressFile,
  loadOutweighsTable,
  postgresCopySink,
  statementSink,
} from "../../src/neighbours/load-addresses.ts";
import {
  postgresLoadSink,
  postgresSwapSink,
  type SwapSinkOptions,
} from "../../src/neighbours/postgres-swap-load.ts";
import {
  countReferenceAddresses,
  nearestHomes,
  ownHomeKeys,
  referenceAddressOf,
} from "../../src/neighbours/reference-addresses.ts";
import { csvLineOf, syntheticCsvLines, syntheticHome } from "../../src/neighbours/synthetic-neighbourhood.ts";
import { databaseLabel, openTestDatabase, TEST_DATABASE_URL } from "../helpers/harness.ts";

const dir = mkdtempSync(path.join(tmpdir(), "porchlight-load-test-"));
const writeCsv = (name: string, lines: string[]) => {
  const file = path.join(dir, name);
  writeFileSync(file, lines.join(""));
  return file;
};
/** Homes [from, to) of the generated neighbourhood, header first. */
const homesCsv = (from: number, to: number) => {
  const [header, ...homes] = [...syntheticCsvLines(to)];
  return [header!, ...homes.slice(from)];
};

interface Opened {
  database: Database;
  schema: string | undefined;
  drop(): Promise<void>;
}

const BATCH = 500;

/** The incremental path: batches inserted through the indexes. */
const incrementalSink = (opened: Opened): Promise<AddressSink> | AddressSink =>
  TEST_DATABASE_URL
    ? postgresCopySink(TEST_DATABASE_URL, {
        ...(opened.schema ? { searchPath: opened.schema } : {}),
        batchSize: BATCH,
      })
    : statementSink(opened.database, { batchSize: BATCH });

/** The large-load path: a swapped-in table on PostgreSQL, indexes rebuilt in place on PGlite. */
const largeSink = (opened: Opened, options: SwapSinkOptions = {}): Promise<AddressSink> | AddressSink =>
  TEST_DATABASE_URL
    ? postgresSwapSink(TEST_DATABASE_URL, {
        ...(opened.schema ? { searchPath: opened.schema } : {}),
        batchSize: BATCH,
        ...options,
      })
    : statementSink(opened.database, { batchSize: BATCH, rebuildIndexes: true });

async function loadWith(sink: AddressSink, file: string): Promise<LoadReport> {
  try {
    return await loadAddressFile(file, { sink });
  } finally {
    await sink.close();
  }
}

const counts = (report: LoadReport) => ({
  rows: report.rows,
  added: report.added,
  duplicates: report.duplicates,
  staged: report.staged,
  rejectedByReason: report.rejectedByReason,
});

const tableRows = (database: Database) =>
  queryRows(
    database.db,
    sql`SELECT normalized_address, street, city, state, zip, latitude, longitude, lonlat::text AS lonlat
        FROM reference_addresses ORDER BY normalized_address`,
  );

/** The table's indexes and constraints, by name and definition (without the schema). */
const tableShape = async (database: Database) => ({
  indexes: await queryRows(
    database.db,
    sql`SELECT indexname, replace(indexdef, schemaname || '.', '') AS indexdef
        FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'reference_addresses' ORDER BY 1`,
  ),
  constraints: await queryRows(
    database.db,
    sql`SELECT conname, contype, pg_get_constraintdef(oid) AS definition FROM pg_constraint
        WHERE conrelid = 'reference_addresses'::regclass ORDER BY 1`,
  ),
  tables: await queryRows(
    database.db,
    sql`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'reference_addresses%'`,
  ),
});

/** The nearest query around home `index` of the generated neighbourhood. */
const nearHome = (database: Database, index: number) => {
  const verdict = referenceAddressOf(syntheticHome(index));
  assert.ok("address" in verdict);
  const home = verdict.address;
  return nearestHomes(database.db, {
    latitude: home.latitude,
    longitude: home.longitude,
    count: 5,
    radiusM: 400,
    excludeKeys: ownHomeKeys(home.normalizedAddress),
  });
};

describe(`address loads large against the table (${databaseLabel})`, () => {
  let incremental: Opened;
  let large: Opened;

  before(async () => {
    incremental = await openTestDatabase();
    large = await openTestDatabase();
  });
  after(async () => {
    await incremental.drop();
    await large.drop();
  });

  test("a file is large against the table when it holds more rows than the table", async () => {
    // 2600 lines of ~75 bytes: at least ~1950 rows by the size (one row per 100 bytes).
    const file = writeCsv("sized.csv", homesCsv(0, 2600));
    assert.equal(await loadOutweighsTable(file, 0), true);
    assert.equal(await loadOutweighsTable(file, 1000), true);
    assert.equal(await loadOutweighsTable(file, 100_000), false);
  });

  test("gives the incremental path's rows, counts and table", async () => {
    const moved = { ...syntheticHome(5), LAT: "39.8", LON: "-89.7" };
    const first = writeCsv("first.csv", [
      ...homesCsv(0, 1200),
      // Home 5 again, moved, a batch later: the first line wins on both paths.
      `${csvLineOf(moved)}\n`,
      "abc,39.77,1,Main St,,Springfield,,IL,62704\n",
      "-89.6,39.7,,Main St,,Springfield,,IL,62704\n",
    ]);
    // Overlaps the first file: homes 600-1199 are present.
    const second = writeCsv("second.csv", homesCsv(600, 2000));
    for (const [file, expected] of [
      [
        first,
        {
          rows: 1203,
          added: 1200,
          duplicates: 1,
          staged: 0,
          rejectedByReason: { "bad coordinates": 1, "no house number": 1 },
        },
      ],
      [second, { rows: 1400, added: 800, duplicates: 600, staged: 0, rejectedByReason: {} }],
    ] as const) {
      const byIncrement = await loadWith(await incrementalSink(incremental), file);
      const byRebuild = await loadWith(await largeSink(large), file);
      assert.deepEqual(counts(byRebuild), counts(byIncrement));
      assert.deepEqual(counts(byRebuild), expected);
    }
    assert.deepEqual(await tableRows(large.database), await tableRows(incremental.database));
    assert.equal(await countReferenceAddresses(large.database.db), 2000);
    // The rebuilt table carries the migrations' indexes and constraints under their names.
    assert.deepEqual(await tableShape(large.database), await tableShape(incremental.database));
    assert.deepEqual(
      (await tableShape(large.database)).indexes.map((index) => (index as { indexname: string }).indexname),
      ["reference_addresses_by_street", "reference_addresses_lonlat", "reference_addresses_pkey"],
    );
    // A later migration finds them by name (run and rolled back).
    await assert.rejects(
      large.database.db.transaction(async (tx) => {
        await tx.execute(sql`DROP INDEX reference_addresses_lonlat`);
        await tx.execute(sql`DROP INDEX reference_addresses_by_street`);
        await tx.execute(sql`ALTER TABLE reference_addresses DROP CONSTRAINT reference_addresses_pkey`);
        await tx.execute(
          sql`ALTER TABLE reference_addresses DROP CONSTRAINT reference_addresses_latitude_check`,
        );
        throw new Error("rolled back");
      }),
      /rolled back/,
    );
    const [nearest] = await nearHome(large.database, 1999);
    assert.ok(nearest, "the nearest query reads the loaded table");
    assert.deepEqual(await nearHome(large.database, 1999), await nearHome(incremental.database, 1999));
  });

  test("loading the same file again adds nothing", async () => {
    const file = writeCsv("again.csv", homesCsv(0, 2000));
    const before = await tableRows(large.database);
    const table = () => queryRows(large.database.db, sql`SELECT 'reference_addresses'::regclass::oid AS oid`);
    const tableBefore = await table();
    const report = await loadWith(await largeSink(large), file);
    assert.deepEqual(counts(report), {
      rows: 2000,
      added: 0,
      duplicates: 2000,
      staged: 0,
      rejectedByReason: {},
    });
    assert.deepEqual(await tableRows(large.database), before);
    assert.deepEqual(await table(), tableBefore, "a load that adds nothing leaves the table in place");
    assert.deepEqual(await tableShape(large.database), await tableShape(incremental.database));
  });

  test("a load that fails halfway leaves the table as it was, and usable", async () => {
    const file = writeCsv("failing.csv", homesCsv(1500, 3000));
    const rows = await tableRows(large.database);
    const shape = await tableShape(large.database);
    const sink = await largeSink(large);
    let writes = 0;
    const failsOnSecondBatch: AddressSink = {
      ...sink,
      write: async (batch) => {
        if (++writes === 2) throw new Error("disk full");
        return sink.write(batch);
      },
    };
    await assert.rejects(loadWith(failsOnSecondBatch, file), /disk full/);
    assert.deepEqual(await tableRows(large.database), rows);
    assert.deepEqual(await tableShape(large.database), shape, "nothing of the build is left");
    assert.equal((await nearHome(large.database, 1000)).length, 5);

    if (TEST_DATABASE_URL) {
      // The swap cannot have the table while a reader holds it: it gives up after its attempts,
      // and the table stays as it was; queries answer meanwhile.
      const reader = new pg.Client({
        connectionString: TEST_DATABASE_URL,
        options: `-c search_path=${large.schema}`,
      });
      await reader.connect();
      try {
        await reader.query("BEGIN");
        await reader.query("SELECT count(*) FROM reference_addresses");
        const loading = loadWith(await largeSink(large, { swapLockTimeoutMs: 50, swapAttempts: 3 }), file);
        const answered = [];
        for (let query = 0; query < 5; query++) answered.push((await nearHome(large.database, 1000)).length);
        await assert.rejects(loading, /lock timeout/);
        assert.deepEqual(answered, [5, 5, 5, 5, 5]);
      } finally {
        await reader.query("ROLLBACK");
        await reader.end();
      }
      assert.deepEqual(await tableRows(large.database), rows);
      assert.deepEqual(await tableShape(large.database), shape);
    }
  });

  test("nearest queries keep answering while a file loads", async () => {
    const file = writeCsv("concurrent.csv", homesCsv(2000, 8000));
    // On PGlite the embedded database belongs to one process: the loader runs only while no
    // server uses it, so the queries interleave with the incremental path here.
    const sink = TEST_DATABASE_URL ? await largeSink(large) : await incrementalSink(large);
    let done = false;
    const loading = loadWith(sink, file).finally(() => {
      done = true;
    });
    const answers: number[] = [];
    let slowestMs = 0;
    while (!done) {
      const started = performance.now();
      answers.push((await nearHome(large.database, 1000)).length);
      slowestMs = Math.max(slowestMs, performance.now() - started);
    }
    const report = await loading;
    assert.equal(report.added, 6000);
    assert.ok(answers.length > 0);
    assert.ok(
      answers.every((found) => found === 5),
      "every query answered with the homes present before the load",
    );
    assert.ok(slowestMs < 5000, `the slowest query took ${Math.round(slowestMs)} ms`);
    assert.equal((await nearHome(large.database, 7999)).length, 5, "the loaded homes are found");
    assert.equal(await countReferenceAddresses(large.database.db), 8000);
  });

  test("a table something refers to is loaded through its indexes instead", async () => {
    if (!TEST_DATABASE_URL) {
      // PGlite rebuilds the indexes in place: a view on the table stays valid.
      await large.database.db.execute(
        sql`CREATE VIEW reference_zips AS SELECT DISTINCT zip FROM reference_addresses`,
      );
      const report = await loadWith(await largeSink(large), writeCsv("view.csv", homesCsv(8000, 8500)));
      assert.equal(report.added, 500);
      assert.deepEqual(await queryRows(large.database.db, sql`SELECT zip FROM reference_zips`), [
        { zip: "62704" },
      ]);
      await large.database.db.execute(sql`DROP VIEW reference_zips`);
      return;
    }
    await large.database.db.execute(
      sql`CREATE VIEW reference_zips AS SELECT DISTINCT zip FROM reference_addresses`,
    );
    const steps: string[] = [];
    const sink = await postgresLoadSink(TEST_DATABASE_URL, {
      large: true,
      ...(large.schema ? { searchPath: large.schema } : {}),
      batchSize: BATCH,
      onStep: (step) => steps.push(step),
    });
    const report = await loadWith(sink, writeCsv("view.csv", homesCsv(8000, 8500)));
    assert.equal(report.added, 500);
    assert.deepEqual(steps, [
      "reference_addresses has a view: loading through its indexes instead of rebuilding it",
    ]);
    assert.deepEqual(await queryRows(large.database.db, sql`SELECT zip FROM reference_zips`), [
      { zip: "62704" },
    ]);
    await large.database.db.execute(sql`DROP VIEW reference_zips`);
  });
});
