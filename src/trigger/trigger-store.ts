/**
 * The storage of the trigger core. Writes, per queued automation: its campaign and pipeline job
 * (the job carries the mail piece and inserts it on its first run, so the request leaves out the
 * piece's row and its four index entries, the largest part of its statement); and live events' samples (through the sample buffer, behind the request). Reads:
 * the campaign that already holds a dedup key. Concurrent requests are group-committed
 * (db/micro-batch.ts): one statement writes every request that arrived while the previous
 * statements ran, so under load one commit serves many events, and each request still answers
 * only after its rows committed.
 *
 * Duplicates are decided by the unique index `campaigns_dedup` (ON CONFLICT DO NOTHING), within a
 * batch as across batches. Rows are sorted by that key so two batches in flight take index locks
 * in the same order and cannot deadlock each other; batches touch no shared row otherwise, so
 * several run at once. Dedup lookups (dry runs, and the duplicates of live calls) are batched the
 * same way.
 */
import type { Logger } from "pino";
import { type Database, isConnectionError } from "../db/database.ts";
import { createMicroBatcher } from "../db/micro-batch.ts";
import { insertJobsFromJsonText, jobJsonRowText, type NewJobRow } from "../jobs/queue.ts";
import {
  type EventCampaign,
  eventCampaignJsonRow,
  insertEventCampaignsText,
} from "../pieces/piece-updates.ts";
import { createSampleBuffer } from "./sample-buffer.ts";
import type { EventSampleRow } from "./samples.ts";

export interface CampaignEnqueue {
  campaign: EventCampaign;
  /** The id of the campaign's mail piece, inserted by its job (whose payload holds the piece). */
  pieceId: string;
  job: NewJobRow;
}

/** What one request writes: its event sample (live events, buffered), and its enqueues. */
export interface TriggerWrite {
  sample?: EventSampleRow;
  enqueues: CampaignEnqueue[];
}

/** Per enqueue, in order: true when its campaign was written, false when it was a duplicate. */
export type TriggerWriteResult = boolean[];

/** The unique key of an enqueue: one campaign per (org, automation, dedup kind, dedup key). */
export interface CampaignDedupKey {
  orgId: string;
  automationId: string;
  kind: string;
  key: string;
}

export interface TriggerStore {
  write(request: TriggerWrite): Promise<TriggerWriteResult>;
  /** The id of the campaign holding this dedup key, if one committed. */
  findCampaign(key: CampaignDedupKey): Promise<string | undefined>;
  /** Writes the buffered samples now (before they are read). */
  flushSamples(): Promise<void>;
  /** Resolves when every write submitted so far has settled, samples included (graceful shutdown). */
  drain(): Promise<void>;
}

type BatchDatabase = Pick<Database, "run">;

const DEFAULT_IN_FLIGHT = 3;

export interface TriggerStoreOptions {
  database: BatchDatabase;
  logger: Logger;
  /** Most requests per statement (default 64). */
  maxBatch?: number;
  /**
   * Most statements in flight (default 3 of the pool's 10 connections): while one batch waits for
   * its commit to reach disk, the next ones are already executing.
   */
  maxInFlight?: number;
  /** How long a live event's sample may wait to be written (default 250 ms). */
  sampleFlushIntervalMs?: number;
}

/** One request's fate in a batch: its results, or the error that failed it alone. */
type Settled = { results: TriggerWriteResult } | { error: unknown };

export function createTriggerStore(options: TriggerStoreOptions): TriggerStore {
  const { database, logger } = options;
  const writeAlone = (request: TriggerWrite): Promise<Settled> =>
    writeBatch(database, [request]).then(
      ([results]) => ({ results: results! }),
      (error: unknown) => ({ error }),
    );
  const samples = createSampleBuffer({
    database,
    logger,
    ...(options.sampleFlushIntervalMs !== undefined
      ? { flushIntervalMs: options.sampleFlushIntervalMs }
      : {}),
  });
  const batcher = createMicroBatcher<TriggerWrite, Settled>({
    maxBatch: options.maxBatch ?? 64,
    maxInFlight: options.maxInFlight ?? DEFAULT_IN_FLIGHT,
    async flush(requests) {
      try {
        return (await writeBatch(database, requests)).map((results) => ({ results }));
      } catch (error) {
        if (isConnectionError(error) || requests.length === 1) throw error;
        // One request's bad row (or a lost lock race) must not fail its neighbours: write each alone.
        logger.warn(
          { err: error, requests: requests.length },
          "batched trigger write failed; retrying one by one",
        );
        return Promise.all(requests.map(writeAlone));
      }
    },
  });
  const lookups = createMicroBatcher<CampaignDedupKey, string | undefined>({
    maxBatch: options.maxBatch ?? 64,
    maxInFlight: options.maxInFlight ?? DEFAULT_IN_FLIGHT,
    flush: (keys) => findCampaigns(database, keys),
  });
  return {
    findCampaign: (key) => lookups.submit(key),
    async write(request) {
      let results: TriggerWriteResult = [];
      if (request.enqueues.length > 0) {
        const settled = await batcher.submit(request);
        if ("error" in settled) throw settled.error;
        results = settled.results;
      }
      // Only once the enqueues committed: a failed write is retried by the caller (or answered
      // 503), and its sample must not be buffered twice or for an event that was not received.
      if (request.sample) samples.add(request.sample);
      return results;
    },
    flushSamples: () => samples.flush(),
    drain: async () => {
      await Promise.all([batcher.drain(), lookups.drain()]);
      await samples.flush();
    },
  };
}

const byDedupKey = (a: CampaignEnqueue, b: CampaignEnqueue) => compareKeys(dedupKeyOf(a), dedupKeyOf(b));

function dedupKeyOf({ campaign }: CampaignEnqueue): string[] {
  return [campaign.orgId, campaign.automationId, campaign.dedupKind ?? "", campaign.dedupKey ?? ""];
}

function compareKeys(a: string[], b: string[]): number {
  for (let index = 0; index < a.length; index++) {
    const left = a[index]!;
    const right = b[index]!;
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

/**
 * One statement for a whole batch, its rows passed as two JSON arrays ($1, $2), so its text never
 * changes whatever the batch size and each connection prepares it once. A job is written only
 * with its campaign: a duplicate campaign queues nothing. Each INSERT's text comes from the
 * table's owner (pieces: campaigns; jobs: jobs); this module only joins them.
 */
const WRITE_BATCH_SQL = `
WITH campaign AS (
  ${insertEventCampaignsText("$1::json")}
), job AS (
  ${insertJobsFromJsonText("$2::json", { extraColumns: "campaign_id uuid", where: "j.campaign_id IN (SELECT id FROM campaign)" })}
)
SELECT id FROM campaign`;

/**
 * The batch's rows as the statement's two JSON arrays (campaigns, jobs), read back with
 * json_to_recordset: one JSON.stringify costs a fraction of encoding Postgres arrays element by
 * element. The job's payload, already JSON, is embedded as it is (jobJsonRowText) and cast to
 * jsonb in SQL.
 */
function batchValues(enqueues: CampaignEnqueue[]): string[] {
  return [
    JSON.stringify(enqueues.map(({ campaign }) => eventCampaignJsonRow(campaign))),
    `[${enqueues.map(({ job, campaign }) => jobJsonRowText(job, { campaign_id: campaign.id })).join(",")}]`,
  ];
}

/** Writes every request of the batch in one statement; returns each request's per-enqueue result. */
async function writeBatch(database: BatchDatabase, requests: TriggerWrite[]): Promise<TriggerWriteResult[]> {
  const enqueues = requests.flatMap((request) => request.enqueues).sort(byDedupKey);
  const rows = await database.run<{ id: string }>({
    name: "trigger_write_batch_v5",
    text: WRITE_BATCH_SQL,
    values: batchValues(enqueues),
  });
  const written = new Set(rows.map((row) => row.id));
  return requests.map((request) => request.enqueues.map((enqueue) => written.has(enqueue.campaign.id)));
}

const FIND_CAMPAIGNS_SQL = `
SELECT k.position, c.id
FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY
  AS k(org_id, automation_id, dedup_kind, dedup_key, position)
JOIN campaigns c ON c.org_id = k.org_id AND c.automation_id = k.automation_id
                AND c.dedup_kind = k.dedup_kind AND c.dedup_key = k.dedup_key`;

async function findCampaigns(
  database: BatchDatabase,
  keys: CampaignDedupKey[],
): Promise<(string | undefined)[]> {
  const rows = await database.run<{ position: string; id: string }>({
    name: "trigger_find_campaigns_v1",
    text: FIND_CAMPAIGNS_SQL,
    values: [
      keys.map((k) => k.orgId),
      keys.map((k) => k.automationId),
      keys.map((k) => k.kind),
      keys.map((k) => k.key),
    ],
  });
  const found = new Map(rows.map((row) => [Number(row.position), row.id]));
  return keys.map((_, index) => found.get(index + 1));
}
