import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { AppError, invalidPayload } from "../errors.ts";
import type { AddressVerifier } from "../geo/address-verifier.ts";
import type { MailingService } from "../mailings/mailing-service.ts";
import {
  type Audience,
  type AudienceFilter,
  type AudienceRow,
  audienceOf,
  EXCLUSION_REASONS,
  type ExclusionReason,
} from "./audience.ts";

/** A concurrent send with the same request id committed first: this one's writes roll back. */
class SentAlready extends Error {}

/** As many cards as the operator's mailing endpoint takes in one request. */
export const REACTIVATION_MAX_PIECES = 5000;
const EXAMPLES = 20;

export interface ReactivationRequest {
  import_ids: string[];
  filter: AudienceFilter;
}

export interface ReactivationSummary {
  matched: number;
  mailable: number;
  excluded: Record<ExclusionReason, number>;
  /** The first excluded rows, each with its reason in words. */
  excluded_examples: {
    address: string;
    customer_name: string | null;
    reason: ExclusionReason;
    detail: string;
  }[];
  /** The first rows that would be mailed. */
  first_rows: AudienceRow[];
}

export function summaryOf(audience: Audience): ReactivationSummary {
  const excluded = Object.fromEntries(EXCLUSION_REASONS.map((reason) => [reason, 0])) as Record<
    ExclusionReason,
    number
  >;
  for (const entry of audience.excluded) excluded[entry.reason]++;
  return {
    matched: audience.matched,
    mailable: audience.included.length,
    excluded,
    excluded_examples: audience.excluded.slice(0, EXAMPLES).map(({ row, reason, detail }) => ({
      address: row.address,
      customer_name: row.customer_name,
      reason,
      detail,
    })),
    first_rows: audience.included.slice(0, EXAMPLES),
  };
}

/** The merge values an imported row gives its card ({{client_name}}, and the job it remembers). */
export function propertiesOf(row: AudienceRow): Record<string, string> {
  const properties: Record<string, string> = {};
  if (row.customer_name) properties.client_name = row.customer_name;
  if (row.completed_at) properties.cf_last_job_date = row.completed_at;
  if (row.external_id) properties.cf_external_id = row.external_id;
  if (row.job_type) properties.cf_job_type = row.job_type;
  return properties;
}

/**
 * Reactivation mailings from imported past jobs: who a filter reaches (and who it leaves out, and
 * why), and the mailing itself, sent through the shared mailing service.
 */
export function createReactivationService(deps: {
  db: Queryable;
  clock: Clock;
  mailings: MailingService;
  /** The service's address verifier (ADDRESS_VERIFIER): the offline one's check is foreseen. */
  addressVerifier: AddressVerifier["name"];
}) {
  const { db, clock, mailings, addressVerifier } = deps;

  const audienceFor = (orgId: string, request: ReactivationRequest) =>
    audienceOf(db, orgId, request.import_ids, request.filter, addressVerifier);

  const preview = async (orgId: string, request: ReactivationRequest) =>
    summaryOf(await audienceFor(orgId, request));

  /** The mailing an earlier send with this request id made, if any. */
  const sentBefore = (orgId: string, requestId: string) =>
    queryOne<{ campaign_id: string; queued: number }>(
      db,
      sql`SELECT campaign_id::text, queued FROM reactivation_mailings
          WHERE org_id = ${orgId}::uuid AND request_id = ${requestId}::uuid`,
    );

  /**
   * Sends the mailing, once per `requestId`: a repeat answers the first mailing (`replayed`),
   * also when both arrive at once (the second waits on the first's row, then rolls back).
   */
  async function send(
    orgId: string,
    request: ReactivationRequest & {
      name: string;
      template: Record<string, unknown>;
      sentBy: string;
      requestId?: string | undefined;
      /** The number of cards the owner saw and confirmed (with their cost): a different audience is refused. */
      confirmedCards: number;
    },
  ) {
    const replay = async () => {
      const sent = request.requestId ? await sentBefore(orgId, request.requestId) : undefined;
      return sent ? { ...sent, summary: await preview(orgId, request), replayed: true } : undefined;
    };
    const earlier = await replay();
    if (earlier) return earlier;
    const audience = await audienceFor(orgId, request);
    if (audience.included.length === 0) throw invalidPayload("filter: no row of these batches can be mailed");
    if (audience.included.length > REACTIVATION_MAX_PIECES) {
      throw invalidPayload(
        `filter: ${audience.included.length} homes; a mailing sends at most ${REACTIVATION_MAX_PIECES}, narrow the filter`,
      );
    }
    if (audience.included.length !== request.confirmedCards) {
      throw new AppError(
        409,
        "confirmation_stale",
        `confirmed_cards: the mailing now reaches ${audience.included.length} homes, not the ${request.confirmedCards} confirmed; check the count and cost and confirm again`,
      );
    }
    const summary = summaryOf(audience);
    let result: { campaign_id: string; queued: number };
    try {
      result = await mailings.send(
        orgId,
        {
          name: request.name,
          origin: "reactivation",
          template: request.template,
          recipients: audience.included.map((row) => ({
            address: row.address,
            recipientName: row.customer_name,
            latitude: row.latitude,
            longitude: row.longitude,
            precision: row.precision,
            properties: propertiesOf(row),
          })),
        },
        async (tx, campaignId) => {
          const recorded = await queryRows<{ campaign_id: string }>(
            tx,
            sql`
            INSERT INTO reactivation_mailings (org_id, campaign_id, import_ids, filter, matched, queued,
              excluded_customers, excluded_opted_out, no_mailable_address, created_by, created_at, request_id)
            VALUES (${orgId}::uuid, ${campaignId}::uuid, ${JSON.stringify(request.import_ids)}::jsonb,
              ${JSON.stringify(request.filter)}::jsonb, ${summary.matched}, ${summary.mailable},
              ${summary.excluded.customer}, ${summary.excluded.opted_out}, ${summary.excluded.no_mailable_address},
              ${request.sentBy}, ${clock.now().toISOString()}::timestamptz, ${request.requestId ?? null}::uuid)
            ON CONFLICT (org_id, request_id) WHERE request_id IS NOT NULL DO NOTHING
            RETURNING campaign_id`,
          );
          if (recorded.length === 0) throw new SentAlready();
        },
      );
    } catch (error) {
      if (!(error instanceof SentAlready)) throw error;
      const first = await replay();
      if (!first) throw error;
      return first;
    }
    return { ...result, summary, replayed: false };
  }

  /** The first card's recipient: the proof shows the mailing's first home. */
  async function firstRow(orgId: string, request: ReactivationRequest): Promise<AudienceRow | undefined> {
    return (await audienceFor(orgId, request)).included[0];
  }

  return { preview, send, firstRow };
}

export type ReactivationService = ReturnType<typeof createReactivationService>;
