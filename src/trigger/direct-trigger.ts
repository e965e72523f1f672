import { createHash } from "node:crypto";
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type ConversionFields, recordConversion } from "../attribution/conversions.ts";
import type { AttributionDeps } from "../attribution/deps.ts";
import {
  type AddressFieldLengths,
  CRM_ADDRESS_FIELDS,
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
} from "../attribution/payload-fields.ts";
import { findAutomation } from "../automations/automations.ts";
import type { KillSwitch } from "../automations/kill-switch.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { type MailAddress, mailAddressOf, namesAPlace, normalizeAddress } from "../domain/address.ts";
import { printedPartsOf } from "../domain/deliverable-address.ts";
import { isUuid } from "../domain/uuid.ts";
import { AppError, notFound } from "../errors.ts";
import { type DedupKey, runTrigger } from "./trigger-core.ts";
import type { TriggerStore } from "./trigger-store.ts";

/** The trigger's kill-switch answer: 400 (not the events' 503), transient, retry later. */
export const triggerAutomationsDisabled = () =>
  new AppError(400, "automations_disabled", undefined, { "retry-after": "300" });

/** The trigger's schema allows 2000 characters in each address field; so do their aliases. */
const TRIGGER_ADDRESS_LENGTHS: AddressFieldLengths = {
  address: 2000,
  street: 2000,
  city: 2000,
  state: 2000,
  zip: 2000,
};

/**
 * Where the legacy trigger finds each field, flat or under `properties` (first hit wins). The
 * address is read by readAddressLine from CRM_ADDRESS_FIELDS, as on conversions and tracking leads.
 */
export const TRIGGER_FIELD_ALIASES = {
  ...CRM_ADDRESS_FIELDS,
  deal_id: [...DEAL_ID_ALIASES],
  first_name: flatThenProperties("first_name", "firstname", "contact_first_name"),
  last_name: flatThenProperties("last_name", "lastname", "contact_last_name"),
  name: flatThenProperties("name", "contact_name", "client_name", "full_name"),
  email: flatThenProperties("email", "contact_email", "client_email"),
  phone: flatThenProperties("phone", "contact_phone", "client_phone", "mobilephone"),
  amount: DEAL_AMOUNT_ALIASES,
  deal_date: DEAL_DATE_ALIASES,
  stage: DEAL_STAGE_ALIASES,
  deal_name: DEAL_NAME_ALIASES,
} as const;

/** The 202 body of POST /api/v1/webhooks/trigger. */
export const TriggerResult = Type.Object(
  {
    success: Type.Boolean(),
    automation: Type.String({ description: "The automation's name." }),
    customer_added: Type.Boolean({
      description: "True when a deal_won automation registered the address as a customer.",
    }),
    queued: Type.Boolean({ description: "True when a campaign was enqueued by this call." }),
    queue_id: Type.Union([Type.String(), Type.Null()], {
      description:
        "The campaign enqueued, or the one a repeat of the deal_id enqueued; null when nothing was.",
    }),
    idempotent: Type.Boolean({ description: "True on a repeat of the deal_id: nothing was done again." }),
    address: Type.String({
      description: "The normalized address; on a repeat, the one queued under queue_id.",
    }),
  },
  { $id: "TriggerResult" },
);
export type TriggerResponse = Static<typeof TriggerResult>;

export interface TriggerFields {
  addressLine: string;
  mailAddress: MailAddress | null;
  dealId: string | undefined;
  properties: Record<string, string>;
  conversion: ConversionFields;
}

/** Every flat string (or number) field of the payload and of `properties`: what filters read. */
function flatStrings(payload: Payload): Record<string, string> {
  const result: Record<string, string> = {};
  const nested = payload.properties;
  for (const source of [nested, payload]) {
    if (!source || typeof source !== "object" || Array.isArray(source)) continue;
    for (const [key, value] of Object.entries(source)) {
      if (typeof value === "string") result[key] = value;
      else if (typeof value === "number" && Number.isFinite(value)) result[key] = String(value);
    }
  }
  return result;
}

/** Reads and validates everything before anything is written (a 422 leaves no queued campaign). */
export function readTriggerFields(payload: Payload): TriggerFields {
  const addressLine = readAddressLine(payload, CRM_ADDRESS_FIELDS, "", TRIGGER_ADDRESS_LENGTHS);
  if (!addressLine || !namesAPlace(normalizeAddress(addressLine))) throw noAddressFound();
  const read = (aliases: readonly string[]) => readText(payload, aliases);
  const parts = printedPartsOf(addressLine);
  const firstName = read(TRIGGER_FIELD_ALIASES.first_name);
  const lastName = read(TRIGGER_FIELD_ALIASES.last_name);
  const name =
    read(TRIGGER_FIELD_ALIASES.name) ?? ([firstName, lastName].filter(Boolean).join(" ") || undefined);
  const email = read(TRIGGER_FIELD_ALIASES.email);
  const phone = read(TRIGGER_FIELD_ALIASES.phone);
  const stage = read(TRIGGER_FIELD_ALIASES.stage);
  const dealAmount = readDealAmount(payload, TRIGGER_FIELD_ALIASES.amount);
  const dealId = read(TRIGGER_FIELD_ALIASES.deal_id);
  const reserved: Record<string, string | undefined> = {
    street: parts.street,
    city: parts.city,
    state: parts.state,
    zip: parts.zip,
    client_name: name,
    client_email: email,
    client_phone: phone,
    amount: dealAmount,
    status: stage,
  };
  const properties = flatStrings(payload);
  for (const [key, value] of Object.entries(reserved)) if (value) properties[key] = value;
  return {
    addressLine,
    mailAddress: mailAddressOf(parts, addressLine) ?? null,
    dealId,
    properties,
    conversion: {
      address: addressLine,
      dealId,
      dealAmount,
      dealDate: readDate(payload, TRIGGER_FIELD_ALIASES.deal_date),
      dealStage: stage,
      dealName: read(TRIGGER_FIELD_ALIASES.deal_name),
      contactFirstName: firstName,
      contactLastName: lastName,
      contactName: name,
      contactEmail: email,
    },
  };
}

/** The campaign a previous trigger of this deal (or body and day) enqueued (the campaigns_dedup index). */
async function campaignOfKey(db: Queryable, orgId: string, automationId: string, dedup: DedupKey) {
  const row = await queryOne<{ id: string }>(
    db,
    sql`SELECT id FROM campaigns
        WHERE org_id = ${orgId}::uuid AND automation_id = ${automationId}::uuid
          AND dedup_kind = ${dedup.kind} AND dedup_key = ${dedup.key}`,
  );
  return row?.id;
}

/**
 * The trigger's idempotency: its deal_id, else (a flow that maps none) what it read from the body
 * (its address and flat fields, whatever their order) on its UTC day: a retry sends the very same
 * body, and a keyless retry mailed twice wherever the frequency cap was off. Another address or
 * other fields for the same home (another stage, another name) make a trigger of their own. The
 * fields are flat strings: nothing nested is walked, however deep a hostile body nests.
 */
function dedupOf(fields: TriggerFields, now: Date): DedupKey {
  if (fields.dealId) return { kind: "deal", key: fields.dealId };
  const read = Object.entries(fields.properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const digest = createHash("sha256")
    .update(JSON.stringify([fields.addressLine, read]))
    .digest("base64url");
  return { kind: "same_body_day", key: `${now.toISOString().slice(0, 10)}|${digest}` };
}

/**
 * The normalized address queued under a campaign: its piece's, else (before a worker inserted the
 * piece) the one its job carries; the job shares the campaign's id (trigger-core). Undefined only
 * when neither remains (a job that failed before inserting its piece, then was pruned).
 */
async function queuedAddress(db: Queryable, orgId: string, campaignId: string) {
  const row = await queryOne<{ address: string; normalized_address: string | null }>(
    db,
    // The newest first card: one sent again to a corrected address (pieces/corrected-resend.ts) is the address now.
    sql`SELECT address, normalized_address FROM (
          SELECT 1 AS rank, created_at, address, normalized_address FROM mail_pieces
          WHERE org_id = ${orgId}::uuid AND campaign_id = ${campaignId}::uuid AND sequence_step IS NULL
          UNION ALL
          SELECT 2, NULL::timestamptz, payload->'piece'->>'address', NULL FROM jobs
          WHERE id = ${campaignId}::uuid AND org_id = ${orgId}::uuid AND payload->'piece' IS NOT NULL
        ) queued
        ORDER BY rank, created_at DESC LIMIT 1`,
  );
  if (!row) return undefined;
  return row.normalized_address ?? normalizeAddress(row.address);
}

/** The answer to a repeat of the deal: the campaign it queued, with the address queued there. */
async function replayed(
  db: Queryable,
  orgId: string,
  base: Pick<TriggerResponse, "success" | "automation" | "address">,
  campaignId: string | null,
): Promise<TriggerResponse> {
  const address = campaignId ? await queuedAddress(db, orgId, campaignId) : undefined;
  return {
    ...base,
    address: address ?? base.address,
    customer_added: false,
    queued: false,
    queue_id: campaignId,
    idempotent: true,
  };
}

/**
 * POST /api/v1/webhooks/trigger: fires one automation through the shared trigger core. A repeat
 * deal_id short-circuits before anything else runs (no enqueue, no geocoding, no attribution).
 * A `deal_won` automation also registers the customer and attributes the revenue.
 */
export async function fireDirectTrigger(
  deps: AttributionDeps & { killSwitch: KillSwitch; triggerStore: TriggerStore },
  orgId: string,
  automationId: string,
  payload: Payload,
): Promise<TriggerResponse> {
  if (await deps.killSwitch.isPaused()) throw triggerAutomationsDisabled();
  const automation = isUuid(automationId) ? await findAutomation(deps.db, orgId, automationId) : undefined;
  if (!automation) throw notFound("automation not found");
  const fields = readTriggerFields(payload);
  const address = normalizeAddress(fields.addressLine);
  const base = { success: true, automation: automation.name, address };

  const dedup = dedupOf(fields, deps.clock.now());
  const existing = await campaignOfKey(deps.db, orgId, automation.id, dedup);
  if (existing) return replayed(deps.db, orgId, base, existing);

  const run = await runTrigger(deps, {
    orgId,
    candidates: automation.enabled ? [automation] : [],
    properties: fields.properties,
    dedup,
    origin: "trigger",
    source: "trigger",
    dryRun: false,
    address: fields.mailAddress,
  });
  const outcome = run.outcomes[0];
  if (outcome?.reason === "duplicate") {
    // A concurrent repeat won the unique index between our check and our enqueue.
    return replayed(deps.db, orgId, base, outcome.campaign_id ?? null);
  }

  let customerAdded = false;
  if (automation.kind === "deal_won") {
    await recordConversion(deps, orgId, fields.conversion, "trigger");
    customerAdded = true;
  }
  const queued = outcome?.reason === "queued";
  return {
    ...base,
    customer_added: customerAdded,
    queued,
    queue_id: queued ? (outcome.campaign_id ?? null) : null,
    idempotent: false,
  };
}
