/**
 * Event samples (rule 10: "about 25 recent events per event_type") are written behind the
 * request, not with it. A live event's sample waits here, at most SAMPLE_FLUSH_INTERVAL_MS, and
 * only the newest 25 of each (org, event type) are kept, so a burst of 100 events of one type
 * writes 25 sample rows in one statement instead of 100 rows and 100 ring-cursor updates in the
 * event's own transaction. The event's campaigns are committed before its 202 as before; what a
 * crash can lose is the last interval's samples, which the next events replace.
 *
 * Reads of the samples (the operator API) flush this process's buffer first, so within one
 * process a sample is visible as soon as its event was answered; another API process shows it
 * within the interval.
 */
import type { Logger } from "pino";
import { type Database, isConnectionError } from "../db/database.ts";
import type { EventSampleRow } from "./samples.ts";
import { SAMPLES_PER_EVENT_TYPE } from "./samples.ts";

export const SAMPLE_FLUSH_INTERVAL_MS = 250;
/**
 * Most samples per statement. On PGlite a statement runs on the event loop, so a flush of many
 * types at once goes in short statements with a loop turn between them, not one long stall.
 */
const SAMPLES_PER_STATEMENT = 50;

/** A type's arrivals since the last flush: all of them, and those without an address (with the newest's time). */
interface Arrivals {
  all: number;
  withoutAddress: number;
  lastWithoutAddressAt: Date | null;
}

type WrittenSample = EventSampleRow & { arrivals: Arrivals | null };

export interface SampleBuffer {
  add(sample: EventSampleRow): void;
  /** Writes every buffered sample now; resolves when they are committed (or dropped on error). */
  flush(): Promise<void>;
}

/**
 * Advances each touched type's ring cursor past its arrivals (in key order, so two writers
 * cannot deadlock; a concurrent writer of the same type waits on the cursor row and then sees the
 * advanced slot) and writes the arrivals into the slots before the cursor, oldest first.
 */
const WRITE_SAMPLES_SQL = `
WITH sample_input AS (
  SELECT s.*,
         row_number() OVER (PARTITION BY s.org_id, s.event_type ORDER BY s.received_at, s.id) - 1 AS position,
         count(*) OVER (PARTITION BY s.org_id, s.event_type) AS arriving
  FROM json_to_recordset($1::json)
    AS s(org_id uuid, id uuid, event_type text, envelope json, received_at timestamptz, without_address boolean,
         arrived bigint, arrived_without_address bigint, last_without_address_at timestamptz)
), cursor AS (
  INSERT INTO event_sample_cursors AS c
    (org_id, event_type, next_slot, received, received_without_address, last_without_address_at)
  SELECT org_id, event_type, count(*) % ${SAMPLES_PER_EVENT_TYPE}, COALESCE(sum(arrived), 0),
         COALESCE(sum(arrived_without_address), 0), max(last_without_address_at)
  FROM sample_input
  GROUP BY org_id, event_type ORDER BY org_id, event_type
  ON CONFLICT (org_id, event_type) DO UPDATE
    SET next_slot = (c.next_slot + excluded.next_slot) % ${SAMPLES_PER_EVENT_TYPE},
        received = c.received + excluded.received,
        received_without_address = c.received_without_address + excluded.received_without_address,
        last_without_address_at = GREATEST(c.last_without_address_at, excluded.last_without_address_at)
  RETURNING org_id, event_type, next_slot
)
INSERT INTO event_samples AS e (org_id, event_type, slot, id, envelope, received_at, without_address)
SELECT s.org_id, s.event_type,
       ((c.next_slot - s.arriving + s.position) % ${SAMPLES_PER_EVENT_TYPE} + ${SAMPLES_PER_EVENT_TYPE}) % ${SAMPLES_PER_EVENT_TYPE},
       s.id, s.envelope::jsonb, s.received_at, s.without_address
FROM sample_input s JOIN cursor c ON c.org_id = s.org_id AND c.event_type = s.event_type
WHERE s.position >= s.arriving - ${SAMPLES_PER_EVENT_TYPE}
ORDER BY 1, 2, 3
ON CONFLICT (org_id, event_type, slot) DO UPDATE
  SET id = excluded.id, envelope = excluded.envelope, received_at = excluded.received_at,
      without_address = excluded.without_address`;

export function createSampleBuffer(deps: {
  database: Pick<Database, "run">;
  logger: Logger;
  flushIntervalMs?: number;
}): SampleBuffer {
  const intervalMs = deps.flushIntervalMs ?? SAMPLE_FLUSH_INTERVAL_MS;
  // Per "org event_type", the newest samples in arrival order (at most a ring's worth), and how
  // many arrived in all (the count of events received; the samples dropped here count too).
  let pending = new Map<string, EventSampleRow[]>();
  let arrivals = new Map<string, Arrivals>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  function add(sample: EventSampleRow) {
    const key = `${sample.orgId} ${sample.eventType}`;
    const counted = arrivals.get(key) ?? { all: 0, withoutAddress: 0, lastWithoutAddressAt: null };
    counted.all += 1;
    if (sample.withoutAddress) {
      counted.withoutAddress += 1;
      counted.lastWithoutAddressAt = sample.receivedAt;
    }
    arrivals.set(key, counted);
    const samples = pending.get(key);
    if (!samples) pending.set(key, [sample]);
    else {
      samples.push(sample);
      if (samples.length > SAMPLES_PER_EVENT_TYPE) samples.shift();
    }
    timer ??= setTimeout(() => void flush(), intervalMs).unref();
  }

  async function write(samples: WrittenSample[]) {
    try {
      await deps.database.run({
        name: "event_samples_write_v4",
        text: WRITE_SAMPLES_SQL,
        values: [
          JSON.stringify(
            samples.map((s) => ({
              org_id: s.orgId,
              id: s.id,
              event_type: s.eventType,
              envelope: s.envelope,
              received_at: s.receivedAt,
              without_address: s.withoutAddress === true,
              arrived: s.arrivals?.all ?? 0,
              arrived_without_address: s.arrivals?.withoutAddress ?? 0,
              last_without_address_at: s.arrivals?.lastWithoutAddressAt ?? null,
            })),
          ),
        ],
      });
    } catch (error) {
      // A sample is a convenience for the binding picker: newer events bring new ones.
      deps.logger.warn(
        { err: error, samples: samples.length, unavailable: isConnectionError(error) },
        "event samples not recorded",
      );
    }
  }

  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    // A type's arrivals ride on its first sample: its samples may span two statements.
    const batch: WrittenSample[] = [...pending].flatMap(([key, samples]) =>
      samples.map((sample, index) => ({
        ...sample,
        arrivals: index === 0 ? (arrivals.get(key) ?? null) : null,
      })),
    );
    pending = new Map();
    arrivals = new Map();
    // One write at a time: two writers of one type would only wait on each other's cursor row.
    writing = writing.then(async () => {
      for (let start = 0; start < batch.length; start += SAMPLES_PER_STATEMENT) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        await write(batch.slice(start, start + SAMPLES_PER_STATEMENT));
      }
    });
    return writing;
  }

  return { add, flush };
}
