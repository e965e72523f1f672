import { randomUUID } from "node:crypto";
import { type CustomerSource, recordCustomer } from "../customers/customers.ts";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { namesAPlace, normalizeAddress } from "../domain/address.ts";
import { keysOfSameHome } from "../domain/same-home.ts";
import { markedInApp } from "../leads/won-job.ts";
import { suppressWaitingCardsOfHomes } from "../pieces/customer-homes.ts";
import { becameCustomer, stopFollowUps, wonDeal } from "../pieces/follow-ups.ts";
import type { AttributionDeps } from "./deps.ts";
import { recordHoldoutConversions } from "./holdout-conversions.ts";
import {
  type AttributionType,
  attributionTypeSql,
  locateForMatching,
  type MatchConfidence,
  type MatchMethod,
  matchMailedPiece,
} from "./matching.ts";
import {
  DEAL_AMOUNT_ALIASES,
  DEAL_DATE_ALIASES,
  DEAL_ID_ALIASES,
  DEAL_NAME_ALIASES,
  DEAL_STAGE_ALIASES,
  flatThenProperties,
  noAddressFound,
  type Payload,
  readAddressLine,
  readDate,
  readDealAmount,
  readText,
} from "./payload-fields.ts";
import {
  type AttributionWindow,
  attributionWindow,
  matchingReference,
  type ReferenceDate,
  referenceNow,
  utcDay,
} from "./window.ts";

/** A won deal as read from a tolerant CRM payload. */
export interface ConversionFields {
  address: string;
  dealId?: string | undefined;
  /** Decimal text, stored in a numeric column without float rounding. */
  dealAmount?: string | undefined;
  dealDate?: ReferenceDate | undefined;
  campaignId?: string | undefined;
  dealStage?: string | undefined;
  dealName?: string | undefined;
  contactFirstName?: string | undefined;
  contactLastName?: string | undefined;
  contactName?: string | undefined;
  contactEmail?: string | undefined;
  /**
   * Set by the service itself, never read from a payload: a key no API request can produce (a lead
   * marked won in the app), so a CRM's deal id cannot replay it.
   */
  idempotencyKey?: string | undefined;
  /** Set by the service itself: the lead a member marked won in the app, whose job this deal is. */
  wonLeadId?: string | undefined;
}

export type ConversionResult =
  | { matched: false }
  | {
      matched: true;
      attribution_type: AttributionType;
      campaign_id: string;
      match_method: MatchMethod;
      match_confidence: MatchConfidence;
      conversion_id: string;
    };

/** Reads the conversion fields, flat or under `properties`, with the trigger's deal aliases. */
export function readConversionFields(payload: Payload): ConversionFields {
  const address = readAddressLine(payload);
  if (!address) throw noAddressFound();
  const text = (name: string) => readText(payload, flatThenProperties(name));
  return {
    address,
    dealId: readText(payload, DEAL_ID_ALIASES),
    dealAmount: readDealAmount(payload, DEAL_AMOUNT_ALIASES),
    dealDate: readDate(payload, DEAL_DATE_ALIASES),
    campaignId: text("campaign_id"),
    dealStage: readText(payload, DEAL_STAGE_ALIASES),
    dealName: readText(payload, DEAL_NAME_ALIASES),
    contactFirstName: text("contact_first_name"),
    contactLastName: text("contact_last_name"),
    contactName: text("contact_name"),
    contactEmail: text("contact_email"),
  };
}

interface ConversionRow {
  id: string;
  campaign_id: string;
  match_method: MatchMethod;
  match_confidence: MatchConfidence;
  attribution_type: AttributionType;
}

const toResult = (row: ConversionRow): ConversionResult => ({
  matched: true,
  attribution_type: row.attribution_type,
  campaign_id: row.campaign_id,
  match_method: row.match_method,
  match_confidence: row.match_confidence,
  conversion_id: row.id,
});

/** Idempotency: the deal id, else the normalized address plus the close day. */
export function conversionKey(fields: ConversionFields, normalizedAddress: string, reference: ReferenceDate) {
  if (fields.idempotencyKey) return fields.idempotencyKey;
  return fields.dealId ? `deal:${fields.dealId}` : `address:${normalizedAddress}|${utcDay(reference)}`;
}

/**
 * Records a won deal: the address always becomes a customer; a deal that matches a mailed piece
 * upserts one conversion per idempotency key (a replay keeps the first attribution and updates
 * the amount, stage and contact fields it sends); a deal at a home an automation held out is kept
 * for that automation's experiment only (attribution/holdout-conversions.ts); an unmatched deal
 * stores nothing else.
 */
export async function recordConversion(
  deps: AttributionDeps,
  orgId: string,
  fields: ConversionFields,
  customerSource: CustomerSource = "conversion",
): Promise<ConversionResult> {
  const normalizedAddress = normalizeAddress(fields.address);
  if (!namesAPlace(normalizedAddress)) throw noAddressFound();
  const now = deps.clock.now();
  // A deal sent without a close date is dated when it is received (stored, not left empty).
  const reference = fields.dealDate ?? referenceNow(now);
  const key = conversionKey(fields, normalizedAddress, reference);
  const window = attributionWindow(matchingReference(reference, now));
  // Independent writes, each on its own connection: the customer row and the stop of the home's
  // follow-ups (a won deal; it becomes a customer too) go in while the deal is matched.
  const [, , result] = await Promise.all([
    recordCustomer(deps.db, orgId, fields.address, normalizedAddress, customerSource),
    stopFollowUps(
      deps.db,
      { orgId, addressKeys: [normalizedAddress] },
      [wonDeal(now), becameCustomer(now)],
      now,
    ),
    attributeDeal(deps, orgId, fields, { normalizedAddress, reference, key, window }),
    recordHoldoutConversions(deps.db, orgId, {
      key,
      normalizedAddress,
      dealAmount: fields.dealAmount,
      reference,
      window,
    }),
  ]);
  // After the follow-ups' stop, not beside it: both may write a sequence's rows.
  await suppressWaitingCardsOfHomes(deps.db, orgId, [normalizedAddress], now);
  return result;
}

/** The conversion's attribution: a replay's stored one, a new match upserted, or no match. */
async function attributeDeal(
  deps: AttributionDeps,
  orgId: string,
  fields: ConversionFields,
  deal: { normalizedAddress: string; reference: ReferenceDate; key: string; window: AttributionWindow },
): Promise<ConversionResult> {
  const { normalizedAddress, reference, key, window } = deal;
  const replayed = await updateReplayedConversion(deps.db, orgId, key, fields);
  if (replayed) return toResult(replayed);

  const point = await locateForMatching(deps.geocoder, fields.address, deps.logger);
  const match = await matchMailedPiece(
    deps.db,
    {
      orgId,
      normalizedAddress,
      point,
      campaignId: fields.campaignId,
      window,
    },
    deps.geoRadiusMeters,
  );
  if (!match) return { matched: false };
  if (fields.wonLeadId === undefined) {
    const tookOver = await takeOverAppWin(deps.db, orgId, normalizedAddress, key, fields, reference);
    if (tookOver) return toResult(tookOver);
  }
  const row = await queryOne<ConversionRow>(
    deps.db,
    sql`INSERT INTO conversions (
          org_id, id, idempotency_key, deal_id, address, normalized_address, deal_amount, deal_date,
          deal_stage, deal_name, contact_first_name, contact_last_name, contact_name, contact_email,
          campaign_id, piece_id, match_method, match_confidence, attribution_type, won_lead_id)
        VALUES (
          ${orgId}::uuid, ${randomUUID()}::uuid, ${key}, ${fields.dealId ?? null}, ${fields.address},
          ${normalizedAddress}, ${fields.dealAmount ?? null}::numeric,
          ${reference.at.toISOString()}::timestamptz, ${fields.dealStage ?? null},
          ${fields.dealName ?? null}, ${fields.contactFirstName ?? null}, ${fields.contactLastName ?? null},
          ${fields.contactName ?? null}, ${fields.contactEmail ?? null}, ${match.campaignId}::uuid,
          ${match.pieceId}::uuid, ${match.method}, ${match.confidence},
          ${attributionTypeSql(orgId, match)}, ${fields.wonLeadId ?? null}::uuid)
        ON CONFLICT (org_id, idempotency_key) DO UPDATE SET ${replaySet()}
        RETURNING id, campaign_id, match_method, match_confidence, attribution_type`,
  );
  return toResult(row!);
}

/**
 * A CRM's deal at a home whose lead a member already marked won in the app (the same home, written
 * with or without its city or ZIP, as customer suppression reads it; not the card credited, which
 * may be a neighbour's within a few yards), closing within 30 days of it for an amount within a
 * quarter of it (or either without an amount), is that job: it takes the app's row over (its key,
 * deal id, amount, the day when it sends one, and the fields it sends) rather than
 * adding a second won deal, so Revenue counts the job once, at the CRM's amount. A deal further off
 * in time or money is another job at the home (gutters after the roof) and is counted on its own.
 * The row keeps its lead (won_lead_id) and its attribution. Of two CRM deals racing for one row,
 * the second waits for the first and, finding the row taken, is recorded as a deal of its own.
 */
const SAME_JOB_DAYS = 30;
const SAME_JOB_AMOUNT_RATIO = 1.25;

async function takeOverAppWin(
  db: Queryable,
  orgId: string,
  normalizedAddress: string,
  key: string,
  fields: ConversionFields,
  reference: ReferenceDate,
): Promise<ConversionRow | undefined> {
  const at = sql`${reference.at.toISOString()}::timestamptz`;
  const amount = sql`${fields.dealAmount ?? null}::numeric`;
  return queryOne<ConversionRow>(
    db,
    sql`UPDATE conversions SET
          idempotency_key = ${key}, deal_id = ${fields.dealId ?? null},
          deal_date = ${fields.dealDate ? at : sql`deal_date`}, ${sentFields(fields)}
        WHERE org_id = ${orgId}::uuid AND ${markedInApp()} AND id = (
          SELECT id FROM conversions
          WHERE org_id = ${orgId}::uuid AND normalized_address = ANY(${sql.param(keysOfSameHome(normalizedAddress))}::text[])
            AND ${markedInApp()}
            AND abs(extract(epoch FROM deal_date - ${at})) <= ${SAME_JOB_DAYS * 86_400}
            AND (deal_amount IS NULL OR ${amount} IS NULL
                 OR (least(deal_amount, ${amount}) > 0
                     AND greatest(deal_amount, ${amount}) <= ${SAME_JOB_AMOUNT_RATIO} * least(deal_amount, ${amount})))
          ORDER BY created_at, id LIMIT 1)
        RETURNING id, campaign_id, match_method, match_confidence, attribution_type`,
  );
}

/** Columns a replay may change; a field the replay leaves out keeps its stored value. */
const replaySet = () => sql`
  deal_amount = COALESCE(EXCLUDED.deal_amount, conversions.deal_amount),
  deal_stage = COALESCE(EXCLUDED.deal_stage, conversions.deal_stage),
  deal_name = COALESCE(EXCLUDED.deal_name, conversions.deal_name),
  contact_first_name = COALESCE(EXCLUDED.contact_first_name, conversions.contact_first_name),
  contact_last_name = COALESCE(EXCLUDED.contact_last_name, conversions.contact_last_name),
  contact_name = COALESCE(EXCLUDED.contact_name, conversions.contact_name),
  contact_email = COALESCE(EXCLUDED.contact_email, conversions.contact_email),
  updated_at = now()`;

/** The stored deal's fields a report sends (a field it leaves out keeps its stored value), for an UPDATE's SET. */
const sentFields = (fields: ConversionFields) => sql`
  deal_amount = COALESCE(${fields.dealAmount ?? null}::numeric, deal_amount),
  deal_stage = COALESCE(${fields.dealStage ?? null}, deal_stage),
  deal_name = COALESCE(${fields.dealName ?? null}, deal_name),
  contact_first_name = COALESCE(${fields.contactFirstName ?? null}, contact_first_name),
  contact_last_name = COALESCE(${fields.contactLastName ?? null}, contact_last_name),
  contact_name = COALESCE(${fields.contactName ?? null}, contact_name),
  contact_email = COALESCE(${fields.contactEmail ?? null}, contact_email),
  updated_at = now()`;

async function updateReplayedConversion(
  db: Queryable,
  orgId: string,
  key: string,
  fields: ConversionFields,
): Promise<ConversionRow | undefined> {
  return queryOne<ConversionRow>(
    db,
    sql`UPDATE conversions SET ${sentFields(fields)}
        WHERE org_id = ${orgId}::uuid AND idempotency_key = ${key}
        RETURNING id, campaign_id, match_method, match_confidence, attribution_type`,
  );
}

export interface ConversionView {
  id: string;
  deal_id: string | null;
  address: string;
  normalized_address: string;
  deal_amount: string | null;
  deal_date: string | null;
  deal_stage: string | null;
  deal_name: string | null;
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_name: string | null;
  contact_email: string | null;
  campaign_id: string;
  piece_id: string | null;
  match_method: string;
  match_confidence: string;
  attribution_type: string;
  created_at: string;
  updated_at: string;
}

type StoredConversion = Omit<ConversionView, "deal_date" | "created_at" | "updated_at"> & {
  deal_date: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
};

const iso = (value: Date | string) => new Date(value).toISOString();

/** The org's conversions, newest first (operator API). */
export async function listConversions(
  db: Queryable,
  orgId: string,
  limit: number,
): Promise<ConversionView[]> {
  const rows = await queryRows<StoredConversion>(
    db,
    sql`SELECT id, deal_id, address, normalized_address, deal_amount::text AS deal_amount, deal_date,
               deal_stage, deal_name, contact_first_name, contact_last_name, contact_name, contact_email,
               campaign_id, piece_id, match_method, match_confidence, attribution_type, created_at, updated_at
        FROM conversions WHERE org_id = ${orgId}::uuid
        ORDER BY created_at DESC, id LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    ...row,
    deal_date: row.deal_date === null ? null : iso(row.deal_date),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}
