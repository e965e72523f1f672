import { setImmediate as nextTurn } from "node:timers/promises";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { isPrintableAsWritten, parseUsAddress } from "../domain/address.ts";
import {
  checkAddressOffline,
  type VerificationLevel,
  writtenAddressOf,
} from "../domain/deliverable-address.ts";
import { sameHome, streetOfKey } from "../domain/same-home.ts";
import { notFound } from "../errors.ts";
import type { AddressVerifier } from "../geo/address-verifier.ts";
import { getOrgMailSafety, verificationLevelOrDefault } from "../mail-safety/settings.ts";

/** The imported fields a reactivation filter can match (text contains, any case). */
export const MATCHABLE_FIELDS = ["address", "customer_name", "external_id", "job_type"] as const;
export type MatchableField = (typeof MATCHABLE_FIELDS)[number];

export interface AudienceFilter {
  /** Last job strictly before this day (YYYY-MM-DD); rows without a date are left out. */
  completed_before?: string;
  /** Last job on or after this day. */
  completed_after?: string;
  /**
   * The row's job type equals one of these (any case, spaces around ignored); rows without a job
   * type are left out. Empty or absent: no job type condition.
   */
  job_types?: string[];
  /** Every entry must match: the field contains the text (any case). */
  match?: { field: MatchableField; contains: string }[];
}

export interface AudienceRow {
  import_id: string;
  row_index: number;
  address: string;
  normalized_address: string;
  latitude: number | null;
  longitude: number | null;
  precision: string | null;
  external_id: string | null;
  customer_name: string | null;
  completed_at: string | null;
  job_type: string | null;
}

export const EXCLUSION_REASONS = [
  "customer",
  "opted_out",
  "no_mailable_address",
  "undeliverable",
  "duplicate",
] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export interface Audience {
  /** Rows of the batches that pass the filter. */
  matched: number;
  /** The rows that would be mailed, in batch and row order. */
  included: AudienceRow[];
  excluded: { row: AudienceRow; reason: ExclusionReason; detail: string }[];
}

export const EXCLUSION_WORDS: Record<ExclusionReason, string> = {
  customer: "a registered customer on your Customers list, never mailed",
  opted_out: "on the do-not-mail list: the home opted out from a landing page",
  no_mailable_address: "no street number with a ZIP, or with a city and state",
  undeliverable: "the address check before print would stop the card",
  duplicate: "the same home is already in this mailing",
};

/** A card needs a street with its number and a ZIP or a city and state, as the print provider does. */
export const isMailableAddress = (address: string): boolean => isPrintableAsWritten(parseUsAddress(address));

/** The org's staged batches among these, or 404 (another organization's batch answers like a missing one). */
async function assertBatches(db: Queryable, orgId: string, importIds: readonly string[]) {
  const known = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM imports WHERE org_id = ${orgId}::uuid AND status = 'staged'
        AND id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(importIds)}::jsonb))::uuid)`,
  );
  if (known.length !== new Set(importIds).size) throw notFound("import not found");
}

/** A job type as the filter compares it: trimmed, in lower case. */
const jobTypeKey = (value: string) => value.trim().toLowerCase();

async function loadRows(db: Queryable, orgId: string, importIds: readonly string[], filter: AudienceFilter) {
  const ids = JSON.stringify(importIds);
  await assertBatches(db, orgId, importIds);
  const conditions = [
    sql`org_id = ${orgId}::uuid`,
    sql`import_id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::uuid)`,
  ];
  if (filter.completed_before) conditions.push(sql`completed_at < ${filter.completed_before}::date`);
  if (filter.completed_after) conditions.push(sql`completed_at >= ${filter.completed_after}::date`);
  if (filter.job_types && filter.job_types.length > 0) {
    const wanted = JSON.stringify([...new Set(filter.job_types.map(jobTypeKey))]);
    conditions.push(sql`lower(btrim(job_type)) IN (SELECT jsonb_array_elements_text(${wanted}::jsonb))`);
  }
  for (const { field, contains } of filter.match ?? []) {
    const pattern = `%${contains.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(sql`${sql.identifier(field)} ILIKE ${pattern}`);
  }
  const rows = await queryRows<Omit<AudienceRow, "completed_at"> & { completed_at: string | Date | null }>(
    db,
    sql`SELECT import_id, row_index, address, normalized_address, latitude, longitude, geo_precision AS precision,
               external_id, customer_name, to_char(completed_at, 'YYYY-MM-DD') AS completed_at, job_type
        FROM import_rows WHERE ${sql.join(conditions, sql` AND `)}
        ORDER BY import_id, row_index`,
  );
  return rows as AudienceRow[];
}

export interface JobTypeCount {
  /** One spelling of it as imported (the first in code-point order when rows differ in case). */
  job_type: string;
  rows: number;
}

/** At most this many job types are offered, the most common first. */
export const JOB_TYPES_LISTED = 200;

/**
 * The job types in these batches, with their row counts, grouped as the filter compares them
 * (any case, spaces around ignored); and how many rows have none.
 */
export async function jobTypesOf(
  db: Queryable,
  orgId: string,
  importIds: readonly string[],
): Promise<{ job_types: JobTypeCount[]; without_job_type: number }> {
  await assertBatches(db, orgId, importIds);
  const rows = await queryRows<{ job_type: string | null; rows: number | string }>(
    db,
    sql`SELECT lower(btrim(job_type)) COLLATE "C" AS key, min(btrim(job_type) COLLATE "C") AS job_type,
               count(*) AS rows
        FROM import_rows
        WHERE org_id = ${orgId}::uuid
          AND import_id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(importIds)}::jsonb))::uuid)
        GROUP BY 1 ORDER BY count(*) DESC, 1`,
  );
  let withoutJobType = 0;
  const jobTypes: JobTypeCount[] = [];
  for (const row of rows) {
    if (row.job_type === null || row.job_type === "") withoutJobType += Number(row.rows);
    else if (jobTypes.length < JOB_TYPES_LISTED)
      jobTypes.push({ job_type: row.job_type, rows: Number(row.rows) });
  }
  return { job_types: jobTypes, without_job_type: withoutJobType };
}

/** Address keys by their street (number and unit included): only keys on one street can be one home. */
type KeysByStreet = Map<string, string[]>;

function addKey(byStreet: KeysByStreet, key: string): void {
  const street = streetOfKey(key);
  const keys = byStreet.get(street);
  if (keys) keys.push(key);
  else byStreet.set(street, [key]);
}

/** The org's entries (customers or do-not-mail) on the rows' streets, to be matched home by home. */
async function keysOnStreets(
  db: Queryable,
  table: "customers" | "do_not_mail",
  orgId: string,
  streets: string[],
): Promise<KeysByStreet> {
  const byStreet: KeysByStreet = new Map();
  if (streets.length === 0) return byStreet;
  const rows = await queryRows<{ normalized_address: string }>(
    db,
    sql`SELECT normalized_address FROM ${sql.identifier(table)}
        WHERE org_id = ${orgId}::uuid
          AND split_part(normalized_address, ', ', 1) IN (SELECT jsonb_array_elements_text(${JSON.stringify(streets)}::jsonb))`,
  );
  for (const row of rows) addKey(byStreet, row.normalized_address);
  return byStreet;
}

/** One of the keys is this home (`sameHome`: written with or without its city or ZIP). */
const listsHome = (byStreet: KeysByStreet, key: string) =>
  (byStreet.get(streetOfKey(key)) ?? []).some((listed) => sameHome(listed, key));

/**
 * The level the offline check before print reads for this organization's cards; undefined when
 * the service verifies addresses with Lob, which is asked only at print (each answer is paid).
 */
async function offlineCheckLevel(
  db: Queryable,
  orgId: string,
  verifier: AddressVerifier["name"],
): Promise<VerificationLevel | undefined> {
  if (verifier !== "offline") return undefined;
  return verificationLevelOrDefault((await getOrgMailSafety(db, orgId)).address_verification);
}

/**
 * Why the offline check before print would stop the row's card, if it would. A card carries the
 * row's address line alone, so the check reads the line as the pipeline reads the card's.
 */
function undeliverableProblem(address: string, level: VerificationLevel | undefined): string | undefined {
  if (!level) return undefined;
  const check = checkAddressOffline(writtenAddressOf(address, {}), level);
  return check.deliverable ? undefined : check.reason;
}

interface HomesKnown {
  customers: KeysByStreet;
  optedOut: KeysByStreet;
  /** The homes already in the mailing, by the keys of the rows included. */
  included: KeysByStreet;
  /** The level of the offline check before print; undefined: Lob decides at print. */
  checkLevel: VerificationLevel | undefined;
}

type Exclusion = Omit<Audience["excluded"][number], "row">;

const exclusion = (reason: ExclusionReason, problem?: string): Exclusion => ({
  reason,
  detail: problem ? `${EXCLUSION_WORDS[reason]}: ${problem}` : EXCLUSION_WORDS[reason],
});

/** Why the row gets no card; undefined when it gets one. */
function exclusionOf(row: AudienceRow, known: HomesKnown): Exclusion | undefined {
  const key = row.normalized_address;
  if (listsHome(known.optedOut, key)) return exclusion("opted_out");
  if (listsHome(known.customers, key)) return exclusion("customer");
  if (!isMailableAddress(row.address)) return exclusion("no_mailable_address");
  const problem = undeliverableProblem(row.address, known.checkLevel);
  if (problem) return exclusion("undeliverable", problem);
  if (listsHome(known.included, key)) return exclusion("duplicate");
  return undefined;
}

const ROWS_PER_SLICE = 50;

/**
 * Who a reactivation mailing from these batches would reach: the filtered rows, less registered
 * customers and opted-out homes (matched as the pipeline's suppression matches them), rows whose
 * address a card cannot carry or the check before print would stop, and a second row for a home
 * already in (the same home, however its rows write it).
 */
export async function audienceOf(
  db: Queryable,
  orgId: string,
  importIds: readonly string[],
  filter: AudienceFilter,
  verifier: AddressVerifier["name"],
): Promise<Audience> {
  const rows = await loadRows(db, orgId, importIds, filter);
  const streets = [...new Set(rows.map((row) => streetOfKey(row.normalized_address)))];
  const known: HomesKnown = {
    customers: await keysOnStreets(db, "customers", orgId, streets),
    optedOut: await keysOnStreets(db, "do_not_mail", orgId, streets),
    included: new Map(),
    checkLevel: await offlineCheckLevel(db, orgId, verifier),
  };
  const audience: Audience = { matched: rows.length, included: [], excluded: [] };
  for (const [index, row] of rows.entries()) {
    // Parsing and checking an address is ~0.2 ms and a mailing may read 25 000 rows: other requests go
    // between slices instead of waiting seconds behind one preview.
    if (index > 0 && index % ROWS_PER_SLICE === 0) await nextTurn();
    const excluded = exclusionOf(row, known);
    if (excluded) audience.excluded.push({ row, ...excluded });
    else {
      addKey(known.included, row.normalized_address);
      audience.included.push(row);
    }
  }
  return audience;
}
