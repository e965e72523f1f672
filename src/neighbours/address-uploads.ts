/**
 * OpenAddresses files uploaded to a running server (the operator API's
 * `POST /admin/v1/reference-addresses`, docs/neighbour-mail.md "Uploading from the console"). The
 * body is streamed to a file under DATA_DIR (backpressure: a slow disk slows the client, a 1 GB
 * file never sits in memory), then loaded by the same rules as `addresses:load`
 * (`loadAddressFile`) through the incremental sink: batches inserted through the indexes, each
 * its own short statement, so the server keeps answering while it loads. Loads run one at a time
 * per process; the file is deleted when its load ends.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Database } from "../db/database.ts";
import { AppError, systemErrorReason } from "../errors.ts";
import {
  type AddressFileFormat,
  isGzip,
  type LoadReport,
  loadAddressFile,
  nothingUsable,
  sniffFormat,
  statementSink,
} from "./load-addresses.ts";
import {
  failAbandonedUploads,
  findUpload,
  HEARTBEAT_MS,
  insertUpload,
  listUploads,
  type ReferenceAddressUpload,
  recordDone,
  recordFailed,
  recordHeartbeat,
  recordProgress,
  recordReceived,
} from "./upload-progress.ts";

/**
 * Rows per statement while the server serves: each batch holds the embedded database's one
 * connection while it runs, so batches are a fifth of the offline loader's (~tens of ms each).
 */
const SERVING_BATCH_ROWS = 2_000;
/** Progress is written at most this often (and after the last batch). */
const PROGRESS_EVERY_MS = 1_000;

export interface UploadHints {
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
  /** Content-Length, when the client declared one. */
  declaredBytes?: number | undefined;
}

export interface ReferenceAddressUploads {
  /**
   * Receives a file, and resolves to its upload id once it is on disk; its load then runs in
   * the background. Refuses (AppError) a body over the limit, an unknown encoding, or a body
   * declared gzip that is not.
   */
  receive(body: Readable, hints: UploadHints): Promise<string>;
  find(id: string): Promise<ReferenceAddressUpload | undefined>;
  list(limit: number): Promise<ReferenceAddressUpload[]>;
  /** See failAbandonedUploads; also deletes the files those uploads left. */
  failAbandoned(options: { all: boolean }): Promise<string[]>;
  /** Stops the running load (its upload fails with a sentence) and waits for it. */
  close(): Promise<void>;
}

export interface ReferenceAddressUploadsDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  dataDir: string;
  maxBytes: number;
}

const GEOJSON_TYPES = new Set([
  "application/geo+json",
  "application/geo+json-seq",
  "application/json",
  "application/x-ndjson",
  "application/jsonl",
]);

/** The format a Content-Type names, or undefined (octet-stream, gzip, none): sniffed from the content. */
export function formatOfContentType(contentType: string | undefined): AddressFileFormat | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  if (!type) return undefined;
  if (type === "text/csv") return "csv";
  return GEOJSON_TYPES.has(type) ? "geojson" : undefined;
}

function declaredGzip(hints: UploadHints): boolean {
  const encoding = hints.contentEncoding?.trim().toLowerCase();
  if (encoding && encoding !== "identity" && encoding !== "gzip") {
    throw refusal(
      415,
      "unsupported_media_type",
      `Content-Encoding ${encoding} is not supported; send gzip or none.`,
    );
  }
  const type = hints.contentType?.split(";")[0]?.trim().toLowerCase();
  return encoding === "gzip" || type === "application/gzip";
}

/**
 * A refusal that closes the connection once answered: the client may still be sending a body the
 * server will not read.
 */
const refusal = (status: number, code: string, detail: string) =>
  new AppError(status, code, detail, { connection: "close" });

const tooLarge = (limit: number) =>
  refusal(413, "payload_too_large", `request body exceeds the limit of ${limit} bytes`);

/**
 * Writes the body to `file` with backpressure (a slow disk slows the client) and resolves to its
 * size. Past `limit` it stops writing, discards the rest as it arrives and fails with a 413; the
 * request itself is not destroyed, so the client still reads the answer.
 */
function receiveToFile(body: Readable, file: string, limit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file, { flags: "wx", mode: 0o600 });
    let bytes = 0;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      body.unpipe(out);
      body.resume();
      out.destroy();
      reject(error);
    };
    body.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) fail(tooLarge(limit));
    });
    body.on("error", fail);
    body.on("close", () => {
      if (!body.readableEnded) fail(new Error("the client stopped sending the file"));
    });
    out.on("error", fail);
    out.on("finish", () => {
      if (settled) return;
      settled = true;
      resolve(bytes);
    });
    body.pipe(out);
  });
}

/** The sentence an operator reads for a load that failed. */
function failureSentence(error: unknown, report: LoadReport | undefined): string {
  const reason =
    error instanceof AppError
      ? (error.detail ?? error.code)
      : error instanceof Error
        ? error.message
        : systemErrorReason(error);
  const sofar = report ? ` ${report.added} new homes were loaded before it stopped; they stay.` : "";
  return `The file could not be loaded: ${reason}.${sofar} Upload it again once fixed (homes already loaded are skipped).`;
}

export function createReferenceAddressUploads(deps: ReferenceAddressUploadsDeps): ReferenceAddressUploads {
  const { database, clock, logger } = deps;
  const db = database.db;
  const folder = path.join(deps.dataDir, "uploads");
  const fileOf = (id: string) => path.join(folder, `${id}.reference-addresses`);
  const stopping = new AbortController();
  // Loads run one after another: two at once would only compete for the same database.
  let loads: Promise<void> = Promise.resolve();

  async function load(id: string, file: string, format: AddressFileFormat): Promise<void> {
    if (stopping.signal.aborted) {
      await recordFailed(
        db,
        id,
        "The server stopped before this upload's load began; upload the file again.",
        clock.now(),
      );
      return;
    }
    const heartbeat = setInterval(() => {
      recordHeartbeat(db, id, clock.now()).catch(() => {});
    }, HEARTBEAT_MS);
    heartbeat.unref();
    const sink = statementSink(database, { batchSize: SERVING_BATCH_ROWS });
    let latest: LoadReport | undefined;
    let written = 0;
    // Progress writes in order, each after the one before (the last one written is the newest).
    let progressWrites: Promise<void> = Promise.resolve();
    const writeProgress = (report: LoadReport) => {
      progressWrites = progressWrites.then(() => recordProgress(db, id, report, clock.now())).catch(() => {});
      return progressWrites;
    };
    try {
      const report = await loadAddressFile(file, {
        sink,
        format,
        signal: stopping.signal,
        onProgress: (progress) => {
          latest = progress;
          const now = clock.now();
          if (now.getTime() - written < PROGRESS_EVERY_MS) return;
          written = now.getTime();
          void writeProgress(progress);
        },
      });
      await progressWrites;
      const unusable = nothingUsable(report);
      if (unusable) {
        logger.warn({ upload_id: id, rows: report.rows }, "reference address upload loaded nothing");
        await recordProgress(db, id, report, clock.now());
        await recordFailed(db, id, `The file could not be loaded: ${unusable}.`, clock.now());
        return;
      }
      await recordDone(db, id, report, clock.now());
      logger.info(
        { upload_id: id, rows: report.rows, added: report.added, rejected: report.rejected },
        "reference addresses loaded",
      );
    } catch (error) {
      const sentence = stopping.signal.aborted
        ? "The server stopped while this upload was loading. The homes loaded until then stay; upload the file again to load the rest (homes already loaded are skipped)."
        : failureSentence(error, latest);
      logger.warn({ upload_id: id, err: error }, "reference address upload failed");
      if (latest) await writeProgress(latest);
      await recordFailed(db, id, sentence, clock.now()).catch(() => {});
    } finally {
      clearInterval(heartbeat);
      await sink.close().catch(() => {});
      await rm(file, { force: true });
    }
  }

  return {
    async receive(body, hints) {
      if (stopping.signal.aborted) throw new AppError(503, "service_unavailable", "the server is stopping");
      if (hints.declaredBytes !== undefined && hints.declaredBytes > deps.maxBytes)
        throw tooLarge(deps.maxBytes);
      if (!body || typeof body.pipe !== "function") {
        throw refusal(400, "invalid_payload", "The body is empty: send the file as the body.");
      }
      const gzip = declaredGzip(hints);
      const id = randomUUID();
      const file = fileOf(id);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await insertUpload(db, id, clock.now());
      let bytes = 0;
      try {
        bytes = await receiveToFile(body, file, deps.maxBytes);
        if (bytes === 0)
          throw refusal(400, "invalid_payload", "The body is empty: send the file as the body.");
        if (gzip && !(await isGzip(file))) {
          throw refusal(400, "invalid_payload", "The body is declared gzip but is not gzip.");
        }
      } catch (error) {
        await rm(file, { force: true });
        const sentence =
          error instanceof AppError
            ? `The upload was refused: ${error.detail ?? error.code}.`
            : `The upload did not arrive whole (${systemErrorReason(error)}); send the file again.`;
        await recordFailed(db, id, sentence, clock.now()).catch(() => {});
        throw error;
      }
      const format = formatOfContentType(hints.contentType) ?? (await sniffFormat(file));
      await recordReceived(db, id, { bytes, format }, clock.now());
      loads = loads
        .then(() => load(id, file, format))
        .catch((error: unknown) =>
          logger.error({ upload_id: id, err: error }, "reference address upload lost"),
        );
      return id;
    },
    find: (id) => findUpload(db, id),
    list: (limit) => listUploads(db, limit),
    async failAbandoned(options) {
      const ids = await failAbandonedUploads(db, { ...options, now: clock.now() });
      for (const id of ids) await rm(fileOf(id), { force: true });
      return ids;
    },
    async close() {
      stopping.abort();
      await loads;
    },
  };
}
