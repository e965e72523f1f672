/**
 * A neighbour campaign: the event wrote the campaign and one `neighbour_fanout` job (the record's
 * home already located in the reference addresses, or the event answered `no_address`); the job
 * chooses the homes and queues one ordinary mail piece per home, each with its own landing token,
 * carried on by the piece pipeline (process_piece). The homes are the `count` nearest reference
 * addresses within `radius_m`, never the job's own home, a home the org served (a customer, an
 * imported past job, another event's home), or a home the org mailed within the frequency window. What was chosen and excluded, and why nothing was, is kept
 * in `neighbour_campaigns`.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { normalizeAddress } from "../domain/address.ts";
import { keysOfSameHome, sameHome, streetOfKey } from "../domain/same-home.ts";
import { handleJob, type RegisteredJob } from "../jobs/job-kind.ts";
import { type NeighbourFanoutPayload, neighbourFanoutJob, processPieceJob } from "../jobs/kinds.ts";
import { enqueueJobRows, newJobRow } from "../jobs/queue.ts";
import { countsInFrequencyWindow } from "../mail-safety/piece-checks.ts";
import { frequencyCapDays } from "../mail-safety/settings.ts";
import { newLandingToken } from "../pieces/campaigns.ts";
import { insertNeighbourPieces } from "../pieces/piece-updates.ts";
import type { NeighboursAudience } from "./audience.ts";
import {
  findReferenceHome,
  type LocatedHome,
  mailingLineOf,
  type NearbyHome,
  nearestHomes,
  ownHomeKeys,
} from "./reference-addresses.ts";

/** The record's home in the reference addresses; a home not there cannot be located. */
export async function locateRecordHome(db: Queryable, addressLine: string): Promise<LocatedHome | undefined> {
  return findReferenceHome(db, normalizeAddress(addressLine));
}

const DAY_MS = 86_400_000;
/** The most candidates one choice reads, however many are excluded. */
const MAX_CANDIDATES = 5000;

export interface NeighbourChoice {
  chosen: NearbyHome[];
  /**
   * Homes within the radius that were passed over, by reason (among those nearer than the last
   * chosen): here, homes the organization served (customers, imported past jobs, events' homes).
   */
  excludedCustomers: number;
  /** Homes on the org's do-not-mail list (opted out from a landing page). */
  excludedOptedOut: number;
  excludedRecentlyMailed: number;
  /** Why no home was chosen, in words; null when some were. */
  reason: string | null;
}

/** Candidates matching one of `keys` (every spelling of the candidates' homes) by the same-home rule. */
function matchedCandidates(candidates: NearbyHome[], foundKeys: string[]): Set<string> {
  // Same home needs the same street: each candidate is compared with the keys on its street only
  // (every key against every candidate was quadratic: 5 000 × 5 000 parses on a dry run).
  const byStreet = new Map<string, string[]>();
  for (const key of foundKeys)
    byStreet.set(streetOfKey(key), [...(byStreet.get(streetOfKey(key)) ?? []), key]);
  const matched = new Set<string>();
  for (const candidate of candidates) {
    const onStreet = byStreet.get(streetOfKey(candidate.normalizedAddress)) ?? [];
    if (onStreet.some((key) => sameHome(key, candidate.normalizedAddress)))
      matched.add(candidate.normalizedAddress);
  }
  return matched;
}

/**
 * Candidates the organization served (issue 39): registered customers, homes of its imported past
 * jobs, and homes its events named (the job's own home of a neighbour campaign, recorded or still
 * queued, and the home a home-audience card of an event went to). Those are whom reactivation
 * mailings are for; a neighbour card ("we just finished a project for one of your neighbors")
 * never goes to them.
 */
async function servedAmong(db: Queryable, orgId: string, candidates: NearbyHome[], keys: string[]) {
  const org = sql`${orgId}::uuid`;
  const wanted = sql`ANY(${sql.param(keys)}::text[])`;
  const rows = await queryRows<{ normalized_address: string }>(
    db,
    sql`SELECT normalized_address FROM customers WHERE org_id = ${org} AND normalized_address = ${wanted}
        UNION
        SELECT r.normalized_address FROM import_rows r
          JOIN imports i ON i.org_id = r.org_id AND i.id = r.import_id AND i.status = 'staged'
          WHERE r.org_id = ${org} AND r.normalized_address = ${wanted}
        UNION
        SELECT home_key FROM neighbour_campaigns WHERE org_id = ${org} AND home_key = ${wanted}
        UNION
        SELECT payload->>'home_key' FROM jobs
          WHERE org_id = ${org} AND kind = ${neighbourFanoutJob.name} AND status IN ('pending', 'running')
            AND payload->>'home_key' = ${wanted}
        UNION
        SELECT p.normalized_address FROM mail_pieces p
          JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id AND c.origin IN ('event', 'trigger')
          WHERE p.org_id = ${org} AND p.normalized_address = ${wanted}
            AND NOT EXISTS (SELECT 1 FROM neighbour_campaigns n WHERE n.org_id = c.org_id AND n.campaign_id = c.id)`,
  );
  return matchedCandidates(
    candidates,
    rows.map((row) => row.normalized_address),
  );
}

async function optedOutAmong(db: Queryable, orgId: string, candidates: NearbyHome[], keys: string[]) {
  const rows = await queryRows<{ normalized_address: string }>(
    db,
    sql`SELECT normalized_address FROM do_not_mail
        WHERE org_id = ${orgId}::uuid AND normalized_address = ANY(${sql.param(keys)}::text[])`,
  );
  return matchedCandidates(
    candidates,
    rows.map((row) => row.normalized_address),
  );
}

async function recentlyMailedAmong(
  db: Queryable,
  orgId: string,
  candidates: NearbyHome[],
  keys: string[],
  since: Date,
) {
  const rows = await queryRows<{ normalized_address: string }>(
    db,
    // The pipeline's own rule: a home left out here is one whose card it would skip.
    sql`SELECT DISTINCT normalized_address FROM mail_pieces
        WHERE org_id = ${orgId} AND normalized_address = ANY(${sql.param(keys)}::text[])
          AND ${countsInFrequencyWindow(since)}`,
  );
  return matchedCandidates(
    candidates,
    rows.map((row) => row.normalized_address),
  );
}

/** The homes to mail around a point, after the exclusions, nearest first. */
export async function chooseNeighbours(
  db: Queryable,
  input: {
    orgId: string;
    homeKey: string;
    latitude: number;
    longitude: number;
    audience: Pick<NeighboursAudience, "count" | "radius_m">;
    now: Date;
  },
): Promise<NeighbourChoice> {
  const { count, radius_m: radiusM } = input.audience;
  // The org's per-home frequency cap is the one window (0: off, so no home counts as recent).
  const windowDays = await frequencyCapDays(db, input.orgId);
  const since = new Date(input.now.getTime() - windowDays * DAY_MS);
  const excludeKeys = ownHomeKeys(input.homeKey);
  let limit = Math.min(count * 2 + 20, MAX_CANDIDATES);
  for (;;) {
    const candidates = await nearestHomes(db, {
      latitude: input.latitude,
      longitude: input.longitude,
      count: limit,
      radiusM,
      excludeKeys,
    });
    const keys = [...new Set(candidates.flatMap((candidate) => keysOfSameHome(candidate.normalizedAddress)))];
    const served = await servedAmong(db, input.orgId, candidates, keys);
    const optedOut = await optedOutAmong(db, input.orgId, candidates, keys);
    const recent =
      windowDays > 0
        ? await recentlyMailedAmong(db, input.orgId, candidates, keys, since)
        : new Set<string>();
    const chosen: NearbyHome[] = [];
    let excludedCustomers = 0;
    let excludedOptedOut = 0;
    let excludedRecentlyMailed = 0;
    for (const candidate of candidates) {
      if (chosen.length === count) break;
      if (served.has(candidate.normalizedAddress)) excludedCustomers++;
      else if (optedOut.has(candidate.normalizedAddress)) excludedOptedOut++;
      else if (recent.has(candidate.normalizedAddress)) excludedRecentlyMailed++;
      else chosen.push(candidate);
    }
    const exhausted = candidates.length < limit || limit >= MAX_CANDIDATES;
    if (chosen.length === count || exhausted) {
      return {
        chosen,
        excludedCustomers,
        excludedOptedOut,
        excludedRecentlyMailed,
        reason: noneReason(chosen, candidates, radiusM, windowDays),
      };
    }
    limit = Math.min(limit * 4, MAX_CANDIDATES);
  }
}

/** The radius as the app's readers measure it, with the API's meters beside: "984 ft (300 m)". */
const radiusWords = (meters: number) =>
  `${Math.round(meters * 3.28084).toLocaleString("en-US")} ft (${meters} m)`;

function noneReason(
  chosen: NearbyHome[],
  candidates: NearbyHome[],
  radiusM: number,
  windowDays: number,
): string | null {
  if (chosen.length > 0) return null;
  if (candidates.length === 0) return `no reference addresses within ${radiusWords(radiusM)} of the job`;
  return (
    `all ${candidates.length} homes within ${radiusWords(radiusM)} are customers or served homes of the organization, opted out, or ` +
    `were mailed in the last ${windowDays} days`
  );
}

export interface FanoutDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
}

/** The neighbour card knows the job by its street and city only. */
const pieceProperties = (payload: NeighbourFanoutPayload) => ({
  job_street: payload.job_street,
  job_city: payload.job_city,
});

/**
 * Records the campaign's choice and queues its pieces and their pipeline jobs, in one
 * transaction; a retried job finds the record written and queues nothing twice.
 */
export async function fanOutNeighbours(deps: FanoutDeps, payload: NeighbourFanoutPayload): Promise<number> {
  const now = deps.clock.now();
  const choice = await chooseNeighbours(deps.db, {
    orgId: payload.org_id,
    homeKey: payload.home_key,
    latitude: payload.latitude,
    longitude: payload.longitude,
    audience: payload,
    now,
  });
  return deps.db.transaction(async (tx) => {
    const recorded = await queryRows<{ campaign_id: string }>(
      tx,
      sql`INSERT INTO neighbour_campaigns (org_id, campaign_id, automation_id, job_street, job_city, latitude,
            longitude, count, radius_m, homes_mailed, excluded_customers, excluded_opted_out, excluded_recently_mailed,
            reason, created_at, home_key)
          VALUES (${payload.org_id}::uuid, ${payload.campaign_id}::uuid, ${payload.automation_id}::uuid,
            ${payload.job_street}, ${payload.job_city}, ${payload.latitude}::float8, ${payload.longitude}::float8,
            ${payload.count}::int, ${payload.radius_m}::int, ${choice.chosen.length}::int,
            ${choice.excludedCustomers}::int, ${choice.excludedOptedOut}::int, ${choice.excludedRecentlyMailed}::int,
            ${choice.reason},
            ${payload.queued_at}::timestamptz, ${payload.home_key})
          ON CONFLICT DO NOTHING
          RETURNING campaign_id`,
    );
    if (recorded.length === 0 || choice.chosen.length === 0) return 0;
    const pieces = choice.chosen.map((home) => ({
      org_id: payload.org_id,
      id: randomUUID(),
      campaign_id: payload.campaign_id,
      address: mailingLineOf(home),
      street: home.street,
      city: home.city || null,
      state: home.state || null,
      zip: home.zip || null,
      normalized_address: home.normalizedAddress,
      latitude: home.latitude,
      longitude: home.longitude,
      token: newLandingToken(),
      properties: pieceProperties(payload),
      created_at: now.toISOString(),
    }));
    const jobs = pieces.map((piece) =>
      newJobRow(processPieceJob, { org_id: piece.org_id, piece_id: piece.id }, { orgId: piece.org_id, now }),
    );
    await insertNeighbourPieces(tx, pieces);
    await enqueueJobRows(tx, jobs);
    return pieces.length;
  });
}

export function neighbourFanoutHandler(deps: FanoutDeps): RegisteredJob {
  return handleJob(neighbourFanoutJob, async (payload, context) => {
    const pieces = await fanOutNeighbours(deps, payload);
    deps.logger.info(
      { jobId: context.jobId, orgId: payload.org_id, campaignId: payload.campaign_id, pieces },
      "neighbour campaign queued its pieces",
    );
  });
}

/** The fan-out job an event writes with a neighbour campaign (job id = campaign id, as for a home piece). */
export function neighbourFanoutJobRow(
  input: {
    orgId: string;
    campaignId: string;
    automationId: string;
    home: LocatedHome;
    jobStreet: string;
    jobCity: string;
    audience: NeighboursAudience;
  },
  now: Date,
) {
  const payload: NeighbourFanoutPayload = {
    org_id: input.orgId,
    campaign_id: input.campaignId,
    automation_id: input.automationId,
    home_key: input.home.normalizedAddress,
    latitude: input.home.latitude,
    longitude: input.home.longitude,
    job_street: input.jobStreet,
    job_city: input.jobCity,
    count: input.audience.count,
    radius_m: input.audience.radius_m,
    queued_at: now.toISOString(),
  };
  return { ...newJobRow(neighbourFanoutJob, payload, { orgId: input.orgId, now }), id: input.campaignId };
}
