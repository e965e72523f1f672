/**
 * Loads OpenAddresses files (CSV or GeoJSON lines, plain or gzipped) into `reference_addresses`,
 * streaming: the file is parsed record by record (csv-parse, or one JSON Feature per line), each
 * record normalized with the suppression and attribution key, and written in batches while the
 * next batch is parsed. PostgreSQL gets each batch by COPY into a session temp table and one
 * INSERT … SELECT … ON CONFLICT DO NOTHING, or, when the file is large against the table, stages
 * every row and swaps in a rebuilt table (postgres-swap-load.ts); PGlite (no COPY from a client
 * stream) one multi-row INSERT of arrays; when the file is large against the table, PGlite's load
 * runs in one transaction that drops the street and GiST indexes first and builds them at its
 * end. The unique key makes a second load of the same file add nothing. Every path counts the
 * homes it adds per ZIP (`reference_address_zips`) in the statement that adds them.
 */
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";
import { parse } from "csv-parse";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import {
  COUNT_ADDED_BY_ZIP,
  createSecondaryIndexes,
  dropSecondaryIndexes,
  insertReferenceAddresses,
  type OpenAddressesRecord,
  type ReferenceAddress,
  type Runner,
  referenceAddressOf,
} from "./reference-addresses.ts";

/**
 * Where batches go. `write` resolves to how many rows were new, or to `undefined` when the sink
 * sorts new from present only at its end (postgres-swap-load.ts stages the rows first).
 */
export interface AddressSink {
  readonly batchSize: number;
  write(rows: ReferenceAddress[]): Promise<number | undefined>;
  /**
   * After the last write: what makes the load complete (the rebuilt indexes, the swapped table and
   * their commit); resolves to how many of the rows `write` left uncounted were new.
   */
  finish?(): Promise<number | undefined>;
  /** Releases the sink; a load that did not finish is rolled back where the sink holds a transaction. */
  close(): Promise<void>;
}

export interface LoadReport {
  file: string;
  rows: number;
  added: number;
  /** Accepted rows already present (an earlier load, or an earlier line of this file). */
  duplicates: number;
  /** Accepted rows written but not yet counted as added or present (until a swap load's end). */
  staged: number;
  rejected: number;
  rejectedByReason: Record<string, number>;
  seconds: number;
  rowsPerSecond: number;
}

export interface LoadOptions {
  sink: AddressSink;
  /** The file's format; default: sniffed from its first character (`{`: GeoJSON lines). */
  format?: AddressFileFormat;
  /** Stops the load between rows (the server's shutdown). */
  signal?: AbortSignal;
  /** Called after every written batch with the running totals. */
  onProgress?: (report: LoadReport) => void;
  now?: () => number;
}

export interface StatementSinkOptions {
  batchSize?: number;
  /**
   * Drop the street and GiST indexes before the first batch and build them after the last, all in
   * one transaction (a failed load rolls back to the table and indexes it started from). Needs a
   * database of one session (PGlite): the statements of the transaction must share it. Nearest
   * queries wait for the load meanwhile; the loader runs only while no server uses the data.
   */
  rebuildIndexes?: boolean;
}

/** Batches through one statement each (PGlite; works on PostgreSQL too without `rebuildIndexes`). */
export function statementSink(database: Runner, options: StatementSinkOptions = {}): AddressSink {
  const execute = async (statements: readonly string[]) => {
    for (const text of statements) await database.run({ name: "", text, values: [] });
  };
  let transaction: "none" | "open" | "ended" = options.rebuildIndexes ? "none" : "ended";
  return {
    batchSize: options.batchSize ?? 10_000,
    async write(rows) {
      if (transaction === "none") {
        transaction = "open";
        await execute(["BEGIN", ...dropSecondaryIndexes]);
      }
      return insertReferenceAddresses(database, rows);
    },
    async finish() {
      if (transaction !== "open") return undefined;
      await execute([...createSecondaryIndexes, "COMMIT"]);
      transaction = "ended";
      return undefined;
    },
    async close() {
      if (transaction === "open") await execute(["ROLLBACK"]);
      transaction = "ended";
    },
  };
}

/** Rows a file of this size holds at least (OpenAddresses lines are under ~100 bytes, gzip ~4:1). */
async function fewestRowsOf(file: string): Promise<number> {
  const { size } = await stat(file);
  return (await isGzip(file)) ? size / 25 : size / 100;
}

/** Whether a load is large enough against the table that building its indexes once is cheaper. */
export async function loadOutweighsTable(file: string, tableRows: number): Promise<boolean> {
  return tableRows < (await fewestRowsOf(file));
}

const copyText = (value: string) =>
  value.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);

/**
 * COPYs rows into `table` (text format; its columns the address's seven, then `extra`'s values
 * when given, one per row, e.g. the line number).
 */
export async function copyRows(
  client: pg.Client,
  table: string,
  rows: readonly ReferenceAddress[],
  extra?: (index: number) => string,
): Promise<void> {
  const text = rows
    .map((row, index) => {
      const fields = [row.normalizedAddress, row.street, row.city, row.state, row.zip]
        .map(copyText)
        .concat(String(row.latitude), String(row.longitude));
      if (extra) fields.push(extra(index));
      return fields.join("\t");
    })
    .join("\n");
  const copy = client.query(copyFrom(`COPY ${table} FROM STDIN`));
  await new Promise<void>((resolve, reject) => {
    copy.on("finish", resolve).on("error", reject);
    copy.end(`${text}\n`);
  });
}

/**
 * COPY on a connection of its own (pg-copy-streams needs the raw client, which the pool keeps to
 * itself). `searchPath` places it in a schema (the tests' isolation).
 */
export async function postgresCopySink(
  databaseUrl: string,
  options: { searchPath?: string; batchSize?: number } = {},
): Promise<AddressSink> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  await client.connect();
  await client.query(`CREATE TEMP TABLE reference_addresses_staging
    (normalized_address text, street text, city text, state text, zip text, latitude float8, longitude float8)`);
  return {
    batchSize: options.batchSize ?? 20_000,
    async write(rows) {
      if (rows.length === 0) return 0;
      await copyRows(client, "reference_addresses_staging", rows);
      const inserted = await client.query<{ added: number }>(`WITH added AS (
          INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
          SELECT normalized_address, street, city, state, zip, latitude, longitude FROM reference_addresses_staging
          ORDER BY normalized_address
          ON CONFLICT (normalized_address) DO NOTHING
          RETURNING zip), ${COUNT_ADDED_BY_ZIP}
        SELECT count(*)::int AS added FROM added`);
      await client.query("TRUNCATE reference_addresses_staging");
      return Number(inserted.rows[0]?.added ?? 0);
    },
    close: () => client.end(),
  };
}

/** gzip is recognised by its magic bytes, whatever the file is called. */
export async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** OpenAddresses publishes CSV and GeoJSON lines (one Feature per line). */
export type AddressFileFormat = "csv" | "geojson";

/** Longer than any address record; a longer line (a hostile file, a whole FeatureCollection) is malformed. */
const MAX_RECORD_BYTES = 64 * 1024;

/** The file's text, decompressed when it is gzip. */
async function textStream(file: string): Promise<Readable> {
  const source = createReadStream(file);
  if (!(await isGzip(file))) return source;
  const gunzip = createGunzip();
  pipeline(source, gunzip).catch((error: unknown) => gunzip.destroy(error as Error));
  return gunzip;
}

/** GeoJSON lines start with `{`; anything else is read as CSV. */
export async function sniffFormat(file: string): Promise<AddressFileFormat> {
  const text = await textStream(file);
  try {
    for await (const chunk of text) {
      const leading = String(chunk)
        .replace(/^\uFEFF/, "")
        .trimStart();
      if (leading) return leading.startsWith("{") ? "geojson" : "csv";
    }
  } catch {
    // A truncated or corrupt file: the load reports it.
  } finally {
    text.destroy();
  }
  return "csv";
}

/** What the line splitter passes on for a line over MAX_RECORD_BYTES (null would end the stream). */
const OVERLONG_LINE = Object.freeze({ overlong: true });

/**
 * Splits text into lines of at most MAX_RECORD_BYTES; a longer one is passed on as
 * OVERLONG_LINE (its bytes dropped as they come), so a file without newlines never sits in memory.
 */
function lineSplitter(): Transform {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let overlong = false;
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding, callback) {
      // The decoder keeps a character split between two chunks for the next one.
      const lines = (pending + decoder.write(chunk)).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        this.push(overlong ? OVERLONG_LINE : line);
        overlong = false;
      }
      if (pending.length > MAX_RECORD_BYTES) {
        overlong = true;
        pending = "";
      }
      callback();
    },
    flush(callback) {
      pending += decoder.end();
      if (overlong || pending) this.push(overlong ? OVERLONG_LINE : pending);
      callback();
    },
  });
}

/**
 * A file's rows as a stream and the rule that reads one row as a record: `skip` for a CSV header
 * or a blank line, `malformed` for a line that is not a record.
 */
interface RecordSource {
  rows: AsyncIterable<unknown>;
  recordOf(row: unknown): OpenAddressesRecord | "skip" | "malformed";
  malformedReason: string;
}

function csvSource(text: Readable, onMalformed: () => void): RecordSource {
  const parser = parse({
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_BYTES,
    bom: true,
    on_skip: () => {
      onMalformed();
      return undefined;
    },
  });
  pipeline(text, parser).catch((error: unknown) => parser.destroy(error as Error));
  // Records as arrays (a third faster to parse than objects), named by the header's columns.
  let columns: string[] | undefined;
  return {
    rows: parser,
    malformedReason: "malformed CSV line",
    recordOf(row) {
      const fields = row as string[];
      if (!columns) {
        columns = fields.map((name) => name.trim().toUpperCase());
        return "skip";
      }
      const record: Record<string, string | undefined> = {};
      for (let index = 0; index < columns.length; index++) record[columns[index]!] = fields[index];
      return record as OpenAddressesRecord;
    },
  };
}

const asText = (value: unknown) =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;

/** One OpenAddresses GeoJSON Feature (lowercase property names, a Point) as the CSV's record. */
function featureRecord(line: string): OpenAddressesRecord | "malformed" {
  let feature: unknown;
  try {
    feature = JSON.parse(line);
  } catch {
    return "malformed";
  }
  const { properties, geometry } = (feature ?? {}) as {
    properties?: Record<string, unknown> | null;
    geometry?: { type?: unknown; coordinates?: unknown } | null;
  };
  if (typeof properties !== "object" || properties === null) return "malformed";
  const point = geometry?.type === "Point" && Array.isArray(geometry.coordinates) ? geometry.coordinates : [];
  return {
    LON: asText(point[0]),
    LAT: asText(point[1]),
    NUMBER: asText(properties.number),
    STREET: asText(properties.street),
    UNIT: asText(properties.unit),
    CITY: asText(properties.city),
    DISTRICT: asText(properties.district),
    REGION: asText(properties.region),
    POSTCODE: asText(properties.postcode),
  };
}

function geoJsonLinesSource(input: Readable): RecordSource {
  const lines = lineSplitter();
  pipeline(input, lines).catch((error: unknown) => lines.destroy(error as Error));
  let first = true;
  return {
    rows: lines,
    malformedReason: "malformed GeoJSON line",
    recordOf(row) {
      if (row === OVERLONG_LINE) return "malformed";
      let line = row as string;
      if (first) line = line.replace(/^\uFEFF/, "");
      first = false;
      return line.trim() ? featureRecord(line) : "skip";
    },
  };
}

async function openRecords(
  file: string,
  format: AddressFileFormat,
  onMalformed: (reason: string) => void,
): Promise<RecordSource> {
  const input = await textStream(file);
  return format === "geojson"
    ? geoJsonLinesSource(input)
    : csvSource(input, () => onMalformed("malformed CSV line"));
}

export async function loadAddressFile(file: string, options: LoadOptions): Promise<LoadReport> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const report: LoadReport = {
    file,
    rows: 0,
    added: 0,
    duplicates: 0,
    staged: 0,
    rejected: 0,
    rejectedByReason: {},
    seconds: 0,
    rowsPerSecond: 0,
  };
  const reject = (reason: string) => {
    report.rejected++;
    report.rejectedByReason[reason] = (report.rejectedByReason[reason] ?? 0) + 1;
  };
  const format = options.format ?? (await sniffFormat(file));
  const source = await openRecords(file, format, (reason) => {
    report.rows++;
    reject(reason);
  });
  let batch: ReferenceAddress[] = [];
  // One batch is written while the next is parsed.
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const rows = batch;
    batch = [];
    await writing;
    writing = options.sink.write(rows).then((added) => {
      if (added === undefined) report.staged += rows.length;
      else {
        report.added += added;
        report.duplicates += rows.length - added;
      }
      report.seconds = (now() - started) / 1000;
      report.rowsPerSecond = Math.round(report.rows / Math.max(report.seconds, 0.001));
      options.onProgress?.({ ...report, rejectedByReason: { ...report.rejectedByReason } });
    });
    // A failed write is thrown by the next flush or the end; until then it is not an unhandled rejection.
    writing.catch(() => {});
  };
  for await (const row of source.rows) {
    const record = source.recordOf(row);
    if (record === "skip") continue;
    report.rows++;
    if (record === "malformed") {
      reject(source.malformedReason);
      continue;
    }
    const verdict = referenceAddressOf(record);
    if ("rejected" in verdict) reject(verdict.rejected);
    else batch.push(verdict.address);
    if (batch.length >= options.sink.batchSize) await flush();
    options.signal?.throwIfAborted();
  }
  await flush();
  await writing;
  const addedAtEnd = await options.sink.finish?.();
  if (report.staged > 0) {
    report.added += addedAtEnd ?? 0;
    report.duplicates += report.staged - (addedAtEnd ?? 0);
    report.staged = 0;
  }
  report.seconds = (now() - started) / 1000;
  report.rowsPerSecond = Math.round(report.rows / Math.max(report.seconds, 0.001));
  return report;
}

/**
 * Why a finished load counts as failed, or null: a file with no rows, or none an address (a
 * spreadsheet of customers, a file of another country's columns) loaded nothing and is not done.
 */
export function nothingUsable(report: LoadReport): string | null {
  if (report.rows === 0) return `it holds no rows after its header. ${EXPECTED_FORMAT}`;
  if (report.rejected < report.rows) return null;
  const reasons = Object.entries(report.rejectedByReason)
    .sort(([, a], [, b]) => b - a)
    .map(([reason, count]) => `${reason}: ${count}`)
    .join(", ");
  const rows = report.rows === 1 ? "its one row is not" : `none of its ${report.rows} rows is`;
  return `${rows} an address that can be loaded (${reasons}). ${EXPECTED_FORMAT}`;
}

const EXPECTED_FORMAT =
  "An OpenAddresses file is a CSV with the columns LON, LAT, NUMBER, STREET, UNIT, CITY, REGION and POSTCODE, or GeoJSON lines of address points";

/** "120000 rows, 118000 added, 1500 already present, 500 rejected (bad coordinates: 300), 24000 rows/s" */
export function progressLine(report: LoadReport): string {
  const reasons = Object.entries(report.rejectedByReason)
    .map(([reason, count]) => `${reason}: ${count}`)
    .join(", ");
  return (
    `${report.file}: ${report.rows} rows, ${report.added} added, ${report.duplicates} already present, ` +
    (report.staged > 0 ? `${report.staged} staged (counted at the end), ` : "") +
    `${report.rejected} rejected${reasons ? ` (${reasons})` : ""}, ${report.rowsPerSecond} rows/s`
  );
}
