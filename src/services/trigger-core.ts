/**
 * The trigger core: what happens when a record reaches automations, shared by POST /api/v1/events
 * and the legacy POST /api/v1/webhooks/trigger.
 *
 * For each candidate automation, in order: loop guard (a `service_lead_id` naming one of the org's
 * own leads stops everything), CRM filters, address check, then the idempotent enqueue of one
 * campaign with one queued mail piece. The unique index `campaigns_dedup` decides duplicates
 * (INSERT … ON CONFLICT DO NOTHING RETURNING), never a read-then-write, so concurrent replays
 * give exactly one `queued`. A dry run answers the same questions with reads only.
 *
 * Usage: `runTrigger({ db, clock, logger }, { orgId, candidates, properties, dedup, origin,
 * source, dryRun })` → `{ outcomes, duplicate }`.
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { isConnectionError, type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { leads } from "../db/schema.ts";
import { passesAllFilters } from "../domain/filters.ts";
import { JOB_COLUMNS, jobSelectList } from "../jobs/queue.ts";
import { processPieceJob } from "../pipeline/jobs.ts";
import type { BoundAutomationCache } from "./automation-cache.ts";
import type { Automation, ObjectType } from "./automations.ts";
import { type AddressParts, newPiece } from "./campaigns.ts";
import { appendWebhookLog } from "./events/webhook-log.ts";

export const TRIGGER_REASONS = [
  "queued",
  "filtered_out",
  "no_address",
  "duplicate",
  "loop_guard",
  "failed",
] as const;
export type TriggerReason = (typeof TRIGGER_REASONS)[number];

/** A mailable address: the printed line and its parts. */
export interface MailAddress {
  line: string;
  parts: AddressParts;
}

export interface TriggerDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
}

export interface DedupKey {
  /** `event`: the event's dedup_id; `deal`: the legacy trigger's deal_id. */
  kind: "event" | "deal";
  key: string;
}

export interface TriggerInput {
  orgId: string;
  /** The automations that matched the binding; each gets one outcome, in this order. */
  candidates: readonly Automation[];
  /** The record's flat string properties: filters read them, the piece keeps them. */
  properties: Readonly<Record<string, string>>;
  /** One campaign per (automation, dedup key); null means every call enqueues. */
  dedup: DedupKey | null;
  origin: "event" | "trigger";
  /** Webhook-log source of entries written by this run (`events`, `trigger`). */
  source: string;
  dryRun: boolean;
  /** For webhook-log entries. */
  eventType?: string;
  /**
   * The address to mail. Absent: composed from the reserved properties (street, city, state, zip).
   * Null: the caller found none (`no_address`).
   */
  address?: MailAddress | null;
}

export interface TriggerOutcome {
  automation_id: string;
  name: string;
  /** True only for `queued`. */
  matched: boolean;
  reason: TriggerReason;
  /** `queued` (live): the new campaign; `duplicate`: the campaign that absorbed the replay. */
  campaign_id?: string;
  /** `queued` (live): the new mail piece. */
  piece_id?: string;
}

export interface TriggerResult {
  outcomes: TriggerOutcome[];
  /** True only when there is at least one candidate and every one is a duplicate. */
  duplicate: boolean;
  /** The address that was (or would be) mailed, when the record has one. */
  address: MailAddress | null;
}

/** Enabled automations bound to `custom.<eventType>` whose pinned object type, if any, matches. */
export async function findEventCandidates(
  bound: Pick<BoundAutomationCache, "find">,
  orgId: string,
  eventType: string,
  objectType: ObjectType,
): Promise<Automation[]> {
  const automations = await bound.find(orgId, eventType);
  return automations.filter((automation) => {
    const pinned = automation.trigger?.object_type;
    return pinned === undefined || pinned === objectType;
  });
}

const present = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** Joins the reserved address properties into one line: "street, city, state zip". */
export function composeAddress(properties: Readonly<Record<string, string>>): string {
  const street = present(properties.street);
  const city = present(properties.city);
  const stateZip = [present(properties.state), present(properties.zip)].filter(Boolean).join(" ");
  return [street, city, stateZip].filter(Boolean).join(", ");
}

/** The record's mailable address: `street` and at least one of `city`/`zip`, else undefined. */
export function mailAddressOf(properties: Readonly<Record<string, string>>): MailAddress | undefined {
  const street = present(properties.street);
  const city = present(properties.city);
  const zip = present(properties.zip);
  if (!street || (!city && !zip)) return undefined;
  const state = present(properties.state);
  return {
    line: composeAddress(properties),
    parts: {
      street,
      ...(city ? { city } : {}),
      ...(state ? { state } : {}),
      ...(zip ? { zip } : {}),
    },
  };
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `serviceLeadId` is one of the org's own leads (anything else is ignored). */
export async function isOwnLead(db: Queryable, orgId: string, serviceLeadId: string | undefined) {
  const id = serviceLeadId?.trim();
  if (!id || !UUID_PATTERN.test(id)) return false;
  const [row] = await db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.orgId, orgId), eq(leads.id, id.toLowerCase())))
    .limit(1);
  return row !== undefined;
}

async function existingCampaignId(db: Queryable, orgId: string, automationId: string, dedup: DedupKey) {
  const row = await queryOne<{ id: string }>(
    db,
    sql`SELECT id FROM campaigns
        WHERE org_id = ${orgId} AND automation_id = ${automationId}
          AND dedup_kind = ${dedup.kind} AND dedup_key = ${dedup.key}`,
  );
  return row?.id;
}

/**
 * Campaign, piece and its pipeline job in one statement (one round trip, one commit). The
 * campaign insert that loses the unique index returns no row, so nothing else is written: that is
 * the duplicate, decided by the database even under concurrent replays.
 */
async function enqueue(
  db: Queryable,
  input: TriggerInput,
  automation: Automation,
  address: MailAddress,
  now: Date,
): Promise<{ campaignId: string; pieceId: string } | "duplicate"> {
  const campaignId = randomUUID();
  const dedupLabel = input.dedup ? ` (${input.dedup.key})` : "";
  const piece = newPiece({
    orgId: input.orgId,
    campaignId,
    address: address.line,
    parts: address.parts,
    recipientName: present(input.properties.client_name) ?? null,
    status: "queued",
    properties: { ...input.properties },
  });
  const pieceId = piece.id!;
  const job = jobSelectList(
    processPieceJob,
    { org_id: input.orgId, piece_id: pieceId },
    { orgId: input.orgId, now },
  );
  const rows = await queryRows<{ id: string }>(
    db,
    sql`WITH campaign AS (
          INSERT INTO campaigns (org_id, id, name, automation_id, origin, dedup_kind, dedup_key)
          VALUES (${input.orgId}, ${campaignId}, ${`${automation.name}${dedupLabel}`}, ${automation.id},
                  ${input.origin}, ${input.dedup?.kind ?? null}, ${input.dedup?.key ?? null})
          ON CONFLICT (org_id, automation_id, dedup_kind, dedup_key) WHERE dedup_key IS NOT NULL DO NOTHING
          RETURNING id
        ), piece AS (
          INSERT INTO mail_pieces (org_id, id, campaign_id, status, recipient_name, address, street, city, state, zip,
                                   normalized_address, token, properties)
          SELECT ${input.orgId}, ${pieceId}, campaign.id, 'queued', ${piece.recipientName ?? null}, ${piece.address},
                 ${piece.street ?? null}, ${piece.city ?? null}, ${piece.state ?? null}, ${piece.zip ?? null},
                 ${piece.normalizedAddress}, ${piece.token}, ${JSON.stringify(piece.properties ?? {})}::jsonb
          FROM campaign
          RETURNING id
        ), job AS (
          INSERT INTO jobs (${JOB_COLUMNS}) SELECT ${job.list} FROM piece
        )
        SELECT id FROM campaign`,
  );
  return rows.length === 0 ? "duplicate" : { campaignId, pieceId };
}

async function outcomeFor(
  deps: TriggerDeps,
  input: TriggerInput,
  automation: Automation,
  address: MailAddress | null,
): Promise<TriggerOutcome> {
  const base = { automation_id: automation.id, name: automation.name };
  if (!passesAllFilters(automation.filters, input.properties)) {
    return { ...base, matched: false, reason: "filtered_out" };
  }
  if (!address) return { ...base, matched: false, reason: "no_address" };

  if (input.dryRun) {
    const existing = input.dedup
      ? await existingCampaignId(deps.db, input.orgId, automation.id, input.dedup)
      : undefined;
    return existing
      ? { ...base, matched: false, reason: "duplicate", campaign_id: existing }
      : { ...base, matched: true, reason: "queued" };
  }

  try {
    const result = await enqueue(deps.db, input, automation, address, deps.clock.now());
    if (result === "duplicate") {
      const existing = await existingCampaignId(deps.db, input.orgId, automation.id, input.dedup!);
      return { ...base, matched: false, reason: "duplicate", ...(existing ? { campaign_id: existing } : {}) };
    }
    return {
      ...base,
      matched: true,
      reason: "queued",
      campaign_id: result.campaignId,
      piece_id: result.pieceId,
    };
  } catch (error) {
    // The database being unreachable is not this automation's failure: answer 503 so the
    // caller retries the whole event (replays are absorbed by the dedup).
    if (isConnectionError(error)) throw error;
    deps.logger.error({ err: error, orgId: input.orgId, automationId: automation.id }, "enqueue failed");
    await appendWebhookLog(deps, input.orgId, {
      source: input.source,
      level: "error",
      message: `enqueue failed for automation "${automation.name}"; nothing was queued`,
      automationId: automation.id,
      ...(input.eventType ? { eventType: input.eventType } : {}),
      ...(input.dedup ? { dedupId: input.dedup.key } : {}),
    });
    return { ...base, matched: false, reason: "failed" };
  }
}

/** Runs the candidates through loop guard, filters, address and the idempotent enqueue. */
export async function runTrigger(deps: TriggerDeps, input: TriggerInput): Promise<TriggerResult> {
  const address = input.address === undefined ? (mailAddressOf(input.properties) ?? null) : input.address;
  if (input.candidates.length === 0) return { outcomes: [], duplicate: false, address };

  if (await isOwnLead(deps.db, input.orgId, input.properties.service_lead_id)) {
    const outcomes = input.candidates.map(
      (automation): TriggerOutcome => ({
        automation_id: automation.id,
        name: automation.name,
        matched: false,
        reason: "loop_guard",
      }),
    );
    return { outcomes, duplicate: false, address };
  }

  const outcomes: TriggerOutcome[] = [];
  for (const automation of input.candidates) {
    outcomes.push(await outcomeFor(deps, input, automation, address));
  }
  return { outcomes, duplicate: outcomes.every((outcome) => outcome.reason === "duplicate"), address };
}
