import { type Static, Type } from "@fastify/type-provider-typebox";
import { composeAddress } from "../domain/address.ts";
import { IgnoredOrgId } from "../domain/ignored-org-id.ts";
import { MAX_CLOCK_LEAD_MS, parseIsoDate } from "../domain/iso-date.ts";
import { assertPrintable } from "../domain/printable-text.ts";
import { countCodePoints } from "../domain/storable-text.ts";
import { invalidPayload } from "../errors.ts";

export const EVENT_TYPE_PATTERN = "^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$";

export const RESERVED_PROPERTY_KEYS = [
  "street",
  "city",
  "state",
  "zip",
  "client_name",
  "client_email",
  "client_phone",
  "amount",
  "status",
  "service_lead_id",
] as const;

/**
 * A property key is a reserved key or starts with `cf_` (and matches `^[a-z][a-z0-9_]*$`).
 * `org_id` is also let through so that it can be ignored like everywhere else in the body.
 */
export const PROPERTY_KEY_PATTERN = `^(${[...RESERVED_PROPERTY_KEYS, "org_id"].join("|")}|cf_[a-z0-9_]*)$`;

export const MAX_PROPERTIES = 100;
export const MAX_PROPERTY_KEY_LENGTH = 64;
export const MAX_PROPERTY_VALUE_LENGTH = 2000;
export const MAX_COMPOSED_ADDRESS_LENGTH = 500;
export const EVENTS_BODY_LIMIT = 262_144;

export const EventProperties = Type.Object(
  { org_id: IgnoredOrgId },
  {
    $id: "EventProperties",
    description:
      "Flat string-to-string map. Keys: a reserved key (street, city, state, zip, client_name, client_email, client_phone, amount, status, service_lead_id) or `cf_` followed by lowercase letters, digits, underscores; at most 64 characters. Values: strings only, never coerced. street, city, state, zip and client_name are printed on the card: one holding a control or format character (a bidi override, a zero-width space) is 422 `invalid_payload` naming the field. state may be the USPS code or the state's name in any case (\"Illinois\" is read and printed as IL); the event's outcome does not check the address further (see `queued`).",
    additionalProperties: Type.String({ maxLength: MAX_PROPERTY_VALUE_LENGTH }),
    propertyNames: { pattern: PROPERTY_KEY_PATTERN, maxLength: MAX_PROPERTY_KEY_LENGTH },
    maxProperties: MAX_PROPERTIES,
  },
);

/**
 * Removes an `org_id` from `record.properties` before validation: it is ignored like every
 * `org_id` in a body, so it must not take one of the 100 property places either.
 */
export function dropIgnoredPropertyOrgId(body: unknown): void {
  const properties = (body as { record?: { properties?: unknown } } | null)?.record?.properties;
  if (properties !== null && typeof properties === "object" && Object.hasOwn(properties, "org_id")) {
    delete (properties as Record<string, unknown>).org_id;
  }
}

export const EventRecord = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128, description: "The caller's id of the record." }),
    properties: Type.Optional(EventProperties),
    org_id: IgnoredOrgId,
  },
  { $id: "EventRecord", additionalProperties: false },
);

export const ObjectTypeSchema = Type.Union([
  Type.Literal("job"),
  Type.Literal("deal"),
  Type.Literal("contact"),
]);

export const EventEnvelope = Type.Object(
  {
    event_type: Type.String({
      pattern: EVENT_TYPE_PATTERN,
      maxLength: 64,
      description: "`noun.verb`, bound in the app as `custom.<event_type>`.",
    }),
    object_type: ObjectTypeSchema,
    dedup_id: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "Idempotency key, per bound automation. Required: an empty string is refused.",
    }),
    occurred_at: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description:
          "ISO-8601 date-time (`2026-11-22T12:00:00Z`; without an offset it is read as UTC). At most 24 hours ahead of the server clock. An empty string (a CRM's empty field) is read as absent.",
      }),
    ),
    dry_run: Type.Optional(Type.Boolean({ description: "Evaluate without writing anything." })),
    record: EventRecord,
    org_id: IgnoredOrgId,
  },
  {
    $id: "EventEnvelope",
    additionalProperties: false,
    examples: [
      {
        event_type: "job.completed",
        object_type: "job",
        dedup_id: "job-1001-completed",
        occurred_at: "2026-11-25T13:45:00Z",
        record: {
          id: "job-1001",
          properties: {
            street: "742 Evergreen Terrace",
            city: "Springfield",
            state: "IL",
            zip: "62704",
            client_name: "Homer Simpson",
            client_email: "homer@example.com",
            cf_job_type: "furnace install",
          },
        },
      },
    ],
  },
);
export type EventEnvelope = Static<typeof EventEnvelope>;

/** Why an automation did or did not queue a card for a record, in every trigger answer. */
export const TRIGGER_REASONS = [
  "queued",
  "filtered_out",
  "no_address",
  "duplicate",
  "loop_guard",
  "failed",
] as const;
export type TriggerReason = (typeof TRIGGER_REASONS)[number];
/** The reasons as a schema (the events answer, the app's dry run). */
export const TriggerReasonSchema = Type.Unsafe<TriggerReason>(
  Type.Union(TRIGGER_REASONS.map((reason) => Type.Literal(reason))),
);

export const EventOutcome = Type.Object(
  {
    automation_id: Type.String(),
    name: Type.String(),
    matched: Type.Boolean({ description: "True only for `queued`." }),
    reason: TriggerReasonSchema,
  },
  { $id: "EventOutcome" },
);

export const EventResult = Type.Object(
  {
    received: Type.Literal(true),
    duplicate: Type.Boolean({ description: "True only when every candidate automation hit the dedup." }),
    dry_run: Type.Optional(Type.Literal(true)),
    matched_automations: Type.Integer({ description: "Candidates matched by event and object type." }),
    outcomes: Type.Array(EventOutcome),
  },
  { $id: "EventResult" },
);
export type EventResult = Static<typeof EventResult>;

/** The envelope as the service keeps it (samples): every `org_id` dropped. */
export interface CleanEnvelope {
  event_type: string;
  object_type: "job" | "deal" | "contact";
  dedup_id: string;
  occurred_at: string | null;
  dry_run: boolean;
  record: { id: string; properties: Record<string, string> };
}

/** Drops every `org_id` (top level, record, properties) and fills defaults. */
export function cleanEnvelope(envelope: EventEnvelope): CleanEnvelope {
  const { org_id: _ignoredInProperties, ...properties } = (envelope.record.properties ?? {}) as Record<
    string,
    unknown
  >;
  return {
    event_type: envelope.event_type,
    object_type: envelope.object_type,
    dedup_id: envelope.dedup_id,
    // What a flow sends for an empty CRM field: the same as none.
    occurred_at: envelope.occurred_at?.trim() ? envelope.occurred_at : null,
    dry_run: envelope.dry_run === true,
    record: { id: envelope.record.id, properties: properties as Record<string, string> },
  };
}

/**
 * The envelope rules a schema cannot express: the composed address length and how far
 * `occurred_at` may lead the server clock. Throws 422 invalid_payload naming the field.
 */
export function assertEnvelopeRules(envelope: CleanEnvelope, now: Date): void {
  // The address and the recipient's name are printed on the card.
  for (const part of ["street", "city", "state", "zip", "client_name"] as const) {
    assertPrintable(envelope.record.properties[part], `record.properties.${part}`);
  }
  // Characters are code points, as in every schema length limit (an emoji is one, not two).
  const composedLength = countCodePoints(composeAddress(envelope.record.properties));
  if (composedLength > MAX_COMPOSED_ADDRESS_LENGTH) {
    throw invalidPayload(
      `record.properties: the composed address (street, city, state, zip) is ${composedLength} characters; at most ${MAX_COMPOSED_ADDRESS_LENGTH} are allowed`,
    );
  }
  if (envelope.occurred_at !== null) {
    // Without an offset the time is UTC, never the server's zone; a date alone is not a date-time.
    const parsed = parseIsoDate(envelope.occurred_at);
    const occurredAt = parsed && !parsed.dateOnly ? parsed.at.getTime() : undefined;
    if (occurredAt === undefined) {
      throw invalidPayload("occurred_at: must be an ISO-8601 date-time, e.g. 2026-11-22T12:00:00Z");
    }
    if (occurredAt - now.getTime() > MAX_CLOCK_LEAD_MS) {
      throw invalidPayload("occurred_at: leads the server clock by more than 24 hours");
    }
  }
}
