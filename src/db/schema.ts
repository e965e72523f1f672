// Drizzle table definitions mirroring migrations/*.sql (the migrations are the source of truth;
// test/db/schema-drift.test.ts checks that every column here exists in the migrated database).
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const organizations = pgTable("organizations", {
  id: uuid("id").primaryKey(),
  name: text("name").notNull(),
  billingOwner: boolean("billing_owner").notNull().default(true),
  createdAt: ts("created_at").notNull().defaultNow(),
});

export const platformSettings = pgTable("platform_settings", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    name: text("name").notNull().default(""),
    keyHash: text("key_hash").notNull(),
    scopes: text("scopes").array(),
    expiresAt: ts("expires_at"),
    revokedAt: ts("revoked_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
    lastUsedAt: ts("last_used_at"),
    // The first start's sample key (bootstrap.ts): the first-run checklist does not count it.
    demo: boolean("demo").notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const automations = pgTable(
  "automations",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    name: text("name").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    kind: text("kind").$type<"standard" | "deal_won">().notNull().default("standard"),
    triggerBinding: text("trigger_binding"),
    triggerObjectType: text("trigger_object_type").$type<"job" | "deal" | "contact">(),
    filters: jsonb("filters").notNull().default([]),
    suppressCustomers: boolean("suppress_customers").notNull().default(true),
    template: jsonb("template"),
    /** Null: the record's home; else a neighbours audience (src/neighbours/audience.ts). */
    audience: jsonb("audience"),
    /** Follow-up cards (issue 42): [{delay_days, template}], src/automations/sequence-steps.ts. */
    steps: jsonb("steps").notNull().default([]),
    /** What stops the follow-ups to a home (lead, won_deal, opt_out, customer, returned). */
    stopWhen: jsonb("stop_when").notNull().default(["lead", "won_deal", "opt_out", "customer", "returned"]),
    /** The share of homes (0 to 50 %) kept out of the mail to measure what it adds (issue 42). */
    holdoutPercent: smallint("holdout_percent").notNull().default(0),
    /** When the holdout was last turned on (raised from 0); null before, and on automations from before 0600. */
    holdoutSince: ts("holdout_since"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const connections = pgTable(
  "connections",
  {
    orgId: uuid("org_id").notNull(),
    provider: text("provider").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.provider] })],
);

export const campaigns = pgTable(
  "campaigns",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    name: text("name").notNull(),
    automationId: uuid("automation_id"),
    origin: text("origin").$type<"event" | "trigger" | "mailing" | "reactivation" | "test_card">().notNull(),
    dedupKind: text("dedup_kind"),
    dedupKey: text("dedup_key"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

/**
 * Every status a mail piece can have, in the order a card lives through them (the app's Mail
 * filter offers them in this order). The CHECK constraint mail_pieces_status_check (latest in
 * migrations/0300_address_verification.sql) lists the same; test/db/schema-drift.test.ts keeps them equal.
 */
export const PIECE_STATUSES = [
  "queued",
  // Mail safety (issue 29): waiting before print.
  "held",
  "awaiting_approval",
  "capped",
  "submitted",
  "mailed",
  "in_transit",
  "delivered",
  "returned",
  "suppressed",
  "failed",
  // Mail safety (issue 29): skipped by the frequency cap, or stopped before print.
  "skipped",
  "cancelled",
  // Address verification (issue 39): no carrier can deliver to the address; never printed.
  "undeliverable",
  // Sequences and holdouts (issue 42): a follow-up card waiting for its day, and a home kept out of
  // an automation's mail to measure what the mail adds (never rendered, sent, capped or costed).
  "scheduled",
  "held_out",
] as const;
export type PieceStatus = (typeof PIECE_STATUSES)[number];

export const mailPieces = pgTable(
  "mail_pieces",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    campaignId: uuid("campaign_id").notNull(),
    status: text("status").$type<PieceStatus>().notNull().default("queued"),
    recipientName: text("recipient_name"),
    address: text("address").notNull(),
    street: text("street"),
    city: text("city"),
    state: text("state"),
    zip: text("zip"),
    /** The address key; null until the pipeline sets it on a piece queued by an event. */
    normalizedAddress: text("normalized_address"),
    latitude: doublePrecision("latitude"),
    longitude: doublePrecision("longitude"),
    geoPrecision: text("geo_precision"),
    token: text("token").notNull(),
    properties: jsonb("properties").$type<Record<string, string>>().notNull().default({}),
    mailedAt: ts("mailed_at"),
    provider: text("provider"),
    providerId: text("provider_id"),
    submissionJobId: uuid("submission_job_id"),
    statusReason: text("status_reason"),
    providerStatus: text("provider_status"),
    statusUpdatedAt: ts("status_updated_at"),
    /** A follow-up card's step (1-3) and its sequence's first card (issue 42); null on a first card. */
    sequenceStep: smallint("sequence_step"),
    sequenceFirstPieceId: uuid("sequence_first_piece_id"),
    /** The card a person approved, pinned at approval: what the piece prints (pieces/card-template-sql.ts). */
    approvedTemplate: jsonb("approved_template"),
    homeRulesPassedAt: ts("home_rules_passed_at"),
    /** A follow-up's step, named by its delay in days (a step is found by it, not by position). */
    sequenceStepDelay: smallint("sequence_step_delay"),
    /** When a `scheduled` follow-up is due. */
    scheduledFor: ts("scheduled_for"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const leadFields = pgTable(
  "lead_fields",
  {
    orgId: uuid("org_id").notNull(),
    fieldId: text("field_id").notNull(),
    label: text("label").notNull(),
    type: text("type").$type<"text" | "select" | "multiselect" | "checkbox">().notNull(),
    options: jsonb("options").$type<string[]>().notNull().default([]),
    position: integer("position").notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.fieldId] })],
);

export interface LeadCustomField {
  field_id: string;
  field_label: string;
  type: string;
  value: string[];
}

export const leads = pgTable(
  "leads",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    source: text("source").$type<"landing_page" | "crm_sync">().notNull(),
    campaignId: uuid("campaign_id"),
    pieceId: uuid("piece_id"),
    firstName: text("first_name").notNull().default(""),
    lastName: text("last_name").notNull().default(""),
    email: text("email").notNull().default(""),
    phone: text("phone").notNull().default(""),
    message: text("message").notNull().default(""),
    street: text("street").notNull().default(""),
    city: text("city").notNull().default(""),
    state: text("state").notNull().default(""),
    postalCode: text("postal_code").notNull().default(""),
    country: text("country").notNull().default(""),
    fullAddress: text("full_address").notNull().default(""),
    normalizedAddress: text("normalized_address"),
    latitude: doublePrecision("latitude"),
    longitude: doublePrecision("longitude"),
    customFields: jsonb("custom_fields").$type<LeadCustomField[]>().notNull().default([]),
    attributionType: text("attribution_type"),
    crmRecordId: text("crm_record_id"),
    syncKey: text("sync_key"),
    /** A landing-page lead's submission fingerprint, unique per piece (a resubmission is this lead). */
    submissionFingerprint: text("submission_fingerprint"),
    /** Marked won in the app: the close day, the job's amount, and when it was first marked. */
    wonOn: date("won_on", { mode: "string" }),
    wonAmount: numeric("won_amount"),
    wonAt: ts("won_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const subscriptions = pgTable(
  "subscriptions",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    targetUrl: text("target_url").notNull(),
    event: text("event").notNull().default("lead.created"),
    signingSecret: text("signing_secret"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const deliveries = pgTable(
  "deliveries",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    leadId: uuid("lead_id").notNull(),
    subscriptionId: uuid("subscription_id").notNull(),
    targetUrl: text("target_url").notNull(),
    signed: boolean("signed").notNull(),
    outcome: text("outcome").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const conversions = pgTable(
  "conversions",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    dealId: text("deal_id"),
    address: text("address").notNull(),
    normalizedAddress: text("normalized_address").notNull(),
    dealAmount: numeric("deal_amount"),
    dealDate: ts("deal_date"),
    dealStage: text("deal_stage"),
    dealName: text("deal_name"),
    contactFirstName: text("contact_first_name"),
    contactLastName: text("contact_last_name"),
    contactName: text("contact_name"),
    contactEmail: text("contact_email"),
    campaignId: uuid("campaign_id").notNull(),
    pieceId: uuid("piece_id"),
    matchMethod: text("match_method").notNull(),
    matchConfidence: text("match_confidence").notNull(),
    attributionType: text("attribution_type").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const customers = pgTable(
  "customers",
  {
    orgId: uuid("org_id").notNull(),
    normalizedAddress: text("normalized_address").notNull(),
    address: text("address").notNull(),
    notes: text("notes"),
    source: text("source").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.normalizedAddress] })],
);

export const imports = pgTable(
  "imports",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    source: text("source").$type<"jobs" | "customers">().notNull(),
    idempotencyKey: text("idempotency_key"),
    status: text("status").$type<"processing" | "staged">().notNull(),
    staged: integer("staged").notNull().default(0),
    skippedNoAddress: integer("skipped_no_address").notNull().default(0),
    skippedGeocodeFailed: integer("skipped_geocode_failed").notNull().default(0),
    skippedRows: jsonb("skipped_rows"),
    claimedAt: ts("claimed_at").notNull().defaultNow(),
    createdAt: ts("created_at").notNull().defaultNow(),
    stagedAt: ts("staged_at"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const importRows = pgTable(
  "import_rows",
  {
    orgId: uuid("org_id").notNull(),
    importId: uuid("import_id").notNull(),
    rowIndex: integer("row_index").notNull(),
    address: text("address").notNull(),
    normalizedAddress: text("normalized_address").notNull(),
    latitude: doublePrecision("latitude"),
    longitude: doublePrecision("longitude"),
    geoPrecision: text("geo_precision"),
    externalId: text("external_id"),
    customerName: text("customer_name"),
    completedAt: date("completed_at", { mode: "string" }),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.importId, t.rowIndex] })],
);

export const eventSamples = pgTable(
  "event_samples",
  {
    orgId: uuid("org_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The sample's place in the type's ring of 25 (event_sample_cursors holds the next one). */
    slot: smallint("slot").notNull(),
    id: uuid("id").notNull(),
    envelope: jsonb("envelope").notNull(),
    receivedAt: ts("received_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.eventType, t.slot] })],
);

export const eventSampleCursors = pgTable(
  "event_sample_cursors",
  {
    orgId: uuid("org_id").notNull(),
    eventType: text("event_type").notNull(),
    nextSlot: smallint("next_slot").notNull(),
    /** Events of this type received (live ones: a dry run writes no sample), since migration 0560. */
    received: bigint("received", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.eventType] })],
);

export const webhookLog = pgTable(
  "webhook_log",
  {
    orgId: uuid("org_id").notNull(),
    id: uuid("id").notNull(),
    at: ts("at").notNull().defaultNow(),
    source: text("source").notNull(),
    automationId: uuid("automation_id"),
    eventType: text("event_type"),
    dedupId: text("dedup_id"),
    level: text("level").$type<"info" | "warn" | "error">().notNull(),
    message: text("message").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

export const jobs = pgTable("jobs", {
  id: uuid("id").primaryKey(),
  orgId: uuid("org_id"),
  kind: text("kind").notNull(),
  payload: jsonb("payload").notNull(),
  status: text("status").$type<"pending" | "running" | "done" | "failed">().notNull().default("pending"),
  attempts: integer("attempts").notNull().default(0),
  maxAttempts: integer("max_attempts").notNull().default(5),
  runAt: ts("run_at").notNull().defaultNow(),
  lockedUntil: ts("locked_until"),
  lastError: text("last_error"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const geocodeCache = pgTable(
  "geocode_cache",
  {
    provider: text("provider").notNull(),
    normalizedAddress: text("normalized_address").notNull(),
    result: jsonb("result"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.normalizedAddress] })],
);
