/**
 * The trigger core: what happens when a record reaches automations, shared by POST /api/v1/events
 * and the legacy POST /api/v1/webhooks/trigger.
 *
 * For each candidate automation, in order: loop guard (a `service_lead_id` naming one of the org's
 * own leads stops everything), CRM filters, address check, then the idempotent enqueue of one
 * campaign and its pipeline job, which carries the campaign's one mail piece and inserts it on its
 * first run (pieces/process-piece.ts). The unique index `campaigns_dedup` decides duplicates
 * (INSERT … ON CONFLICT DO NOTHING RETURNING), never a read-then-write, so concurrent replays
 * give exactly one `queued`. The writes of one call commit together, group-committed with
 * concurrent calls by the trigger store, which buffers a live event's sample once they did. A dry
 * run answers the same questions with reads only.
 *
 * Usage: `runTrigger({ db, clock, logger, triggerStore }, { orgId, candidates, properties,
 * dedup, origin, source, dryRun, sample? })` → `{ outcomes, duplicate, address }`.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { BoundAutomationCache } from "../automations/automation-cache.ts";
import type { Automation, ObjectType } from "../automations/automations.ts";
import type { Clock } from "../clock.ts";
import { isConnectionError, type Queryable } from "../db/database.ts";
import { type MailAddress, mailAddressOf, nonBlank } from "../domain/address.ts";
import { passesAllFilters } from "../domain/filters.ts";
import { isoOf } from "../domain/iso-date.ts";
import { processPieceJob, type QueuedPiece } from "../jobs/kinds.ts";
import { newJobRow } from "../jobs/queue.ts";
import { isOwnLead } from "../leads/loop-guard.ts";
import { isNeighbours, jobCityOf, jobStreetOf } from "../neighbours/audience.ts";
import { locateRecordHome, neighbourFanoutJobRow } from "../neighbours/neighbour-fanout.ts";
import type { LocatedHome } from "../neighbours/reference-addresses.ts";
import { newLandingToken } from "../pieces/campaigns.ts";
import type { TriggerReason } from "./envelope.ts";
import type { EventSampleRow } from "./samples.ts";
import type { CampaignEnqueue, TriggerStore } from "./trigger-store.ts";
import { appendWebhookLog } from "./webhook-log.ts";

export interface TriggerDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  triggerStore: TriggerStore;
}

export interface DedupKey {
  /**
   * `event`: the event's dedup_id; `deal`: the legacy trigger's deal_id; `same_body_day`: a legacy
   * trigger sent without a deal_id, keyed by its body and UTC day (a retry sends the same body);
   * `test_card`: the app's request id of a test card (test-card.ts).
   */
  kind: "event" | "deal" | "same_body_day" | "test_card";
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
  origin: "event" | "trigger" | "test_card";
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
  /** A live event's sample, buffered once the enqueues committed (or at once when none is queued). */
  sample?: EventSampleRow;
  /** The id of the piece an automation's campaign carries; absent: a new random id. */
  pieceIdOf?: (automation: Automation) => string;
}

export interface TriggerOutcome {
  automation_id: string;
  name: string;
  /** True only for `queued`. */
  matched: boolean;
  reason: TriggerReason;
  /** `queued` (live): the new campaign; `duplicate`: the campaign that absorbed the replay. */
  campaign_id?: string;
  /** `queued` (live): the id of the campaign's mail piece, which its pipeline job inserts. */
  piece_id?: string;
}

export interface TriggerRun {
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

function existingCampaignId(deps: TriggerDeps, orgId: string, automationId: string, dedup: DedupKey) {
  return deps.triggerStore.findCampaign({ orgId, automationId, kind: dedup.kind, key: dedup.key });
}

/** The campaign and pipeline job (carrying the piece to insert) one automation queues for this record. */
function campaignEnqueue(
  input: TriggerInput,
  automation: Automation,
  address: MailAddress,
  now: Date,
  home: LocatedHome | undefined,
): CampaignEnqueue {
  const campaignId = randomUUID();
  const pieceId = input.pieceIdOf?.(automation) ?? randomUUID();
  const campaign = {
    orgId: input.orgId,
    id: campaignId,
    name: `${automation.name}${campaignLabel(input.dedup)}`,
    automationId: automation.id,
    origin: input.origin,
    dedupKind: input.dedup?.kind ?? null,
    dedupKey: input.dedup?.key ?? null,
  };
  if (isNeighbours(automation.audience) && home) {
    const job = neighbourFanoutJobRow(
      {
        orgId: input.orgId,
        campaignId,
        automationId: automation.id,
        home,
        jobStreet: jobStreetOf(address.parts.street ?? "") ?? "",
        jobCity: jobCityOf(address.parts.city) ?? "",
        audience: automation.audience,
      },
      now,
    );
    return { campaign, pieceId, job };
  }
  const { street, city, state, zip } = address.parts;
  const piece: QueuedPiece = {
    campaign_id: campaignId,
    recipient_name: nonBlank(input.properties.client_name) ?? null,
    address: address.line,
    street: street ?? null,
    city: city ?? null,
    state: state ?? null,
    zip: zip ?? null,
    token: newLandingToken(),
    properties: { ...input.properties },
    queued_at: isoOf(now),
  };
  return {
    campaign,
    pieceId,
    // The campaign's one job takes the campaign's id: until the job has inserted the piece, the
    // address queued under a campaign is found by primary key (the legacy trigger's replay).
    job: newJobRow(
      processPieceJob,
      { org_id: input.orgId, piece_id: pieceId, piece },
      { orgId: input.orgId, now, id: campaignId },
    ),
  };
}

/** The campaign is named after the key the caller sent, not a digest of its body or a request id. */
function campaignLabel(dedup: DedupKey | null): string {
  if (!dedup || dedup.kind === "same_body_day") return "";
  return dedup.kind === "test_card" ? " (test card)" : ` (${dedup.key})`;
}

type Base = Pick<TriggerOutcome, "automation_id" | "name">;

/**
 * The outcome decided without writing: filters, address, and (dry runs) the dedup lookup. Only a
 * dry run's lookup waits for the database; every other decision is made at once (no promise per
 * candidate on the live path).
 */
function decide(
  deps: TriggerDeps,
  input: TriggerInput,
  automation: Automation,
  address: MailAddress | null,
  home: LocatedHome | undefined,
): TriggerOutcome | "enqueue" | Promise<TriggerOutcome> {
  const base: Base = { automation_id: automation.id, name: automation.name };
  if (!passesAllFilters(automation.filters, input.properties)) {
    return { ...base, matched: false, reason: "filtered_out" };
  }
  if (!address) return { ...base, matched: false, reason: "no_address" };
  // The neighbours are found around the home's point: a home that cannot be located has none.
  if (isNeighbours(automation.audience) && !home) return { ...base, matched: false, reason: "no_address" };
  if (!input.dryRun) return "enqueue";
  if (!input.dedup) return { ...base, matched: true, reason: "queued" };
  return existingCampaignId(deps, input.orgId, automation.id, input.dedup).then(
    (existing): TriggerOutcome =>
      existing
        ? { ...base, matched: false, reason: "duplicate", campaign_id: existing }
        : { ...base, matched: true, reason: "queued" },
  );
}

/** Writes the enqueues in one (group-committed) statement, then the sample; maps the results. */
async function enqueueAll(
  deps: TriggerDeps,
  input: TriggerInput,
  pending: { automation: Automation; enqueue: CampaignEnqueue }[],
): Promise<TriggerOutcome[]> {
  let written: boolean[];
  try {
    written = await deps.triggerStore.write({
      ...(input.sample ? { sample: input.sample } : {}),
      enqueues: pending.map((entry) => entry.enqueue),
    });
  } catch (error) {
    // The database being unreachable is not these automations' failure: answer 503 so the
    // caller retries the whole event (replays are absorbed by the dedup).
    if (isConnectionError(error)) throw error;
    return enqueueFailed(deps, input, pending, error);
  }
  const outcomes = pending.map(({ automation, enqueue }, index): TriggerOutcome | Promise<TriggerOutcome> => {
    const base: Base = { automation_id: automation.id, name: automation.name };
    if (written[index]) {
      return {
        ...base,
        matched: true,
        reason: "queued",
        campaign_id: enqueue.campaign.id,
        // A neighbour campaign's pieces are queued by its fan-out job: there is no one piece.
        ...(isNeighbours(automation.audience) ? {} : { piece_id: enqueue.pieceId }),
      };
    }
    return existingCampaignId(deps, input.orgId, automation.id, input.dedup!).then(
      (existing): TriggerOutcome => ({
        ...base,
        matched: false,
        reason: "duplicate",
        ...(existing ? { campaign_id: existing } : {}),
      }),
    );
  });
  // Only duplicates wait, for the campaign that holds their key.
  return outcomes.some(isPromise) ? Promise.all(outcomes) : (outcomes as TriggerOutcome[]);
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise;

async function enqueueFailed(
  deps: TriggerDeps,
  input: TriggerInput,
  pending: { automation: Automation }[],
  error: unknown,
): Promise<TriggerOutcome[]> {
  deps.logger.error({ err: error, orgId: input.orgId }, "enqueue failed");
  // The event was received all the same: it is sampled (the failed write buffered nothing).
  if (input.sample) await deps.triggerStore.write({ sample: input.sample, enqueues: [] });
  const outcomes: TriggerOutcome[] = [];
  for (const { automation } of pending) {
    await appendWebhookLog(deps, input.orgId, {
      source: input.source,
      level: "error",
      message: `enqueue failed for automation "${automation.name}"; nothing was queued`,
      automationId: automation.id,
      ...(input.eventType ? { eventType: input.eventType } : {}),
      ...(input.dedup ? { dedupId: input.dedup.key } : {}),
    });
    outcomes.push({ automation_id: automation.id, name: automation.name, matched: false, reason: "failed" });
  }
  return outcomes;
}

interface Decisions {
  outcomes: (TriggerOutcome | "enqueue")[];
  home?: LocatedHome;
}

/**
 * The candidates' decisions, with the record's home located once when a neighbour audience needs
 * it. Answered at once when nothing needs the database (a live event for ordinary audiences).
 */
function decideAll(
  deps: TriggerDeps,
  input: TriggerInput,
  address: MailAddress | null,
): Decisions | Promise<Decisions> {
  const needsHome = address && input.candidates.some((automation) => isNeighbours(automation.audience));
  if (needsHome) return locateRecordHome(deps.db, address.line).then((home) => decideWith(home));
  return decideWith(undefined);

  function decideWith(home: LocatedHome | undefined): Decisions | Promise<Decisions> {
    const decided = input.candidates.map((automation) => decide(deps, input, automation, address, home));
    const withHome = (outcomes: (TriggerOutcome | "enqueue")[]) => ({ outcomes, ...(home ? { home } : {}) });
    return decided.some(isPromise)
      ? Promise.all(decided).then(withHome)
      : withHome(decided as (TriggerOutcome | "enqueue")[]);
  }
}

/**
 * A live event that made no card for want of an address says so on its sample, so the app can
 * tell the contractor which jobs got no card (the sample is counted per type without a write of its own).
 */
function withAddressNoted(
  input: TriggerInput,
  outcomes: readonly (TriggerOutcome | "enqueue")[],
): TriggerInput {
  const noAddress = outcomes.some((outcome) => outcome !== "enqueue" && outcome.reason === "no_address");
  return input.sample && noAddress ? { ...input, sample: { ...input.sample, withoutAddress: true } } : input;
}

/** Runs the candidates through loop guard, filters, address and the idempotent enqueue. */
export async function runTrigger(deps: TriggerDeps, input: TriggerInput): Promise<TriggerRun> {
  const address = input.address === undefined ? (mailAddressOf(input.properties) ?? null) : input.address;
  // Only a record naming a service_lead_id can be one of our own leads (isOwnLead answers false
  // without one): the others skip the call and its promise.
  const serviceLeadId = input.properties.service_lead_id;
  const loopGuarded =
    input.candidates.length > 0 &&
    serviceLeadId !== undefined &&
    (await isOwnLead(deps.db, input.orgId, serviceLeadId));
  const deciding: Decisions | Promise<Decisions> = loopGuarded
    ? {
        outcomes: input.candidates.map(
          (automation): TriggerOutcome => ({
            automation_id: automation.id,
            name: automation.name,
            matched: false,
            reason: "loop_guard",
          }),
        ),
      }
    : decideAll(deps, input, address);
  const decisions = isPromise(deciding) ? await deciding : deciding;

  const now = deps.clock.now();
  const home = decisions.home;
  const pending: { automation: Automation; index: number; enqueue: CampaignEnqueue }[] = [];
  input.candidates.forEach((automation, index) => {
    if (decisions.outcomes[index] === "enqueue") {
      pending.push({ automation, index, enqueue: campaignEnqueue(input, automation, address!, now, home) });
    }
  });
  const outcomes = decisions.outcomes as (TriggerOutcome | "enqueue")[];
  if (pending.length > 0 || input.sample) {
    const enqueued = await enqueueAll(deps, withAddressNoted(input, outcomes), pending);
    pending.forEach((entry, position) => {
      outcomes[entry.index] = enqueued[position]!;
    });
  }
  const settled = outcomes as TriggerOutcome[];
  const duplicate = settled.length > 0 && settled.every((outcome) => outcome.reason === "duplicate");
  return { outcomes: settled, duplicate, address };
}
