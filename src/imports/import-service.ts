import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { KillSwitch } from "../automations/kill-switch.ts";
import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { countCodePoints } from "../domain/storable-text.ts";
import { AppError, invalidPayload, rateLimited } from "../errors.ts";
import { toGeocodingAppError } from "../geo/errors.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import {
  ABANDONED_CLAIM_SECONDS,
  type ClaimOutcome,
  claimKey,
  findStagedBatch,
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  releaseClaim,
} from "./claims.ts";
import { namesNoStreet } from "./csv-table.ts";
import { lockOrgQuota, secondsToUtcMidnight, stagedToday } from "./quota.ts";
import {
  assembleBatch,
  type GeocodedBatch,
  type PreparedRow,
  prepareRows,
  type StagedRowValues,
  type StagingRow,
  skippedFor,
} from "./rows.ts";
import { IMPORT_LIMITS, type ImportOrigin, type ImportRequest, type ImportResult } from "./schemas.ts";

export interface ImportDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  geocoder: Geocoder;
  killSwitch: KillSwitch;
}

export interface ImportOutcome {
  /** 201 for a new batch, 200 for the replay of a known Idempotency-Key. */
  status: 200 | 201;
  result: ImportResult;
}

export const importInProgress = () =>
  new AppError(409, "import_in_progress", "a request with this Idempotency-Key is still being processed", {
    "retry-after": String(IN_PROGRESS_RETRY_AFTER_SECONDS),
  });

const dailyQuotaReached = (now: Date) =>
  rateLimited(secondsToUtcMidnight(now), `at most ${IMPORT_LIMITS.batchesPerDay} batches per UTC day`);

/** C0 and C1 controls and DEL: an HTTP header cannot carry them; the MCP tool's argument could. */
const CONTROL_CHARACTER = /\p{Cc}/u;

const replayed = (batch: Extract<ClaimOutcome, { kind: "staged" }>): ImportOutcome => ({
  status: 200,
  result: {
    import_id: batch.importId,
    staged: batch.staged,
    skipped_no_address: batch.skippedNoAddress,
    skipped_geocode_failed: batch.skippedGeocodeFailed,
  },
});

function checkKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (countCodePoints(key) > IMPORT_LIMITS.idempotencyKey) {
    throw invalidPayload(`Idempotency-Key: must be at most ${IMPORT_LIMITS.idempotencyKey} characters`);
  }
  if (key.trim() === "") throw invalidPayload("Idempotency-Key: must not be empty");
  if (CONTROL_CHARACTER.test(key))
    throw invalidPayload("Idempotency-Key: must not contain control characters");
  return key;
}

/**
 * The app's CSV upload writes each row's street, city, state and ZIP as one line (addressOf): a row
 * whose street cell was empty names only its town or ZIP, and has no home to mail. It is skipped as
 * having no address (`skipped_no_address`), not sent to the geocoder, which would at best place it on
 * its ZIP's centre and stage a card with no street, or report it not found on the map, sending the
 * contractor to check a house number the row never had. The developer API's row is one line of the
 * caller's making, and its contract names only a missing address as none: a line naming a town and
 * no street is geocoded like any address there (docs/app.md, Past jobs).
 */
function withoutStreetlessAddresses(
  rows: readonly PreparedRow[],
  origin: ImportOrigin,
): { located: PreparedRow[]; streetless: Map<number, string> } {
  const streetless = new Map<number, string>();
  if (origin !== "app_upload") return { located: [...rows], streetless };
  const located = rows.map((row) => {
    if (row.address === undefined || !namesNoStreet(row.address)) return row;
    streetless.set(row.index, row.address);
    return { ...row, address: undefined };
  });
  return { located, streetless };
}

/** The rows of a batch in one statement: one JSON parameter, however many rows (at most 500). */
async function insertRows(tx: Queryable, orgId: string, importId: string, rows: readonly StagedRowValues[]) {
  const json = JSON.stringify(
    rows.map((row) => ({
      row_index: row.rowIndex,
      address: row.address,
      normalized_address: row.normalizedAddress,
      latitude: row.latitude,
      longitude: row.longitude,
      geo_precision: row.geoPrecision,
      external_id: row.externalId,
      customer_name: row.customerName,
      completed_at: row.completedAt,
      job_type: row.jobType,
    })),
  );
  await tx.execute(sql`
    INSERT INTO import_rows (org_id, import_id, row_index, address, normalized_address, latitude, longitude,
      geo_precision, external_id, customer_name, completed_at, job_type)
    SELECT ${orgId}::uuid, ${importId}::uuid, r.row_index, r.address, r.normalized_address, r.latitude,
      r.longitude, r.geo_precision, r.external_id, r.customer_name, r.completed_at, r.job_type
    FROM jsonb_to_recordset(${json}::jsonb) AS r(row_index integer, address text, normalized_address text,
      latitude double precision, longitude double precision, geo_precision text, external_id text,
      customer_name text, completed_at date, job_type text)`);
}

/**
 * POST /api/v1/import/jobs: validate, claim the key (a finished key is replayed), check the kill
 * switch and the daily quota, geocode every address, then stage the batch
 * and its rows in one transaction that re-checks the daily quota under a per-org lock. Any
 * failure before the commit deletes the claim: nothing is staged and no slot is spent.
 */
export function createImportService(deps: ImportDeps) {
  const { db, clock, logger, geocoder, killSwitch } = deps;
  // The keys whose first request runs in this process. The database claim decides between processes;
  // this answers a retry at once while the first stages its batch, where the retry's reads would wait
  // for that transaction (PGlite has one connection) and then replay the batch as if it were done.
  const running = new Set<string>();
  const runningKey = (orgId: string, key: string) => JSON.stringify([orgId, key]);
  const assertNotRunning = (orgId: string, key: string) => {
    if (running.has(runningKey(orgId, key))) throw importInProgress();
  };

  async function geocodeRows(rows: PreparedRow[], origin: ImportOrigin): Promise<GeocodedBatch> {
    const { located, streetless } = withoutStreetlessAddresses(rows, origin);
    const addresses = located.flatMap((row) => (row.address === undefined ? [] : [row.address]));
    let batch: GeocodedBatch;
    try {
      batch = assembleBatch(located, addresses.length > 0 ? await geocoder.geocodeMany(addresses) : []);
    } catch (error) {
      logger.warn({ err: error, provider: geocoder.provider }, "import geocoding failed");
      throw toGeocodingAppError(error);
    }
    if (streetless.size === 0) return batch;
    // Skipped as having no address, the row keeps what it did name, so its batch's page shows which row it was.
    const skipped = batch.skipped.map((row) => {
      const written = streetless.get(row.row_index);
      return written === undefined ? row : { ...row, address: written };
    });
    return { ...batch, skipped };
  }

  async function stage(
    input: {
      orgId: string;
      importId: string;
      source: ImportRequest["source"];
      origin: ImportOrigin;
      key: string | undefined;
    },
    batch: GeocodedBatch,
  ): Promise<ImportResult> {
    const { orgId, importId, source, origin, key } = input;
    return db.transaction(async (tx) => {
      await lockOrgQuota(tx, orgId);
      const now = clock.now();
      if ((await stagedToday(tx, orgId, now)) >= IMPORT_LIMITS.batchesPerDay) throw dailyQuotaReached(now);
      const counts = {
        staged: batch.staged.length,
        skippedNoAddress: skippedFor(batch, "no_address"),
        skippedGeocodeFailed: skippedFor(batch, "not_found"),
      };
      const skippedRows = JSON.stringify(batch.skipped);
      if (key === undefined) {
        const at = now.toISOString();
        await tx.execute(sql`
          INSERT INTO imports (org_id, id, source, origin, status, staged, skipped_no_address,
            skipped_geocode_failed, skipped_rows, claimed_at, created_at, staged_at)
          VALUES (${orgId}::uuid, ${importId}::uuid, ${source}, ${origin}, 'staged', ${counts.staged},
            ${counts.skippedNoAddress}, ${counts.skippedGeocodeFailed}, ${skippedRows}::jsonb, ${at}::timestamptz,
            ${at}::timestamptz, ${at}::timestamptz)`);
      } else {
        const finalized = await queryOne<{ id: string }>(
          tx,
          sql`UPDATE imports
              SET status = 'staged', origin = ${origin}, staged = ${counts.staged}, skipped_no_address = ${counts.skippedNoAddress},
                  skipped_geocode_failed = ${counts.skippedGeocodeFailed}, skipped_rows = ${skippedRows}::jsonb,
                  staged_at = ${now.toISOString()}::timestamptz
              WHERE org_id = ${orgId} AND id = ${importId} AND status = 'processing'
              RETURNING id`,
        );
        // Our claim was taken over as abandoned (this request outlived the bound): the other owns the key.
        if (!finalized) throw importInProgress();
      }
      if (batch.staged.length > 0) {
        await insertRows(tx, orgId, importId, batch.staged);
      }
      return {
        import_id: importId,
        staged: counts.staged,
        skipped_no_address: counts.skippedNoAddress,
        skipped_geocode_failed: counts.skippedGeocodeFailed,
      };
    });
  }

  /**
   * Rule 3: a key already seen returns its batch with 200, whatever the body says now (a retry
   * whose body a client rebuilt differently, even invalidly, still gets the original answer).
   */
  async function replayOf(
    orgId: string,
    idempotencyKey: string | undefined,
  ): Promise<ImportOutcome | undefined> {
    const key = checkKey(idempotencyKey);
    if (key === undefined) return undefined;
    assertNotRunning(orgId, key);
    const staged = await findStagedBatch(db, orgId, key);
    return staged && replayed(staged);
  }

  /**
   * `origin` says where the batch came from (shown in Past jobs): the developer API, or the app's
   * CSV upload, whose rows may carry a job type.
   */
  async function importJobs(
    orgId: string,
    idempotencyKey: string | undefined,
    body: { source: ImportRequest["source"]; rows: readonly StagingRow[] },
    origin: ImportOrigin = "api",
  ): Promise<ImportOutcome> {
    const key = checkKey(idempotencyKey);
    const rows = prepareRows(body.rows);

    let importId: string = randomUUID();
    if (key !== undefined) {
      assertNotRunning(orgId, key);
      const claim = await claimKey(db, { orgId, key, source: body.source, now: clock.now() });
      if (claim.kind === "in_progress") throw importInProgress();
      if (claim.kind === "staged") return replayed(claim);
      importId = claim.importId;
      running.add(runningKey(orgId, key));
    }

    try {
      // After the replay lookup: a finished batch is answered even while automations are paused.
      await killSwitch.assertRunning();
      // Checked before geocoding too, so a full day costs no geocoder calls; the staging
      // transaction checks again under the lock.
      const now = clock.now();
      if ((await stagedToday(db, orgId, now)) >= IMPORT_LIMITS.batchesPerDay) throw dailyQuotaReached(now);
      const batch = await geocodeRows(rows, origin);
      const result = await stage({ orgId, importId, source: body.source, origin, key }, batch);
      return { status: 201, result };
    } catch (error) {
      if (key !== undefined) {
        await releaseClaim(db, orgId, importId).catch((releaseError: unknown) =>
          logger.error(
            { err: releaseError, importId },
            `could not release an import claim; it is taken over after ${ABANDONED_CLAIM_SECONDS} s`,
          ),
        );
      }
      throw error;
    } finally {
      if (key !== undefined) running.delete(runningKey(orgId, key));
    }
  }

  return { importJobs, replayOf };
}

export type ImportService = ReturnType<typeof createImportService>;
